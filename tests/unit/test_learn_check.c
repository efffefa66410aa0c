/* Unit tests of what `cordon learn` takes from the records of a run
 * (enforce/learn/learn_check.c): paths cleaned and normalised, grants that
 * reach /, $HOME, cordon's or git's protected files named, ports and
 * hosts validated.  Every input here is what a command can forge. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/learn/learn_check.h"

static char dir[64];
static struct learn_guard guard;

static const char *at(const char *rel)
{
	static char p[4][PATH_BUF];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], PATH_BUF, "%s%s%s", dir, rel[0] ? "/" : "", rel);
	return p[i];
}

static void mk(const char *rel)
{
	cr_assert_eq(mkdir(at(rel), 0755), 0, "mkdir %s", rel);
}

static void touch(const char *rel)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0, "%s", rel);
	close(fd);
}

/* $dir/home the home (its state directory under .local/state), a
 * repository $dir/ws (.git with hooks and config), a bare one
 * $dir/bare.git, the profile $dir/ws/prof/p.json. */
static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/cordon-lcheck.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	mk("home");
	mk("ws");
	mk("ws/.git");
	mk("ws/.git/hooks");
	touch("ws/.git/config");
	mk("ws/src");
	mk("ws/prof");
	mk("bare");
	mk("bare/objects");
	mk("bare/refs");
	mk("bare/hooks");
	touch("bare/HEAD");
	cr_assert_eq(symlink("/", at("ws/root")), 0);
	unsetenv("XDG_STATE_HOME");
	setenv("HOME", at("home"), 1);
	learn_guard_init(&guard, at("home"), at("ws/prof/p.json"));
}

