/*
 * Unit tests of the directory cordon listens in (enforce/policy/rundir.c): what
 * makes a directory trusted, where cordon goes when $XDG_RUNTIME_DIR is
 * not, and which policies reach it.  On roots_fixture.h's tree T (under
 * $HOME, outside the default roots; HOME at T/home); XDG_RUNTIME_DIR is
 * unset for each test (each test is a process of its own: rundir_get()'s
 * choice is made afresh).
 */
#include "tests/unit/roots_fixture.h"
#include "enforce/policy/policy.h"

static void init(void)
{
	setup();
	unsetenv("XDG_RUNTIME_DIR");
}

TestSuite(rundir, .init = init, .fini = teardown);

static int trusted(const char *path)
{
	char why[PATH_BUF + 128] = "";
	int fd = rundir_open_trusted(path, why, sizeof(why));

	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

Test(rundir, a_private_directory_reached_through_no_symlink_is_trusted)
{
	mk_dir("rt");
	cr_assert_eq(chmod(in_t("rt"), 0700), 0);
	cr_assert_eq(trusted(in_t("rt")), 0);
	/* the leaf writable by others, a symlink on the way: refused */
	cr_assert_eq(chmod(in_t("rt"), 0777), 0);
	cr_assert_eq(trusted(in_t("rt")), -EPERM);
	cr_assert_lt(trusted(in_t("lnk/sub")), 0);
	cr_assert_lt(trusted(in_t("l2")), 0);
}

Test(rundir, a_directory_others_may_change_above_it_is_not)
{
	mk_dir("open");
	mk_dir("open/rt");
	cr_assert_eq(chmod(in_t("open/rt"), 0700), 0);
	cr_assert_eq(trusted(in_t("open/rt")), 0);
	/* world-writable, sticky or not */
	cr_assert_eq(chmod(in_t("open"), 01777), 0);
	cr_assert_eq(trusted(in_t("open/rt")), -EPERM);
	/* group-writable, a group not the user's own (root may give it) */
	cr_assert_eq(chmod(in_t("open"), 0775), 0);
	if (geteuid() == 0) {
		cr_assert_eq(chown(in_t("open"), 0, getegid() + 1), 0);
		cr_assert_eq(trusted(in_t("open/rt")), -EPERM);
	}
}

Test(rundir, the_default_writable_roots_and_odd_paths_are_not)
{
	char tmpl[] = "/tmp/cordon-rundir.XXXXXX";

	cr_assert_not_null(mkdtemp(tmpl));
	cr_assert_eq(trusted(tmpl), -EPERM);
	rmdir(tmpl);
	mk_dir("tmpd");
	mk_dir("tmpd/rt");
	cr_assert_eq(chmod(in_t("tmpd/rt"), 0700), 0);
	setenv("TMPDIR", in_t("tmpd"), 1);
	cr_assert_eq(trusted(in_t("tmpd/rt")), -EPERM);
	unsetenv("TMPDIR");
	cr_assert_eq(trusted(in_t("tmpd/rt")), 0);
	cr_assert_eq(trusted(in_t("tmpd/../tmpd/rt")), -EINVAL);
	cr_assert_eq(trusted("tmpd/rt"), -EINVAL);
}

Test(rundir, a_trusted_runtime_dir_is_used_else_the_state_dir)
{
	const struct rundir *rd;
	char why[2 * PATH_BUF], want[PATH_BUF];
	struct stat st;

	mk_dir("rt");
	cr_assert_eq(chmod(in_t("rt"), 0700), 0);
	setenv("XDG_RUNTIME_DIR", in_t("rt"), 1);
	cr_assert_eq(rundir_get(&rd, why, sizeof(why)), 0, "%s", why);
	cr_assert_str_eq(rd->path, in_t("rt/cordon"));
	cr_assert_eq(fstat(rd->fd, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700);
	/* its descriptor closed (a daemon's close_range): chosen again */
	close(rd->fd);
	cr_assert_eq(chmod(in_t("rt"), 0777), 0);
	cr_assert_eq(rundir_get(&rd, why, sizeof(why)), 0, "%s", why);
	snprintf(want, sizeof(want), "%s/.local/state/cordon/run",
		 in_t("home"));
	cr_assert_str_eq(rd->path, want);
}

Test(rundir, a_root_that_reaches_the_directory)
{
	mk_dir("rt");
	cr_assert_eq(rundir_reached(&p, in_t("rt")), false);
	cr_assert_eq(policy_add_root(&p, in_t("rt/x.sock"), RIGHT_U,
				     ORIGIN_USER, false),
		     0);
	cr_assert_eq(rundir_reached(&p, in_t("rt")), true);
	policy_free(&p);
	cr_assert_eq(
		policy_add_root(&p, T, RIGHT_R | RIGHT_W, ORIGIN_USER, true),
		0);
	cr_assert_eq(rundir_reached(&p, in_t("rt")), true);
	/* protected below the root: not reached */
	cr_assert_eq(protect_write(&p, in_t("rt")), 0);
	cr_assert_eq(rundir_reached(&p, in_t("rt")), false);
}
