/*
 * test_path_unseen.c - path_resolve() where a component cannot be
 * looked up (EACCES), and path_is_absent().
 *
 * A directory T/hid that the test process may not search (mode 0700 of
 * another owner as root, whose capabilities a child drops first, as the
 * sandbox does; mode 000 as a user), and a link T/ws/lnk -> T/hid/in.
 * Without PATH_UNSEEN_LEXICAL the walk says -EACCES, as before; with it
 * the path is named from the link and the rest lexically.  Each case
 * runs in a child without capabilities, which exits with the number of
 * the first check that failed.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim/core/path.h"
#include "tmptree.h"

static char T[64];

static void mkpath(const char *rel, char out[PATH_BUF])
{
	snprintf(out, PATH_BUF, "%s/%s", T, rel);
}

static void setup(void)
{
	char p[PATH_BUF], q[PATH_BUF];

	snprintf(T, sizeof(T), "/tmp/cordon-unseen-XXXXXX");
	cr_assert(mkdtemp(T), "mkdtemp: %s", strerror(errno));
	cr_assert(chmod(T, 0755) == 0);
	mkpath("ws", p);
	cr_assert(mkdir(p, 0755) == 0);
	mkpath("ws/file", p);
	cr_assert(close(open(p, O_WRONLY | O_CREAT, 0644)) == 0);
	mkpath("hid", p);
	cr_assert(mkdir(p, 0755) == 0);
	mkpath("hid/in", p);
	cr_assert(mkdir(p, 0755) == 0);
	mkpath("ws/lnk", q);
	cr_assert(symlink(p, q) == 0);
	mkpath("hid", p);
	if (geteuid() == 0) {
		cr_assert(chown(p, 65534, 65534) == 0);
		cr_assert(chmod(p, 0700) == 0);
	} else {
		cr_assert(chmod(p, 0) == 0);
	}
}

static void teardown(void)
{
	char p[PATH_BUF];

	mkpath("hid", p);
	chmod(p, 0755);
	tmptree_remove(T);
}

/* No capability left, as root in the sandbox. */
static void drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d) != 0)
		_exit(100);
}

/* Run @check in a child without capabilities; its status is ours. */
static int in_child(int (*check)(void))
{
	int status;
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		drop_caps();
		_exit(check());
	}
	cr_assert(waitpid(pid, &status, 0) == pid);
	cr_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* resolve @rel (under T) with @flags: 1 when it gives @want (a path
 * under T, or NULL with error @err). */
static bool gives(const char *rel, int flags, const char *want, int err)
{
	char in[PATH_BUF], out[PATH_BUF], exp[PATH_BUF];
	int ret;

	mkpath(rel, in);
	ret = path_resolve(AT_FDCWD, in, flags, out);
	if (!want)
		return ret == -err && out[0] == '\0';
	mkpath(want, exp);
	return ret == 0 && strcmp(out, exp) == 0;
}

static int unseen_cases(void)
{
	const int U = PATH_UNSEEN_LEXICAL;

	if (!gives("ws/lnk/f", 0, NULL, EACCES))
		return 1;
	if (!gives("ws/lnk/f", U, "hid/in/f", 0))
		return 2;
	if (!gives("ws/lnk/sub/../g", U, "hid/in/g", 0))
		return 3;
	if (!gives("ws/lnk", U | PATH_NOFOLLOW, "ws/lnk", 0))
		return 4;
	if (!gives("ws/lnk", U, "hid/in", 0))
		return 5;
	/* a missing component still needs its directory for ".." */
	if (!gives("ws/missing/../x", U, NULL, ENOENT))
		return 6;
	if (!gives("hid/in/../../ws/file", U, "ws/file", 0))
		return 7;
	return 0;
}

static bool absent(const char *rel)
{
	char p[PATH_BUF];

	mkpath(rel, p);
	return path_is_absent(p);
}

static int absent_cases(void)
{
	if (!absent("nothing") || !absent("ws/nothing"))
		return 1;
	if (!absent("ws/file/x")) /* ENOTDIR */
		return 2;
	if (absent("ws") || absent("ws/file") || absent("ws/lnk"))
		return 3;
	if (absent("hid/in/f")) /* cannot look: not known to be absent */
		return 4;
	errno = 1234;
	(void)absent("nothing");
	(void)absent("hid/in/f");
	return errno == 1234 ? 0 : 5;
}

TestSuite(path_unseen, .init = setup, .fini = teardown);

Test(path_unseen, names_what_lies_past_a_directory_it_cannot_search)
{
	int ret = in_child(unseen_cases);

	cr_assert(ret == 0, "check %d failed", ret);
}

Test(path_unseen, absent_only_where_the_kernel_says_so)
{
	int ret = in_child(absent_cases);

	cr_assert(ret == 0, "check %d failed", ret);
}

Test(path_unseen, unknown_flags_are_still_refused)
{
	char out[PATH_BUF];

	cr_assert_eq(path_resolve(AT_FDCWD, "/", 0x8, out), -EINVAL);
	cr_assert_eq(path_resolve(AT_FDCWD, "/", PATH_UNSEEN_LEXICAL, out), 0);
	cr_assert_str_eq(out, "/");
}