static void teardown(void)
{
	char cmd[PATH_BUF + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(learn_check, .init = setup, .fini = teardown);

static void clean_is(const char *in, const char *want)
{
	char out[PATH_BUF];

	if (!want) {
		cr_assert_not(learn_path_clean(in, out), "kept '%s'", in);
		cr_assert_str_eq(out, "");
		return;
	}
	cr_assert(learn_path_clean(in, out), "refused '%s'", in);
	cr_assert_str_eq(out, want, "'%s'", in);
}

Test(learn_check, paths_are_normalised)
{
	clean_is("/home/u/.", "/home/u");
	clean_is("//.", "/");
	clean_is("/", "/");
	clean_is("/home/u/../..", "/");
	clean_is("/a//b/./c/", "/a/b/c");
	clean_is("/a/b/../../../x", "/x");
	clean_is("/usr/lib/libz.so.1", "/usr/lib/libz.so.1");
	/* UTF-8 that is not a control: kept */
	clean_is("/tmp/caf\xc3\xa9", "/tmp/caf\xc3\xa9");
}

Test(learn_check, bad_paths_are_refused)
{
	char huge[PATH_BUF + 8];

	clean_is(NULL, NULL);
	clean_is("", NULL);
	clean_is("relative/x", NULL);
	clean_is("~/x", NULL);
	clean_is("/a\nb", NULL);
	clean_is("/a\rb", NULL);
	clean_is("/a\x1b[2Jb", NULL);
	clean_is("/a\x7f", NULL);
	clean_is("/a\xc2\x9b"
		 "b",
		 NULL); /* C1: CSI */
	clean_is("/a\xe2\x80\xae"
		 "b",
		 NULL);		  /* a right-to-left override */
	clean_is("/a\xff", NULL); /* not UTF-8 */
	memset(huge, 'a', sizeof(huge) - 1);
	huge[0] = '/';
	huge[sizeof(huge) - 1] = '\0';
	clean_is(huge, NULL);
	huge[PATH_BUF] = '\0'; /* PATH_BUF bytes and a NUL: too long */
	clean_is(huge, NULL);
	huge[PATH_BUF - 1] = '\0'; /* PATH_MAX with its NUL: kept */
	clean_is(huge, huge);
}

static void risky(const char *path, bool writes)
{
	cr_assert_not_null(learn_grant_risk(&guard, path, writes), "'%s' %s",
			   path, writes ? "write" : "read");
}

static void safe(const char *path, bool writes)
{
	const char *why = learn_grant_risk(&guard, path, writes);

	cr_assert_null(why, "'%s' %s: %s", path, writes ? "write" : "read",
		       why);
}

Test(learn_check, root_and_home_and_above_are_never_granted)
{
	for (int w = 0; w < 2; w++) {
		risky("/", w);
		risky(at("home"), w);
		risky(dir, w); /* above $HOME */
		risky("/tmp", w);
		/* a link to "/": "/" once the profile is loaded */
		risky(at("ws/root"), w);
	}
	cr_assert_str_eq(learn_grant_risk(&guard, "/", false), "all of /");
	cr_assert_str_eq(learn_grant_risk(&guard, at("home"), true),
			 "all of $HOME");
	safe(at("home/.cache/tool"), true);
	safe(at("ws/src"), true);
	safe("/usr/lib", false);
}

Test(learn_check, cordon_s_own_files_are_never_written)
{
	char up[PATH_BUF];

	risky(at("home/.local/state/cordon"), true);
	risky(at("home/.local/state/cordon/audit.jsonl"), true);
	risky(at("home/.local"), true); /* above it */
	risky(at("ws/prof/p.json"), true);
	risky(at("ws/prof"), true);
	risky(at("ws"), true); /* above the profile */
	/* reading them is no grant to change them */
	safe(at("home/.local/state/cordon"), false);
	safe(at("ws/prof"), false);
	/* a sibling of the profile's directory */
	safe(at("ws/src"), true);
	/* cordon's executable (this test's, here): itself; a directory
	 * above it stays protected when loaded (roots.c) */
	cr_assert_neq(guard.self[0], '\0');
	risky(guard.self, true);
	snprintf(up, sizeof(up), "%s", guard.self);
	*strrchr(up, '/') = '\0';
	safe(up, true);
}

Test(learn_check, git_s_code_running_files_are_never_written)
{
	risky(at("ws/.git"), true);
	risky(at("ws/.git/hooks"), true);
	risky(at("ws/.git/hooks/pre-commit"), true);
	risky(at("ws/.git/config"), true);
	risky(at("ws/.git/modules/sub"), true);
	risky(at("ws/.git/worktrees/w/config.worktree"), true);
	/* a .git the run made, and a bare repository's */
	risky(at("ws/src/new/.git"), true);
	risky(at("bare"), true);
	risky(at("bare/hooks"), true);
	risky(at("bare/config"), true);
	/* what git writes that runs nothing */
	safe(at("ws/.git/objects"), true);
	safe(at("ws/.git/refs/heads"), true);
	safe(at("bare/objects/ab"), true);
	/* read: no change */
	safe(at("ws/.git/config"), false);
}

Test(learn_check, shell_startup_files_are_never_written)
{
	risky(at("home/.bashrc"), true);
	risky(at("home/.config/fish"), true);
	risky(at("home/.config/fish/config.fish"), true);
	safe(at("home/.config/tool"), true);
	safe(at("home/.bashrc"), false);
}

Test(learn_check, ports_from_records)
{
	unsigned int port = 7;

	cr_assert(learn_port_parse("443", false, &port));
	cr_assert_eq(port, 443);
	cr_assert(learn_port_parse("65535", false, &port));
	cr_assert(learn_port_parse("0", true, &port));
	cr_assert_eq(port, 0);
	cr_assert_not(learn_port_parse("0", false, &port));
	cr_assert_not(learn_port_parse("65536", false, &port));
	cr_assert_not(learn_port_parse("99999999999999999999", true, &port));
	cr_assert_not(learn_port_parse("", true, &port));
	cr_assert_not(learn_port_parse("-1", true, &port));
	cr_assert_not(learn_port_parse("443 --net", false, &port));
	cr_assert_not(learn_port_parse("abc", true, &port));
}

Test(learn_check, hosts_from_records)
{
	char huge[600];

	cr_assert(learn_host_ok("registry.npmjs.org"));
	cr_assert(learn_host_ok("example.com:8443"));
	cr_assert(learn_host_ok("10.0.0.1"));
	cr_assert_not(learn_host_ok("*.example.com"));
	cr_assert_not(learn_host_ok("*"));
	cr_assert_not(learn_host_ok("*.com:443"));
	cr_assert_not(learn_host_ok(""));
	cr_assert_not(learn_host_ok("a b"));
	cr_assert_not(learn_host_ok("evil.com\n--net"));
	cr_assert_not(learn_host_ok("evil.com:0x50"));
	memset(huge, 'a', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	cr_assert_not(learn_host_ok(huge));
}
