/*
 * fuzz_record.c - libFuzzer target for what the shims report from
 * inside the sandbox (enforce/base/record.c, tally.c, summary.c): a datagram
 * is validated, counted for the summary, written to the log and, with
 * the counts of the inputs before it, printed as a call's summary.
 *
 * Whatever the bytes: a record parsed dumps to one line with no raw
 * control byte, and counting and printing it never fails; every few
 * inputs the tally is printed and freed, as a session's call's is.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/base/base.h"
#include "enforce/report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct supervisor sup;
static struct tally tally;
static unsigned int inputs;

static void check_line(const char *line, size_t len)
{
	if (!len || line[len - 1] != '\n' || strlen(line) != len)
		abort();
	for (size_t i = 0; i + 1 < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c < 0x20 || c == 0x7f)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *rec = record_parse((const char *)data, size, NULL);
	size_t len = 0;
	char *line, *text;

	if (!inputs++) {
		snprintf(sup.logpath, sizeof(sup.logpath), "/x/audit.jsonl");
		sup.sock = -1;
		tally_init(&tally);
	}
	if (rec) {
		const char *path =
			json_string_value(json_object_get(rec, "path"));
		char esc[4 * 300 + 1];

		line = record_dump(rec, &len);
		if (!line)
			abort();
		check_line(line, len);
		free(line);
		if (path)
			record_escape(esc, sizeof(esc), path);
		tally_note(&tally, rec);
		json_decref(rec);
	}
	if (inputs % 64 == 0) {
		text = summary_of_call(&sup, &tally, 0, "0123456789abcdef", 1,
				       NULL);
		free(text);
		tally_free(&tally);
		memset(&tally, 0, sizeof(tally));
		tally_init(&tally);
	}
	return 0;
}
