/*
 * Unit tests of the suggested option (shim/core/rule.c, strbuf.c): the
 * least grant by operation (the directory for what removes, renames or
 * links a name; the file for what uses it), /proc/PID paths, protected
 * paths (the path that lifts a protection, or none), and the shell
 * quoting of the path, checked by bash reading it back.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "shim/core/path.h"
#include "shim/core/rule.h"
#include "tmptree.h"

static struct policy p;
static char T[64];
static char out[4 * PATH_BUF];

static const char *in_t(const char *rel)
{
	static char buf[4][PATH_BUF];
	static int n;
	char *b = buf[n++ % 4];

	snprintf(b, PATH_BUF, "%s%s%s", T, *rel ? "/" : "", rel);
	return b;
}

static void make(const char *rel, bool dir)
{
	int fd;

	if (dir) {
		cr_assert_eq(mkdir(in_t(rel), 0755), 0, "%s", rel);
		return;
	}
	fd = open(in_t(rel), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "%s", rel);
	close(fd);
}

static void init(void)
{
	char tmpl[] = "/tmp/cordon-suggest-XXXXXX";
	char *t;

	cr_assert_not_null(mkdtemp(tmpl), "mkdtemp: %s", strerror(errno));
	t = realpath(tmpl, NULL);
	cr_assert(t && strlen(t) < sizeof(T));
	memcpy(T, t, strlen(t) + 1);
	free(t);
	make("out", true);
	make("out/f", false);
	make("ws", true);
	make("ws/.git", true);
	make("ws/.git/config", false);
	make("ws/.git/hooks", true);
	make("home", true);
	make("home/.bashrc", false);
}

static void fini(void)
{
	policy_free(&p);
	memset(&p, 0, sizeof(p));
	tmptree_remove(T);
}

TestSuite(suggest, .init = init, .fini = fini);

static void add(const char *path, unsigned int rights, enum root_origin o,
		bool dir)
{
	cr_assert_eq(policy_add_root(&p, path, rights, o, dir), 0, "%s", path);
}

/* rule_put_option() of @op with @need on T/@rel, or "(none)". */
static const char *option(const char *op, unsigned int need, const char *rel)
{
	struct strbuf sb = STRBUF(out, sizeof(out));

	if (!rule_put_option(&sb, &p, op, need,
			     rel[0] == '/' ? rel : in_t(rel)))
		return "(none)";
	cr_assert(!sb.full);
	return out;
}

static const char *opt(const char *flag, const char *rel)
{
	static char buf[PATH_BUF + 16];

	snprintf(buf, sizeof(buf), "%s %s", flag, in_t(rel));
	return buf;
}

Test(suggest, removal_rename_and_link_name_the_directory)
{
	static const char *const ops[] = { "unlink",	"unlinkat", "rmdir",
					   "remove",	"rename",   "renameat",
					   "renameat2", "link",	    "linkat" };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		cr_assert(rule_on_entry(ops[i]), "%s", ops[i]);
		cr_assert_str_eq(option(ops[i], RIGHT_W, "out/f"),
				 opt("--write", "out"), "%s", ops[i]);
	}
	/* the twins: what uses the file names the file */
	cr_assert_str_eq(option("open", RIGHT_W, "out/f"),
			 opt("--write", "out/f"));
	cr_assert_str_eq(option("truncate", RIGHT_W, "out/f"),
			 opt("--write", "out/f"));
	cr_assert_str_eq(option(NULL, RIGHT_W, "out/f"),
			 opt("--write", "out/f"));
	cr_assert(!rule_on_entry("removexattr"));
	cr_assert(!rule_on_entry("linkx"));
	cr_assert(!rule_on_entry(NULL));
	/* seeing it (rm's fstatat) or reading it: the file */
	cr_assert_str_eq(option("unlinkat", 0, "out/f"),
			 opt("--read", "out/f"));
	cr_assert_str_eq(option("fstatat", 0, "out/f"), opt("--read", "out/f"));
}

