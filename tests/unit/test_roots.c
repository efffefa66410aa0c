/*
 * Unit tests of the policy's roots (enforce/policy/roots.c; the protected
 * roots of enforce/policy/protect.c are in test_protect.c), on a real tree.
 *
 * Each test gets a fresh fixture under a mkdtemp directory T (its
 * canonical name, outside the default roots), the working directory at
 * T/ws and HOME at T/home:
 *
 *   T/ws/          (the workspace)    T/home/.bashrc
 *   T/data/        (a --write)        T/ro/file      (a --read)
 *   T/real/sub/    T/lnk -> real      T/l2 -> lnk
 *   T/homelink -> home
 *
 * The working directory and HOME, XDG_STATE_HOME and TMPDIR are put back
 * as they were after each test.
 */
#include "tests/unit/roots_fixture.h"
#include "enforce/base/base.h"

TestSuite(roots, .init = setup, .fini = teardown);

/* ---- home_expand, home_dir, home_state_dir --------------------- */

Test(roots, a_leading_tilde_is_the_home)
{
	char out[PATH_BUF];

	cr_assert_eq(home_expand("~", out), 0);
	cr_assert_str_eq(out, in_t("home"));
	cr_assert_eq(home_expand("~/a/b", out), 0);
	cr_assert_str_eq(out, in_t("home/a/b"));
	cr_assert_eq(home_expand("~/", out), 0);
	cr_assert_str_eq(out, in_t("home/"));
	/* ~user and a tilde elsewhere are names like any other */
	cr_assert_eq(home_expand("~root/x", out), 0);
	cr_assert_str_eq(out, "~root/x");
	cr_assert_eq(home_expand("/a/~/b", out), 0);
	cr_assert_str_eq(out, "/a/~/b");
	cr_assert_eq(home_expand("rel", out), 0);
	cr_assert_str_eq(out, "rel");
}

Test(roots, an_expansion_too_long_is_refused)
{
	static char home[PATH_BUF], path[PATH_BUF + 1];
	char out[PATH_BUF];

	memset(home, 'h', PATH_BUF - 8);
	home[0] = '/';
	setenv("HOME", home, 1);
	cr_assert_eq(home_expand("~/1234567", out), -ENAMETOOLONG);
	cr_assert_eq(home_expand("~/123456", out), 0);
	memset(path, 'p', PATH_BUF);
	path[0] = '/';
	cr_assert_eq(home_expand(path, out), -ENAMETOOLONG);
	path[PATH_BUF - 1] = '\0';
	cr_assert_eq(home_expand(path, out), 0);
}

Test(roots, home_is_an_absolute_HOME_else_the_password_database)
{
	struct passwd *pw = getpwuid(getuid());
	const char *db = pw ? pw->pw_dir : NULL;

	cr_assert_str_eq(home_dir(), in_t("home"));
	cr_assert_not_null(db, "no password entry for uid %u", getuid());
	cr_assert_str_neq(db, in_t("home"));
	setenv("HOME", "relative/home", 1);
	cr_assert_str_eq(home_dir(), db);
	setenv("HOME", "", 1);
	cr_assert_str_eq(home_dir(), db);
	unsetenv("HOME");
	cr_assert_str_eq(home_dir(), db);
}

Test(roots, the_state_dir_is_under_XDG_STATE_HOME_or_the_home)
{
	static char xdg[PATH_BUF];
	char out[PATH_BUF];

	cr_assert_eq(home_state_dir(out), 0);
	cr_assert_str_eq(out, in_t("home/.local/state/cordon"));
	setenv("XDG_STATE_HOME", in_t("state"), 1);
	cr_assert_eq(home_state_dir(out), 0);
	cr_assert_str_eq(out, in_t("state/cordon"));
	/* a relative one is ignored, as the XDG spec says */
	setenv("XDG_STATE_HOME", "state", 1);
	cr_assert_eq(home_state_dir(out), 0);
	cr_assert_str_eq(out, in_t("home/.local/state/cordon"));
	memset(xdg, 'x', PATH_BUF - 4);
	xdg[0] = '/';
	setenv("XDG_STATE_HOME", xdg, 1);
	cr_assert_eq(home_state_dir(out), -ENAMETOOLONG);
}

