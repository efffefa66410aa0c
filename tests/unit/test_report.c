/*
 * Unit tests of the shim's denials (shim/report.c, shim/audit.c): the
 * line on stderr and the audit record.  The test links the shim's own
 * report.o, audit.o and state.o, built for it (Makefile): nothing of the
 * shim is exported for the test.  It sets up `shim` (shim.h) as
 * shim_init() would: a policy, a log "file:T/audit.jsonl" (or a
 * "unix:" socket), and descriptor 2 noted as the process's stderr,
 * pointed at a capture file T/stderr.
 */
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

#include "enforce/policy_edit.h"
#include "enforce/record.h"
#include "shim/shim.h"

static char T[64];
static char log_spec[PATH_BUF + 8];
static int saved_err = -1;
static char text[65536];

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

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void teardown(void)
{
	if (saved_err >= 0)
		dup2(saved_err, 2);
	policy_free(&shim.policy);
	if (T[0])
		nftw(T, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(report, .init = setup, .fini = teardown);

/* The whole of T/@rel ("" when absent), in `text`. */
static const char *slurp(const char *rel)
{
	int fd = open(in_t(rel), O_RDONLY | O_CLOEXEC);
	ssize_t n = 0, got;

	text[0] = '\0';
	if (fd < 0)
		return text;
	while ((got = read(fd, text + n, sizeof(text) - 1 - (size_t)n)) > 0)
		n += got;
	close(fd);
	text[n] = '\0';
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

/* ---- the line -------------------------------------------------------- */

Test(report, the_line_says_what_where_why_and_what_allows_it)
{
	struct op op = op_of("open64", RIGHT_W, "../ro/new");
	char want[1024];

	report_denial(&op, in_t("ro/new"), "shim");
	snprintf(want, sizeof(want),
		 "cordon: denied write ../ro/new (%s) [open64] (%s is granted "
		 "r only); allow with --write %s\n",
		 in_t("ro/new"), in_t("ro"), in_t("ro"));
	cr_assert_str_eq(slurp("stderr"), want);
}

Test(report, a_path_given_as_it_resolves_is_not_repeated)
{
	struct op op = op_of("openat", RIGHT_R, in_t("out/x"));
	char want[1024];

	report_denial(&op, in_t("out/x"), "shim");
	snprintf(want, sizeof(want),
		 "cordon: denied read %s [openat] (outside the readable roots "
		 "%s, /usr, %s); allow with --read %s\n",
		 in_t("out/x"), in_t("ro"), in_t("ws"), in_t("out"));
	cr_assert_str_eq(slurp("stderr"), want);
}

Test(report, the_kernel_layer_and_the_shim_used_alone_are_named)
{
	struct op op = op_of("execve", RIGHT_X, "tool");
	char want[1024];

	shim.extra.standalone = true;
	report_denial(&op, in_t("ro/tool"), "kernel");
	snprintf(want, sizeof(want),
		 "cordon: denied exec tool (%s) [execve, by the kernel] (%s is "
		 "granted r only); allow by adding %s to CORDON_EXEC\n",
		 in_t("ro/tool"), in_t("ro"), in_t("ro"));
	cr_assert_str_eq(slurp("stderr"), want);
}

Test(report, one_line_per_operation_need_and_path_in_a_process)
{
	struct op op = op_of("open", RIGHT_W, "f");

	report_denial(&op, in_t("out/f"), "shim");
	report_denial(&op, in_t("out/f"), "shim");
	cr_assert_eq(lines_in("stderr"), 1);
	cr_assert_eq(lines_in("audit.jsonl"), 2, "each denial is recorded");
	/* the same path as given differently: the same line */
	op.path = "./f";
	report_denial(&op, in_t("out/f"), "shim");
	cr_assert_eq(lines_in("stderr"), 1);
	/* another operation, another need, another path: a line each */
	op.name = "creat";
	report_denial(&op, in_t("out/f"), "shim");
	cr_assert_eq(lines_in("stderr"), 2);
	op.need = RIGHT_R;
	report_denial(&op, in_t("out/f"), "shim");
	cr_assert_eq(lines_in("stderr"), 3);
	report_denial(&op, in_t("out/g"), "shim");
	cr_assert_eq(lines_in("stderr"), 4);
	cr_assert_eq(lines_in("audit.jsonl"), 6);
}

Test(report, a_child_process_has_lines_of_its_own)
{
	struct op op = op_of("open", RIGHT_W, "f");
	pid_t pid;
	int status;

	report_denial(&op, in_t("out/f"), "shim");
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		report_denial(&op, in_t("out/f"), "shim");
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(lines_in("stderr"), 2);
	report_denial(&op, in_t("out/f"), "shim");
	cr_assert_eq(lines_in("stderr"), 2);
}

Test(report, quiet_prints_no_line_and_still_records)
{
	struct op op = op_of("open", RIGHT_W, "f");
	json_t *r;

	shim.policy.quiet = true;
	report_denial(&op, in_t("out/f"), "shim");
	cr_assert_str_eq(slurp("stderr"), "");
	r = record(0);
	cr_assert_not_null(r);
	cr_assert_str_eq(str(r, "verdict"), "deny");
	json_decref(r);
}

Test(report, learning_records_learn_and_prints_no_line)
{
	struct op op = op_of("open", RIGHT_W, "f");
	char want[PATH_BUF + 16];
	json_t *r;

	shim.extra.learn = true;
	report_denial(&op, in_t("out/f"), "shim");
	report_denial(&op, in_t("out/f"), "shim");
	cr_assert_str_eq(slurp("stderr"), "");
	cr_assert_eq(lines_in("audit.jsonl"), 2);
	r = record(1);
	cr_assert_not_null(r);
	cr_assert_str_eq(str(r, "verdict"), "learn");
	snprintf(want, sizeof(want), "with --write %s", in_t("out"));
	cr_assert_str_eq(str(r, "allow"), want);
	json_decref(r);
}

Test(report, stderr_is_written_only_while_it_is_the_file_it_was)
{
	struct op op = op_of("open", RIGHT_W, "f");

	stderr_to("other");
	report_denial(&op, in_t("out/f"), "shim");
	cr_assert_str_eq(slurp("other"), "");
	cr_assert_str_eq(slurp("stderr"), "");
	cr_assert_eq(lines_in("audit.jsonl"), 1);
	/* begun with 2 closed: a file opened as 2 later gets nothing,
	 * even the one 2 was before */
	close(2);
	shim_note_stderr();
	stderr_to("stderr");
	op.path = "g";
	report_denial(&op, in_t("out/g"), "shim");
	cr_assert_str_eq(slurp("stderr"), "");
	cr_assert_eq(lines_in("audit.jsonl"), 2);
}

Test(report, errno_is_kept)
{
	struct op op = op_of("open", RIGHT_W, "f");

	errno = EXDEV;
	report_denial(&op, in_t("out/f"), "shim");
	cr_assert_eq(errno, EXDEV);
	cr_assert_eq(lines_in("stderr"), 1);
	/* a log that cannot be written, a stderr that moved */
	snprintf(log_spec, sizeof(log_spec), "file:%s", in_t("none/log"));
	stderr_to("other");
	op.path = "g";
	errno = ENOTTY;
	report_denial(&op, in_t("out/g"), "shim");
	cr_assert_eq(errno, ENOTTY);
	snprintf(log_spec, sizeof(log_spec), "unix:%s", in_t("none.sock"));
	errno = EILSEQ;
	report_denial(&op, in_t("out/h"), "shim");
	cr_assert_eq(errno, EILSEQ);
}

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
		"time",	 "pid",	     "ppid", "program", "operation",
		"path",	 "resolved", "need", "verdict", "rule",
		"allow", "layer",    NULL,
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
		"time",	       "pid",	  "ppid", "program", "operation",
		"destination", "verdict", "rule", "layer",   NULL,
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
	report_denial(&op, in_t("out/f"), "shim");
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