Test(suggest, creation_names_the_nearest_existing_directory)
{
	cr_assert_str_eq(option("mkdir", RIGHT_W, "out/new"),
			 opt("--write", "out"));
	cr_assert_str_eq(option("mkdir", RIGHT_W, "out/new/a/b"),
			 opt("--write", "out"));
	cr_assert_str_eq(option("open", RIGHT_W, "out/newfile"),
			 opt("--write", "out"));
	cr_assert_str_eq(option("mkfifo", RIGHT_W, "out/fifo"),
			 opt("--write", "out"));
	cr_assert_str_eq(option("symlink", RIGHT_W, "out/l"),
			 opt("--write", "out"));
	/* removing what lies in a directory not there: its nearest one */
	cr_assert_str_eq(option("unlink", RIGHT_W, "out/gone/f"),
			 opt("--write", "out"));
}

Test(suggest, exec_names_the_file)
{
	cr_assert_str_eq(option("execve", RIGHT_X, "out/f"),
			 opt("--exec", "out/f"));
}

Test(suggest, a_process_file_names_proc)
{
	cr_assert_str_eq(option("open", RIGHT_R, "/proc/2/mounts"),
			 "--read /proc");
	cr_assert_str_eq(option("open", RIGHT_R, "/proc/24697/task/3/stat"),
			 "--read /proc");
	cr_assert_str_eq(option("opendir", RIGHT_R, "/proc/77"),
			 "--read /proc");
	cr_assert_str_eq(option("open", RIGHT_R, "/proc/self/status"),
			 "--read /proc");
	cr_assert_str_eq(option("open", RIGHT_W, "/proc/thread-self/comm"),
			 "--write /proc");
	/* the twins: /proc's own files are themselves */
	cr_assert_str_eq(option("open", RIGHT_R, "/proc/cpuinfo"),
			 "--read /proc/cpuinfo");
	cr_assert_str_eq(option("open", RIGHT_R, "/proc/sys/kernel/hostname"),
			 "--read /proc/sys/kernel/hostname");
}

/* The workspace writable, its git files protected, as roots.c does. */
static void protect_repo(void)
{
	add(in_t("ws"), RIGHT_ALL, ORIGIN_DEFAULT, true);
	add(in_t("ws/.git/config"), RIGHT_R | RIGHT_X, ORIGIN_PROTECTED, false);
	add(in_t("ws/.git/hooks"), RIGHT_R | RIGHT_X, ORIGIN_PROTECTED, true);
	add(in_t("ws/.git/commondir"), RIGHT_R | RIGHT_X, ORIGIN_PROTECTED,
	    false);
}

Test(suggest, git_files_renamed_over_name_the_git_directory)
{
	protect_repo();
	/* git config: config.lock renamed onto config, a mount point */
	cr_assert_str_eq(option("rename", RIGHT_W, "ws/.git/config"),
			 opt("--write", "ws/.git"));
	cr_assert_str_eq(option("unlink", RIGHT_W, "ws/.git/config"),
			 opt("--write", "ws/.git"));
	/* what does not exist yet: its git directory */
	cr_assert_str_eq(option("open", RIGHT_W, "ws/.git/commondir"),
			 opt("--write", "ws/.git"));
	/* written in place, the file itself lifts it */
	cr_assert_str_eq(option("open", RIGHT_W, "ws/.git/config"),
			 opt("--write", "ws/.git/config"));
	/* in a protected directory: the directory, at the protection */
	cr_assert_str_eq(option("open", RIGHT_W, "ws/.git/hooks/pre-commit"),
			 opt("--write", "ws/.git/hooks"));
	cr_assert_str_eq(option("unlink", RIGHT_W, "ws/.git/hooks/x"),
			 opt("--write", "ws/.git/hooks"));
	/* reading is not what a protection keeps */
	cr_assert_str_eq(option("open", RIGHT_R, "ws/.git/config"),
			 opt("--read", "ws/.git/config"));
}

Test(suggest, a_protected_file_renamed_over_has_no_option)
{
	add(in_t("home"), RIGHT_ALL, ORIGIN_USER, true);
	add(in_t("home/.bashrc"), RIGHT_R | RIGHT_X, ORIGIN_PROTECTED, false);
	/* --write home leaves .bashrc a read-only mount point; --write
	 * home/.bashrc makes it a mount point of its own: EBUSY both */
	cr_assert_str_eq(option("rename", RIGHT_W, "home/.bashrc"), "(none)");
	cr_assert_str_eq(option("unlink", RIGHT_W, "home/.bashrc"), "(none)");
	/* the twin: written in place, naming it lifts it */
	cr_assert_str_eq(option("open", RIGHT_W, "home/.bashrc"),
			 opt("--write", "home/.bashrc"));
}