/* In a child that is a uid the password database lacks, with no HOME:
 * no home at all.  Exit status: the number of the check that failed. */
static int homeless_checks(void)
{
	char out[PATH_BUF];

	unsetenv("HOME");
	if (home_dir() != NULL)
		return 1;
	if (home_expand("~/x", out) != -ENOENT)
		return 2;
	if (home_expand("~", out) != -ENOENT)
		return 3;
	if (home_expand("/abs", out) != 0 || strcmp(out, "/abs") != 0)
		return 4;
	if (home_state_dir(out) != -ENOENT)
		return 5;
	setenv("XDG_STATE_HOME", "/xdg", 1);
	if (home_state_dir(out) != 0 || strcmp(out, "/xdg/cordon") != 0)
		return 6;
	return 0;
}

Test(roots, without_any_home_a_tilde_is_refused)
{
	uid_t uid = 61000;
	pid_t pid;
	int status;

	if (geteuid() != 0)
		cr_skip_test("needs root: to become a uid that the password "
			     "database lacks (the only way to have no home)");
	while (getpwuid(uid))
		uid++;
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(100);
		_exit(homeless_checks());
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "check %d failed (uid %u)",
		     WEXITSTATUS(status), uid);
}

/* ---- roots_build ---------------------------------------------------- */

