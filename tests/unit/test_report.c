/*
 * Unit tests of the shim's denials (shim/report.c, shim/audit.c): the
 * line on stderr and the audit record.  The test links the shim's own
 * report.o, audit.o and state.o, built for it (Makefile): nothing of the
 * shim is exported for the test.  It sets up `shim` (shim.h) as
 * shim_init() would: a policy, a log "file:T/audit.jsonl" (or a
 * "unix:" socket), and descriptor 2 noted as the process's stderr,
 * pointed at a capture file T/stderr.
 */
#include "report_fixture.h"
#include "shim/core/rule.h"

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
	cr_assert_eq(lines_in("audit.jsonl"), 1, "a retry is not recorded");
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
	cr_assert_eq(lines_in("audit.jsonl"), 4);
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
	report_denial(&op, in_t("out/g"), "shim");
	cr_assert_str_eq(slurp("stderr"), "");
	cr_assert_eq(lines_in("audit.jsonl"), 2, "one record per path");
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

Test(report, a_long_path_makes_one_clean_line)
{
	static char path[3001], resolved[PATH_BUF], want[3 * PATH_BUF];
	struct op op = op_of("open", RIGHT_W, path);

	memset(path, 'a', sizeof(path) - 1);
	snprintf(resolved, sizeof(resolved), "%s/%s", in_t("out"), path);
	report_denial(&op, resolved, "shim");
	snprintf(want, sizeof(want),
		 "cordon: denied write %s (%s) [open] (outside the writable "
		 "roots %s); allow with --write %s\n",
		 path, resolved, in_t("ws"), in_t("out"));
	cr_assert_str_eq(one_line(), want);
	cr_assert_eq(text_len, strlen(want));
}

/* "/d0000/d0001...": no stretch of it repeats, so a piece of it that
 * matches its start (or its end) can only be its start (its end). */
static void counted_path(char *buf, size_t len)
{
	size_t n = 0;

	for (unsigned int i = 0; n + 6 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "/d%04u", i);
	buf[n] = '\0';
}

Test(report, a_path_too_long_for_the_line_is_cut_in_its_middle)
{
	static char path[12000], want[PATH_BUF];
	struct op op = op_of("open", RIGHT_W, path);
	const char *line, *shown, *end, *cut;
	size_t head, tail;

	counted_path(path, sizeof(path));
	report_denial(&op, in_t("out/f"), "shim");
	line = one_line();
	cr_assert_leq(text_len, 2 * PATH_BUF);
	/* the option people paste, whole */
	snprintf(want, sizeof(want), "); allow with --write %s\n", in_t("out"));
	cr_assert_str_eq(line + text_len - strlen(want), want);
	/* the path: its start, "...", its end */
	shown = line + strlen("cordon: denied write ");
	snprintf(want, sizeof(want), " (%s) [open]", in_t("out/f"));
	end = strstr(shown, want);
	cr_assert_not_null(end, "%s", line);
	cut = strstr(shown, "...");
	cr_assert(cut && cut < end, "not cut: %.300s", line);
	head = (size_t)(cut - shown);
	tail = (size_t)(end - cut) - 3;
	cr_assert_geq(head, 1000, "%zu of the start kept", head);
	cr_assert_geq(tail, 1000, "%zu of the end kept", tail);
	cr_assert_eq(strncmp(shown, path, head), 0, "not the path's start");
	cr_assert_eq(strncmp(cut + 3, path + strlen(path) - tail, tail), 0,
		     "not the path's end");
}

Test(report, control_bytes_in_a_name_are_escaped_as_the_launcher_does)
{
	static const char name[] = "new\nline\x1b[31mred\r\t\x01\x7f\\"
				   "\xc2\x9b\xe2\x80\xae\xff\xc3\xa9";
	char resolved[PATH_BUF], e_name[1024], e_res[1024], want[4096];
	struct op op = op_of("open", RIGHT_W, name);
	int fd;

	snprintf(resolved, sizeof(resolved), "%s/%s", in_t("out"), name);
	fd = open(resolved, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	close(fd);
	report_denial(&op, resolved, "shim");
	/* the path, as given and resolved: each as enforce/base/record.c
	 * escapes it; the option naming the file (it exists) quoted */
	record_escape(e_name, sizeof(e_name), name);
	record_escape(e_res, sizeof(e_res), resolved);
	cr_assert_not_null(strstr(e_name,
				  "new\\nline\\x1b[31mred\\r\\t\\x01"
				  "\\x7f\\\\\\u009b\\u202e\\xff\xc3\xa9"),
			   "%s", e_name);
	/* the option: shell-quoted (bash's $'...'), written as it is */
	snprintf(want, sizeof(want),
		 "cordon: denied write %s (%s) [open] (outside the writable "
		 "roots %s); allow with --write $'%s/new\\nline\\x1b[31mred"
		 "\\r\\t\\x01\\x7f\\\\\\xc2\\x9b\\xe2\\x80\\xae"
		 "\\xff\xc3\xa9'\n",
		 e_name, e_res, in_t("ws"), in_t("out"));
	cr_assert_str_eq(one_line(), want);
}

/* An option too long for the line (a path of control bytes, four bytes
 * each quoted) is named nowhere rather than cut: the line says so. */
Test(report, an_option_too_long_is_not_cut)
{
	static char path[PATH_BUF], want[256];
	struct op op = op_of("open", RIGHT_W, "f");
	char name[251];
	size_t n;
	int fd;

	memset(name, '\x01', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	n = (size_t)snprintf(path, sizeof(path), "%s", in_t("out"));
	for (int i = 0; i < 6; i++) {
		n += (size_t)snprintf(path + n, sizeof(path) - n, "/%s", name);
		cr_assert_eq(mkdir(path, 0755), 0, "%s", strerror(errno));
	}
	snprintf(path + n, sizeof(path) - n, "/f");
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	close(fd);
	report_denial(&op, path, "shim");
	snprintf(want, sizeof(want), "); %s\n", RULE_TOO_LONG);
	cr_assert_str_eq(one_line() + text_len - strlen(want), want);
	cr_assert_null(strstr(slurp("audit.jsonl"), "\"allow\""));
}