Test(suggest, a_secret_names_itself_whole)
{
	add("/etc", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true);
	add(in_t("out"), 0, ORIGIN_PROTECTED, true);
	cr_assert_str_eq(option("open", RIGHT_R, "out/f"),
			 opt("--read", "out"));
}

/* ---- quoting ------------------------------------------------------ */

/* What bash makes of @word: `printf %s WORD`, its output in @got. */
static size_t bash_reads(const char *word, char *got, size_t cap)
{
	char script[4 * PATH_BUF];
	int fds[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	snprintf(script, sizeof(script), "printf %%s %s", word);
	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl("/bin/bash", "bash", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (n < cap && (r = read(fds[0], got + n, cap - n)) > 0)
		n += (size_t)r;
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", word);
	return n;
}

static const char *quoted(const char *s)
{
	struct strbuf sb = STRBUF(out, sizeof(out));

	sb_shell(&sb, s);
	cr_assert(!sb.full);
	return out;
}

static void round_trip(const char *s)
{
	char got[PATH_BUF];
	const char *w = quoted(s);
	size_t n;

	for (const unsigned char *c = (const unsigned char *)w; *c; c++)
		cr_assert(*c >= 0x20 && *c != 0x7f, "raw control byte in %s",
			  w);
	n = bash_reads(w, got, sizeof(got));
	cr_assert(n == strlen(s) && memcmp(got, s, n) == 0,
		  "%s read back as %.*s", w, (int)n, got);
}

Test(suggest, quoting_forms)
{
	cr_assert_str_eq(quoted("/a/b-c_d.e,f:g=h@i%j+k"),
			 "/a/b-c_d.e,f:g=h@i%j+k");
	cr_assert_str_eq(quoted("/x/my dir"), "'/x/my dir'");
	cr_assert_str_eq(quoted("/x/it's"), "'/x/it'\\''s'");
	cr_assert_str_eq(quoted("/x/caf\xc3\xa9"), "'/x/caf\xc3\xa9'");
	cr_assert_str_eq(quoted("/x/a\nb"), "$'/x/a\\nb'");
	cr_assert_str_eq(quoted("/x/a\tb\x1b[31m"), "$'/x/a\\tb\\x1b[31m'");
	cr_assert_str_eq(quoted("/x/\xff'\\"), "$'/x/\\xff\\'\\\\'");
	/* a bidirectional override: its bytes, shown for what they are */
	cr_assert_str_eq(quoted("/x/\xe2\x80\xae"), "$'/x/\\xe2\\x80\\xae'");
	cr_assert_str_eq(quoted(""), "''");
}

Test(suggest, quoting_round_trips_through_bash)
{
	static const char *const paths[] = {
		"/plain/path",
		"/x/my dir",
		"/x/it's a 'quote'",
		"/x/$HOME `id` $(id) ; | & > < * ? [a] ~ ! # {a,b}",
		"/x/back\\slash\\",
		"/x/a\nb\ncordon: denied write /fake",
		"/x/\t\r\x01\x1b[2J\x7f",
		"/x/\xff\xfe not utf-8 \xc3",
		"/x/caf\xc3\xa9 \xe2\x80\xae evil \xc2\x9b",
		"/x/0a\nf0",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		round_trip(paths[i]);
}

Test(suggest, an_option_that_does_not_fit_is_none)
{
	char small[16];
	struct strbuf sb = STRBUF(small, sizeof(small));

	sb_puts(&sb, "with ");
	cr_assert(!rule_put_flag(&sb, RIGHT_W, "/a/very/long/path"));
	cr_assert_str_eq(small, "with ");
	cr_assert(!sb.full);
	cr_assert(rule_put_flag(&sb, RIGHT_R, "/a"));
	cr_assert_str_eq(small, "with --read /a");
}