Test(roots, the_defaults_and_the_requests)
{
	cr_assert_eq(build("--write", in_t("data"), "--read", in_t("ro")), 0,
		     "%s", err);
	has_root(in_t("ws"), RIGHT_ALL, ORIGIN_DEFAULT, true);
	has_root("/usr", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true);
	has_root("/tmp", RIGHT_ALL, ORIGIN_DEFAULT, true);
	has_root("/dev/null", RIGHT_R | RIGHT_W, ORIGIN_DEFAULT, false);
	has_root("/proc", RIGHT_R, ORIGIN_DEFAULT, true);
	has_root(in_t("data"), RIGHT_R | RIGHT_W, ORIGIN_USER, true);
	has_root(in_t("ro"), RIGHT_R, ORIGIN_USER, true);
	/* the dotfile: readable, not writable */
	has_root(in_t("home/.bashrc"), RIGHT_R, ORIGIN_DEFAULT, false);
	cr_assert(policy_allows(&p, RIGHT_R, in_t("home/.bashrc")));
	cr_assert(!policy_allows(&p, RIGHT_W, in_t("home/.bashrc")));
	cr_assert(!policy_allows(&p, RIGHT_R, in_t("home/other")));
	/* what they add up to */
	cr_assert(policy_allows(&p, RIGHT_ALL, in_t("ws/new")));
	cr_assert(policy_allows(&p, RIGHT_R | RIGHT_X, "/usr/bin/env"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/usr/bin/env"));
	cr_assert(policy_allows(&p, RIGHT_W, "/dev/null"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/etc/passwd"));
}

Test(roots, read_only_mode_writes_nothing_of_its_own)
{
	cr_assert_eq(build("-m", "read-only", NULL, NULL), 0, "%s", err);
	has_root(in_t("ws"), RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true);
	cr_assert_null(find("/tmp", -1));
	cr_assert(!policy_allows(&p, RIGHT_W, in_t("ws/x")));
	cr_assert(policy_allows(&p, RIGHT_W, "/dev/null"));
}

Test(roots, the_systems_secrets_are_protected_when_present)
{
	static const char *const secrets[] = { "/etc/shadow", "/etc/gshadow",
					       "/etc/ssl/private" };
	size_t present = 0;
	char canon[PATH_BUF];
	struct stat st;

	cr_assert_eq(build(NULL, NULL, NULL, NULL), 0, "%s", err);
	for (size_t i = 0; i < sizeof(secrets) / sizeof(secrets[0]); i++) {
		if (path_resolve(AT_FDCWD, secrets[i], 0, canon) != 0 ||
		    lstat(canon, &st) != 0) {
			cr_assert_null(find(canon, -1), "%s", canon);
			continue;
		}
		present++;
		has_root(canon, 0, ORIGIN_PROTECTED, S_ISDIR(st.st_mode));
		cr_assert(!policy_allows(&p, RIGHT_R, canon), "%s", canon);
	}
	cr_assert_gt(present, 0, "no secret on this machine to look for");
	/* the rest of /etc is read as before */
	cr_assert(policy_allows(&p, RIGHT_R, "/etc/passwd"));
}

Test(roots, a_missing_path_the_user_names_is_refused_by_name)
{
	char want[PATH_BUF + 64];

	cr_assert_eq(build("--write", in_t("missing"), NULL, NULL), -ENOENT);
	snprintf(want, sizeof(want), "--write '%s': %s", in_t("missing"),
		 strerror(ENOENT));
	cr_assert_str_eq(err, want);
	policy_free(&p);
	policy_free(&c.policy);
	cr_assert_eq(build("--read", in_t("ro/file/x"), NULL, NULL), -ENOTDIR);
	snprintf(want, sizeof(want), "--read '%s': %s", in_t("ro/file/x"),
		 strerror(ENOTDIR));
	cr_assert_str_eq(err, want);
}

Test(roots, a_symlink_on_the_way_to_a_root_is_a_root_granting_nothing)
{
	cr_assert_eq(build("--read", in_t("lnk/sub"), "--write", in_t("lnk")),
		     0, "%s", err);
	has_root(in_t("real/sub"), RIGHT_R, ORIGIN_USER, true);
	has_root(in_t("real"), RIGHT_R | RIGHT_W, ORIGIN_USER, true);
	has_root(in_t("lnk"), 0, ORIGIN_DEFAULT, false);
	cr_assert_null(find(in_t("l2"), -1));
	/* a home reached through a link: its dotfiles' way */
	policy_free(&p);
	policy_free(&c.policy);
	setenv("HOME", in_t("homelink"), 1);
	cr_assert_eq(build(NULL, NULL, NULL, NULL), 0, "%s", err);
	has_root(in_t("homelink"), 0, ORIGIN_DEFAULT, false);
	has_root(in_t("home/.bashrc"), RIGHT_R, ORIGIN_DEFAULT, false);
}

/* Every root in T that grants nothing, against @want (NULL-ended). */
static void link_roots_are(const char *const *want)
{
	size_t n = 0, found = 0;

	for (size_t i = 0; i < p.nroots; i++)
		if (p.roots[i].rights == 0 &&
		    path_is_within(p.roots[i].path, T))
			found++;
	for (; want[n]; n++)
		has_root(in_t(want[n]), 0, ORIGIN_DEFAULT, false);
	cr_assert_eq(found, n, "%zu roots granting nothing, %zu wanted", found,
		     n);
}

Test(roots, every_hop_of_a_chain_of_links_is_a_root_granting_nothing)
{
	/* l2 -> lnk -> real: realpath(3) reads l2, then lnk */
	cr_assert_eq(build("--read", in_t("l2/sub"), NULL, NULL), 0, "%s", err);
	has_root(in_t("real/sub"), RIGHT_R, ORIGIN_USER, true);
	link_roots_are((const char *const[]){ "l2", "lnk", NULL });
	cr_assert(policy_allows(&p, 0, in_t("lnk")));
	/* seen, and nothing more: real beside sub stays unreadable */
	cr_assert(!policy_allows(&p, RIGHT_R, in_t("lnk")));
	cr_assert(!policy_allows(&p, RIGHT_R, in_t("real/other")));
	cr_assert(!policy_allows(&p, 0, in_t("real/other")));
	cr_assert(!policy_allows(&p, 0, in_t("homelink")));
}

Test(roots, links_in_targets_absolute_targets_and_dots_are_walked)
{
	mk_link(in_t("lnk"), "abs");	 /* absolute */
	mk_link("l2/sub", "deep");	 /* a chain inside the target */
	mk_link("l2/../real/sub", "up"); /* ".." after a link */
	cr_assert_eq(build("--read", in_t("abs/sub"), NULL, NULL), 0, "%s",
		     err);
	link_roots_are((const char *const[]){ "abs", "lnk", NULL });
	policy_free(&p);
	policy_free(&c.policy);
	cr_assert_eq(build("--read", "../deep", NULL, NULL), 0, "%s", err);
	has_root(in_t("real/sub"), RIGHT_R, ORIGIN_USER, true);
	link_roots_are((const char *const[]){ "deep", "l2", "lnk", NULL });
	policy_free(&p);
	policy_free(&c.policy);
	cr_assert_eq(build("--read", in_t("up"), NULL, NULL), 0, "%s", err);
	has_root(in_t("real/sub"), RIGHT_R, ORIGIN_USER, true);
	link_roots_are((const char *const[]){ "up", "l2", "lnk", NULL });
}

Test(roots, a_loop_of_links_is_refused_and_does_not_hang)
{
	mk_link("loopb", "loopa");
	mk_link("loopa", "loopb");
	cr_assert_eq(build("--read", in_t("loopa/x"), NULL, NULL), -ELOOP);
	policy_free(&p);
	policy_free(&c.policy);
	/* the twin: a long chain within the bound is walked to the end */
	for (int i = 0; i < 30; i++) {
		char name[16], target[16];

		snprintf(name, sizeof(name), "c%d", i);
		snprintf(target, sizeof(target), i ? "c%d" : "real", i - 1);
		mk_link(target, name);
	}
	cr_assert_eq(build("--read", in_t("c29/sub"), NULL, NULL), 0, "%s",
		     err);
	has_root(in_t("c0"), 0, ORIGIN_DEFAULT, false);
	has_root(in_t("c29"), 0, ORIGIN_DEFAULT, false);
}

Test(roots, a_path_named_directly_adds_no_link_root)
{
	cr_assert_eq(build("--read", in_t("real/sub"), NULL, NULL), 0, "%s",
		     err);
	has_root(in_t("real/sub"), RIGHT_R, ORIGIN_USER, true);
	for (size_t i = 0; i < p.nroots; i++)
		cr_assert(p.roots[i].rights != 0 ||
				  !path_is_within(p.roots[i].path, T),
			  "%s grants nothing", p.roots[i].path);
}

Test(roots, the_shells_files_and_the_state_dir_are_kept_from_writing)
{
	mk_dir("ws/state");
	mk_dir("ws/state/cordon");
	setenv("XDG_STATE_HOME", in_t("ws/state"), 1);
	cr_assert_eq(build("--write", in_t("home"), NULL, NULL), 0, "%s", err);
	/* writable through --write, then protected */
	has_root(in_t("home/.bashrc"), RIGHT_R, ORIGIN_PROTECTED, false);
	cr_assert(!policy_allows(&p, RIGHT_W, in_t("home/.bashrc")));
	cr_assert(policy_allows(&p, RIGHT_W, in_t("home/other")));
	has_root(in_t("ws/state/cordon"), RIGHT_R | RIGHT_X, ORIGIN_PROTECTED,
		 true);
	cr_assert(!policy_allows(&p, RIGHT_W, in_t("ws/state/cordon/log")));
	cr_assert(policy_allows(&p, RIGHT_W, in_t("ws/state/other")));
}
