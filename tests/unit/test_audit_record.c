/*
 * Unit tests of the audit record (shim/audit.c): one JSON line of the
 * documented fields, escaped, sent whole to a file or a unix socket
 * however long its texts.  Built and set up as test_report.c (its
 * opening comment; the fixture is report_fixture.h).
 */
#include "report_fixture.h"

/* ---- the record ------------------------------------------------------ */

static void has_exactly(json_t *r, const char *const *keys)
{
	size_t n = 0;

	for (; keys[n]; n++)
		cr_assert_not_null(json_object_get(r, keys[n]), "no \"%s\"",
				   keys[n]);
	cr_assert_eq(json_object_size(r), n, "%zu fields, expected %zu",
		     json_object_size(r), n);
}

Test(report, the_record_is_one_json_line_of_the_documented_fields)
{
	static const char *const keys[] = {
		"time",	     "pid",   "ppid",	  "pgid", "program",
		"operation", "path",  "resolved", "need", "verdict",
		"rule",	     "allow", "layer",	  NULL,
	};
	struct op op = op_of("open64", RIGHT_W, "../ro/new");
	char exe[PATH_BUF], want[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	time_t before = time(NULL), after;
	const char *line, *why = NULL;
	json_t *r, *kept;
	double t;

	cr_assert_gt(n, 0);
	exe[n] = '\0';
	report_denial(&op, in_t("ro/new"), "shim");
	after = time(NULL);
	line = slurp("audit.jsonl");
	cr_assert_eq(strchr(line, '\n'), line + strlen(line) - 1,
		     "not one line: %s", line);
	r = record(0);
	has_exactly(r, keys);
	t = json_number_value(json_object_get(r, "time"));
	cr_assert(json_is_real(json_object_get(r, "time")));
	cr_assert((time_t)t >= before && (time_t)t <= after,
		  "time %f outside [%ld, %ld]", t, (long)before, (long)after);
	cr_assert_eq(json_integer_value(json_object_get(r, "pid")), getpid());
	cr_assert_eq(json_integer_value(json_object_get(r, "ppid")), getppid());
	cr_assert_eq(json_integer_value(json_object_get(r, "pgid")),
		     getpgid(0));
	cr_assert_str_eq(str(r, "program"), exe);
	cr_assert_str_eq(str(r, "operation"), "open64");
	cr_assert_str_eq(str(r, "path"), "../ro/new");
	cr_assert_str_eq(str(r, "resolved"), in_t("ro/new"));
	cr_assert_eq(json_integer_value(json_object_get(r, "need")), RIGHT_W);
	cr_assert_str_eq(str(r, "verdict"), "deny");
	snprintf(want, sizeof(want), "%s is granted r only", in_t("ro"));
	cr_assert_str_eq(str(r, "rule"), want);
	snprintf(want, sizeof(want), "with --write %s", in_t("ro"));
	cr_assert_str_eq(str(r, "allow"), want);
	cr_assert_str_eq(str(r, "layer"), "shim");
	json_decref(r);
	/* and the launcher, which trusts nothing from inside, keeps it */
	kept = record_parse(line, strlen(line), &why);
	cr_assert_not_null(kept, "the launcher rejects it: %s", why);
	json_decref(kept);
}

Test(report, a_network_record_names_the_destination_not_a_path)
{
	static const char *const keys[] = {
		"time",	   "pid",	"ppid",	       "pgid",
		"program", "operation", "destination", "verdict",
		"rule",	   "layer",	NULL,
	};
	struct op op = op_of("connect", 0, NULL);
	json_t *r;

	op.dest = "127.0.0.1:80";
	audit_record(&op, NULL, "network is off", "shim");
	r = record(0);
	has_exactly(r, keys);
	cr_assert_str_eq(str(r, "destination"), "127.0.0.1:80");
	cr_assert_str_eq(str(r, "rule"), "network is off");
	json_decref(r);
}

Test(report, text_from_the_program_is_escaped_in_the_record)
{
	static const char path[] = "q\"b\\s\nn\x01c\x7f\xc3\xa9";
	struct op op = op_of("open", RIGHT_R, path);
	const char *line;
	json_t *r;

	report_denial(&op, in_t("out/f"), "shim");
	cr_assert_eq(lines_in("audit.jsonl"), 1);
	r = record(0);
	cr_assert_str_eq(str(r, "path"), path);
	json_decref(r);
	/* a byte that is not UTF-8: escaped, so the line stays JSON */
	op.path = "bad\xff";
	report_denial(&op, in_t("out/g"), "shim");
	line = slurp("audit.jsonl");
	cr_assert_not_null(strstr(line, "\"path\":\"bad\\u00ff\""), "%s", line);
	r = record(1);
	cr_assert_not_null(r);
	json_decref(r);
}

Test(report, records_go_to_a_unix_socket_when_the_log_says_so)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct op op = op_of("open", RIGHT_W, "f");
	char buf[8192];
	ssize_t n;
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	json_error_t e;
	json_t *r;

	cr_assert_geq(s, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", in_t("log.sock"));
	cr_assert_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s",
		     strerror(errno));
	snprintf(log_spec, sizeof(log_spec), "unix:%s", in_t("log.sock"));
	report_denial(&op, in_t("out/f"), "shim");
	n = recv(s, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	cr_assert_gt(n, 0, "no datagram: %s", strerror(errno));
	cr_assert_eq(buf[n - 1], '\n');
	r = json_loadb(buf, (size_t)n, 0, &e);
	cr_assert_not_null(r, "%s", e.text);
	cr_assert_str_eq(str(r, "resolved"), in_t("out/f"));
	json_decref(r);
	cr_assert_str_eq(slurp("audit.jsonl"), "", "nothing in a file");
	close(s);
}

/* The one record of the log, which the launcher must keep: parsed by
 * record_parse(), as the supervisor reads a datagram. */
static json_t *kept_record(void)
{
	const char *line = slurp("audit.jsonl"), *why = NULL;
	json_t *r;

	cr_assert_gt(text_len, 0, "no record");
	cr_assert_eq(strchr(line, '\n'), line + text_len - 1,
		     "not one record: %.200s", line);
	cr_assert_leq(text_len, RECORD_DATAGRAM_MAX);
	r = record_parse(line, text_len, &why);
	cr_assert_not_null(r, "the launcher rejects it: %s", why);
	return r;
}

/* T/out/ccc.../ccc.../fff: a file whose path, relative to T/out, is
 * @len bytes long, in directories of 200 bytes; the relative path in
 * @rel, the absolute one in @abs. */
static void out_path(char *abs, const char *rel)
{
	struct strbuf sb = STRBUF(abs, PATH_BUF);

	sb_puts(&sb, in_t("out/"));
	sb_puts(&sb, rel);
	cr_assert(!sb.full);
}

static void deep_file(size_t len, char *rel, char *abs)
{
	struct strbuf sb = STRBUF(rel, PATH_BUF);
	char comp[201];
	int fd;

	memset(comp, 'c', 199);
	comp[199] = '/';
	comp[200] = '\0';
	while (len - sb.len > 200) { /* a name is at most 255 bytes */
		sb_puts(&sb, comp);
		out_path(abs, rel);
		cr_assert_eq(mkdir(abs, 0755), 0, "%s", strerror(errno));
	}
	while (sb.len < len)
		sb_puts(&sb, "f");
	cr_assert(!sb.full);
	out_path(abs, rel);
	fd = open(abs, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	close(fd);
}

Test(report, a_record_of_4000_byte_paths_is_sent_whole)
{
	static char rel[PATH_BUF], abs[PATH_BUF], want[PATH_BUF + 64];
	struct op op = op_of("open", RIGHT_W, rel);
	json_t *r;

	deep_file(4000, rel, abs);
	cr_assert_eq(strlen(rel), 4000);
	report_denial(&op, abs, "shim");
	r = kept_record();
	cr_assert_str_eq(str(r, "path"), rel);
	cr_assert_str_eq(str(r, "resolved"), abs);
	snprintf(want, sizeof(want), "with --write %s", abs);
	cr_assert_str_eq(str(r, "allow"), want);
	json_decref(r);
	/* and the line, too long for all of it, keeps the option whole */
	snprintf(want, sizeof(want), "); allow with --write %s\n", abs);
	cr_assert_str_eq(one_line() + text_len - strlen(want), want);
}

/* @s is @byte repeated, but for one SB_CUT in its middle. */
static void cut_from(const char *s, const char *byte)
{
	const char *cut = strstr(s, SB_CUT);
	size_t n = strlen(byte);

	cr_assert_not_null(cut, "not shortened");
	for (const char *p = s; *p; p += p == cut ? SB_CUT_LEN : n)
		cr_assert(p == cut || strncmp(p, byte, n) == 0,
			  "not the text at %zu", (size_t)(p - s));
	/* 4 KB of escapes: some 680 bytes when each takes 6 */
	cr_assert(cut - s > 300 && strlen(cut) > 300, "%zu and %zu kept",
		  (size_t)(cut - s), strlen(cut));
}

Test(report, a_record_of_the_longest_texts_is_sent_and_kept)
{
	static char path[20001], resolved[PATH_BUF], rule[PATH_BUF];
	static char allow[PATH_BUF + 64];
	struct op op = op_of("open", RIGHT_W, path);
	json_t *r;

	/* each far longer escaped than a record may be */
	memset(path, '\x01', sizeof(path) - 1);
	resolved[0] = '/';
	memset(resolved + 1, 0xff, sizeof(resolved) - 2);
	memset(rule, '"', sizeof(rule) - 1);
	memset(allow, '\x7f', sizeof(allow) - 1);
	op.allow = allow;
	audit_record(&op, resolved, rule, "kernel");
	r = kept_record();
	cut_from(str(r, "path"), "\x01");
	cr_assert_eq(strncmp(str(r, "resolved"), "/\xc3\xbf", 3), 0);
	cut_from(str(r, "resolved") + 1, "\xc3\xbf"); /* \u00ff */
	cut_from(str(r, "rule"), "\"");
	cut_from(str(r, "allow"), "\x7f");
	cr_assert_str_eq(str(r, "layer"), "kernel");
	json_decref(r);
}

Test(report, bytes_that_are_not_utf8_keep_the_record_json)
{
	/* a surrogate, an overlong '/', past U+10FFFF, a sequence cut
	 * short; then what is UTF-8 */
	static const char path[] = "s\xed\xa0\x80o\xe0\x80\xafp\xf4\x90\x80\x80"
				   "t\xe2\x82|\xc3\xa9\xf0\x9f\x98\x80";
	struct op op = op_of("open", RIGHT_W, path);
	json_t *r;

	report_denial(&op, in_t("out/f"), "shim");
	r = kept_record();
	cr_assert_str_eq(str(r, "path"),
			 "s\xc3\xad\xc2\xa0\xc2\x80o\xc3\xa0\xc2\x80\xc2\xafp"
			 "\xc3\xb4\xc2\x90\xc2\x80\xc2\x80t\xc3\xa2\xc2\x82|"
			 "\xc3\xa9\xf0\x9f\x98\x80");
	json_decref(r);
}
