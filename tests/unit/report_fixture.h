/*
 * report_fixture.h - the shim state, the log and the captured stderr
 * the report tests run in (see test_report.c's opening comment), made
 * fresh for each test.  Included by test_report.c and
 * test_audit_record.c.
 */
#ifndef CORDON_TEST_REPORT_FIXTURE_H
#define CORDON_TEST_REPORT_FIXTURE_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "enforce/base/base.h"
#include "shim/core/strbuf.h"
#include "shim/shim.h"
#include "tmptree.h"

static char T[64];
static char log_spec[PATH_BUF + 8];
static int saved_err = -1;
static char text[65536];
static size_t text_len; /* what slurp() read: a NUL inside shows */

/* "T/@rel", in one of a few rotating buffers. */
static const char *in_t(const char *rel)
{
	static char bufs[8][PATH_BUF];
	static size_t next;
	char *b = bufs[next++ % 8];

	snprintf(b, PATH_BUF, "%s%s%s", T, *rel ? "/" : "", rel);
	return b;
}

/* Point descriptor 2 at a new file T/@rel; returns its descriptor. */
static int stderr_to(const char *rel)
{
	int fd = open(in_t(rel), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0, "%s: %s", rel, strerror(errno));
	if (fd != 2) {
		cr_assert_eq(dup2(fd, 2), 2);
		close(fd);
	}
	return 2;
}

static void setup(void)
{
	char tmpl[] = "/tmp/cordon-report-XXXXXX";
	char *t;

	cr_assert_not_null(mkdtemp(tmpl));
	t = realpath(tmpl, NULL);
	cr_assert(t && strlen(t) < sizeof(T));
	memcpy(T, t, strlen(t) + 1);
	free(t);
	cr_assert_eq(mkdir(in_t("ro"), 0755), 0);
	cr_assert_eq(mkdir(in_t("ws"), 0755), 0);
	cr_assert_eq(mkdir(in_t("out"), 0755), 0);
	memset(&shim.policy, 0, sizeof(shim.policy));
	cr_assert_eq(policy_add_root(&shim.policy, "/usr", RIGHT_R | RIGHT_X,
				     ORIGIN_DEFAULT, true),
		     0);
	cr_assert_eq(policy_add_root(&shim.policy, in_t("ws"), RIGHT_ALL,
				     ORIGIN_DEFAULT, true),
		     0);
	cr_assert_eq(policy_add_root(&shim.policy, in_t("ro"), RIGHT_R,
				     ORIGIN_USER, true),
		     0);
	snprintf(log_spec, sizeof(log_spec), "file:%s", in_t("audit.jsonl"));
	shim.extra = (struct snapshot_extra){ .log = log_spec };
	saved_err = fcntl(2, F_DUPFD_CLOEXEC, 3);
	cr_assert_geq(saved_err, 0);
	stderr_to("stderr");
	shim_note_stderr();
}

static void teardown(void)
{
	if (saved_err >= 0)
		dup2(saved_err, 2);
	policy_free(&shim.policy);
	tmptree_remove(T);
}

TestSuite(report, .init = setup, .fini = teardown);

/* The whole of T/@rel ("" when absent), in `text`. */
static const char *slurp(const char *rel)
{
	int fd = open(in_t(rel), O_RDONLY | O_CLOEXEC);
	ssize_t n = 0, got;

	text[0] = '\0';
	text_len = 0;
	if (fd < 0)
		return text;
	while ((got = read(fd, text + n, sizeof(text) - 1 - (size_t)n)) > 0)
		n += got;
	close(fd);
	text[n] = '\0';
	text_len = (size_t)n;
	return text;
}

static size_t lines_in(const char *rel)
{
	size_t n = 0;

	for (const char *s = slurp(rel); *s; s++)
		n += *s == '\n';
	return n;
}

/* Record @i (from 0) of the log, parsed; NULL when there is none. */
static json_t *record(size_t i)
{
	const char *s = slurp("audit.jsonl");
	json_error_t e;
	json_t *r;

	for (; i > 0 && s; i--) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	if (!s || !*s)
		return NULL;
	r = json_loadb(s, strcspn(s, "\n"), JSON_REJECT_DUPLICATES, &e);
	cr_assert_not_null(r, "record %zu is not JSON (%s): %s", i, e.text, s);
	return r;
}

static const char *str(json_t *r, const char *key)
{
	const char *v = json_string_value(json_object_get(r, key));

	cr_assert_not_null(v, "no string \"%s\"", key);
	return v;
}

static struct op op_of(const char *name, unsigned int need, const char *path)
{
	return (struct op){
		.name = name, .need = need, .dirfd = AT_FDCWD, .path = path
	};
}

/* The line on stderr, checked to be one line of text: what slurp()
 * read holds no NUL, ends in its only newline, and has no raw control
 * byte (C0, DEL) a terminal would act on. */
static const char *one_line(void)
{
	const char *line = slurp("stderr");

	cr_assert_eq(strlen(line), text_len, "a NUL in the line");
	cr_assert_gt(text_len, 0, "no line");
	cr_assert_eq(strchr(line, '\n'), line + text_len - 1,
		     "not one line ending in a newline: %.200s", line);
	for (size_t i = 0; i + 1 < text_len; i++)
		cr_assert((unsigned char)line[i] >= 0x20 && line[i] != 0x7f,
			  "a control byte 0x%02x at %zu", line[i], i);
	return line;
}

#endif
