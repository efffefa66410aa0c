/*
 * say.c - the one way cordon says an error: "cordon: <what>", one line
 * whatever it holds.  Only the top of the launcher (main, spawn, probe)
 * and pid 1 before the command runs print; modules return their errors
 * with a one-line message.
 *
 * With --json the error is also said to a program: when cordon fails
 * (exit 125), say_exit() prints one document on stdout instead of the
 * command's, {"error": {"status": 125, "message": ...}}
 * (doc/schema/error.schema.json), its message the first error said.
 * The line on stderr stays, for the person reading it.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "enforce/base/base.h"
#include "shim/core/path.h"
#include "shim/core/strbuf.h"

#define LINE_MAX_ (1024 + PATH_BUF)

static bool json_mode;
static char first[LINE_MAX_]; /* the first error said, for the document */

/* Keep @line as the document's message unless one is kept already; a
 * WARNING is not the error. */
static void keep(const char *line)
{
	if (first[0] || strncmp(line, "WARNING:", 8) == 0)
		return;
	snprintf(first, sizeof(first), "%s", line);
}

void say_oneline(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

void say_error(const char *fmt, ...)
{
	char line[LINE_MAX_];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	say_oneline(line);
	keep(line);
	fprintf(stderr, "cordon: %s\n", line);
}

void say_kept(const char *msg)
{
	char line[LINE_MAX_];

	snprintf(line, sizeof(line), "%s", msg);
	say_oneline(line);
	keep(line);
}

const char *say_first(void)
{
	return first[0] ? first : NULL;
}

void say_json(bool on)
{
	json_mode = on;
}

int say_exit(int status)
{
	/* every byte of the message as \u00XX at worst, and the frame */
	static char doc[6 * LINE_MAX_ + 64];
	struct strbuf sb = STRBUF(doc, sizeof(doc));

	if (!json_mode || status != EXIT_CORDON)
		return status;
	sb_puts(&sb, "{\"error\":{\"status\":");
	sb_uint(&sb, (unsigned long)status);
	sb_puts(&sb, ",\"message\":\"");
	sb_json(&sb, first[0] ? first : "cordon failed (see stderr)");
	sb_puts(&sb, "\"}}\n");
	fflush(stdout);
	if (!sb.full)
		fputs(doc, stdout);
	fflush(stdout);
	return status;
}
