/*
 * Unit tests of the budget of records (enforce/report/budget.c) and the audit
 * log's rotation (enforce/report/auditlog.c): a repeat of the supervisor's
 * record is counted, not written; distinct ones stop at the limit; the
 * shim's reports are never compared; a session's call is counted on its
 * own and in all; the "dropped" record says it all.  The log rotates
 * past its size keeping what was there, and refuses a symbolic link.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/report/report.h"
#include "enforce/base/base.h"

static struct budget b;

static json_t *refusal(const char *path, int call)
{
	json_t *more =
		json_pack("{s:s, s:s, s:i, s:s}", "path", path, "resolved",
			  path, "need", 8, "layer", "kernel");
	json_t *rec = record_new(RECORD_KERNEL, "connect", "deny", "r", more);

	json_decref(more);
	if (call)
		json_object_set_new(rec, "call", json_integer(call));
	return rec;
}

static enum budget_verdict take(const char *path, int call)
{
	json_t *rec = refusal(path, call);
	enum budget_verdict v;

	cr_assert_eq(budget_source_of(rec), BUDGET_BROKER);
	v = budget_take(&b, BUDGET_BROKER, rec, 100);
	json_decref(rec);
	return v;
}

static void fini(void)
{
	budget_free(&b);
}

TestSuite(budget, .fini = fini);

Test(budget, a_repeat_is_counted_not_written)
{
	budget_init(&b, 1);
	cr_assert_eq(take("/s", 0), BUDGET_WRITE);
	for (int i = 0; i < 500; i++)
		cr_assert_eq(take("/s", 0), BUDGET_REPEAT);
	cr_assert_eq(take("/t", 0), BUDGET_WRITE);
	cr_assert_eq(b.all[BUDGET_BROKER].written, 2);
	cr_assert_eq(b.all[BUDGET_BROKER].repeats, 500);

	json_t *d = budget_dropped(&b, BUDGET_BROKER, 0);
	json_t *top;

	cr_assert_not_null(d);
	cr_assert_str_eq(json_string_value(json_object_get(d, "operation")),
			 "dropped");
	cr_assert_str_eq(json_string_value(json_object_get(d, "of")), "broker");
	cr_assert_eq(json_integer_value(json_object_get(d, "dropped")), 500);
	top = json_array_get(json_object_get(d, "repeated"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(top, "target")),
			 "/s");
	cr_assert_eq(json_integer_value(json_object_get(top, "times")), 501);
	/* /t was made once: not listed */
	cr_assert_eq(json_array_size(json_object_get(d, "repeated")), 1);
	json_decref(d);
}

Test(budget, distinct_records_stop_at_the_limit)
{
	char path[32];

	budget_init(&b, 1);
	for (int i = 0; i < BUDGET_OWN_RECORDS + 50; i++) {
		snprintf(path, sizeof(path), "/s%d", i);
		cr_assert_eq(take(path, 0), i < BUDGET_OWN_RECORDS
						    ? BUDGET_WRITE
						    : BUDGET_OVER);
	}
	cr_assert_eq(b.all[BUDGET_BROKER].over, 50);
	/* one past the limit is still past it the next time */
	cr_assert_eq(take("/s1010", 0), BUDGET_OVER);
	cr_assert(budget_full(&b, BUDGET_BROKER));
	/* another source is not touched */
	cr_assert_not(budget_full(&b, BUDGET_PROXY));
}

Test(budget, the_shims_reports_are_never_compared)
{
	json_t *rec =
		json_pack("{s:s, s:s, s:s, s:s}", "operation", "open", "path",
			  "/x", "resolved", "/x", "source", "shim");

	budget_init(&b, 1);
	cr_assert_eq(budget_source_of(rec), BUDGET_SHIM);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(budget_take(&b, BUDGET_SHIM, rec, 100),
			     BUDGET_WRITE);
	json_decref(rec);
}

Test(budget, a_call_is_counted_apart_and_in_all)
{
	char path[32];

	budget_init(&b, BUDGET_SESSION_SCALE);
	for (int i = 0; i < BUDGET_OWN_RECORDS + 10; i++) {
		snprintf(path, sizeof(path), "/s%d", i);
		take(path, 1);
	}
	/* call 1 is past its limit; call 2 has its own, the same paths
	 * are no repeat of call 1's */
	cr_assert_eq(budget_of(&b, BUDGET_BROKER, 1)->over, 10);
	cr_assert_eq(take("/s0", 2), BUDGET_WRITE);
	cr_assert_eq(take("/s0", 2), BUDGET_REPEAT);
	cr_assert_eq(b.all[BUDGET_BROKER].written, BUDGET_OWN_RECORDS + 1);

	json_t *d = budget_dropped(&b, BUDGET_BROKER, 1);

	cr_assert_str_eq(json_string_value(json_object_get(d, "per")), "call");
	cr_assert_eq(json_integer_value(json_object_get(d, "call")), 1);
	json_decref(d);
	d = budget_dropped(&b, BUDGET_BROKER, 0);
	cr_assert_str_eq(json_string_value(json_object_get(d, "per")),
			 "session");
	cr_assert_eq(json_integer_value(json_object_get(d, "limit_records")),
		     BUDGET_SESSION_SCALE * BUDGET_OWN_RECORDS);
	json_decref(d);
	budget_end_call(&b, 1);
	cr_assert_null(budget_of(&b, BUDGET_BROKER, 1));
}

Test(budget, nothing_lost_no_record)
{
	budget_init(&b, 1);
	take("/s", 0);
	cr_assert_null(budget_dropped(&b, BUDGET_BROKER, 0));
	cr_assert_null(budget_dropped(&b, BUDGET_PROXY, 0));
}

static char dir[] = "/tmp/test_budget.XXXXXX";

static void make_dir(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static off_t size_of(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 ? st.st_size : -1;
}

Test(auditlog, rotates_past_the_size_keeping_what_was_there)
{
	char path[256], line[] = "{\"n\":1}\n";
	struct auditlog l;
	size_t done;
	int fd;

	make_dir();
	snprintf(path, sizeof(path), "%s/log", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, AUDITLOG_SIZE_MAX - 4), 0);
	close(fd);
	cr_assert_eq(auditlog_open(&l, path), 0);
	cr_assert_eq(auditlog_append(&l, line, strlen(line), &done), 0);
	cr_assert_eq(size_of("log.1"), AUDITLOG_SIZE_MAX - 4);
	cr_assert_eq(size_of("log"), (off_t)strlen(line));
	cr_assert_eq(l.rotations, 1);
	auditlog_close(&l);
}

Test(auditlog, refuses_a_symbolic_link)
{
	char path[256], target[256];
	struct auditlog l;

	make_dir();
	snprintf(path, sizeof(path), "%s/log", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	cr_assert_eq(symlink(target, path), 0);
	cr_assert_eq(auditlog_open(&l, path), -ELOOP);
	cr_assert_eq(size_of("target"), -1);
	/* no file name at all */
	snprintf(path, sizeof(path), "%s/", dir);
	cr_assert_eq(auditlog_open(&l, path), -EISDIR);
}
