/* Unit tests of the policy decision (shim/core/policy.c). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/core/path.h"
#include "shim/core/policy.h"
#include "enforce/policy/policy.h"
#include "tmptree.h"

static struct policy p;

static void fini(void)
{
	policy_free(&p);
	memset(&p, 0, sizeof(p));
}

TestSuite(policy, .fini = fini);

Test(policy, within_respects_component_boundaries)
{
	cr_assert(path_is_within("/a/b", "/a/b"));
	cr_assert(path_is_within("/a/b/c", "/a/b"));
	cr_assert(!path_is_within("/a/bc", "/a/b"));
	cr_assert(!path_is_within("/a", "/a/b"));
	cr_assert(path_is_within("/anything", "/"));
	cr_assert(path_is_within("/", "/"));
}

Test(policy, rights_are_the_union_of_containing_roots)
{
	cr_assert_eq(policy_add_root(&p, "/usr", RIGHT_R | RIGHT_X,
				     ORIGIN_DEFAULT, true),
		     0);
	cr_assert_eq(
		policy_add_root(&p, "/usr/local", RIGHT_W, ORIGIN_USER, true),
		0);
	cr_assert_eq(policy_rights(&p, "/usr/bin/ls"), RIGHT_R | RIGHT_X);
	cr_assert_eq(policy_rights(&p, "/usr/local/x"), RIGHT_ALL);
	cr_assert_eq(policy_rights(&p, "/usr"), RIGHT_R | RIGHT_X);
	cr_assert_eq(policy_rights(&p, "/usrx"), 0);
	cr_assert_eq(policy_rights(&p, "/etc/passwd"), 0);
}

Test(policy, a_file_root_covers_that_file_only)
{
	policy_add_root(&p, "/dev/null", RIGHT_R | RIGHT_W, ORIGIN_DEFAULT,
			false);
	cr_assert_eq(policy_rights(&p, "/dev/null"), RIGHT_R | RIGHT_W);
	cr_assert_eq(policy_rights(&p, "/dev/null/x"), 0);
	cr_assert_eq(policy_rights(&p, "/dev"), 0);
}

Test(policy, equal_roots_merge_and_user_origin_wins)
{
	policy_add_root(&p, "/w", RIGHT_R, ORIGIN_DEFAULT, true);
	policy_add_root(&p, "/w", RIGHT_W, ORIGIN_USER, true);
	cr_assert_eq(p.nroots, 1);
	cr_assert_eq(p.roots[0].rights, RIGHT_R | RIGHT_W);
	cr_assert_eq(p.roots[0].origin, ORIGIN_USER);
}

Test(policy, the_root_table_is_capped)
{
	char buf[32];

	for (int i = 0; i < POLICY_MAX_ROOTS; i++) {
		snprintf(buf, sizeof(buf), "/r%d", i);
		cr_assert_eq(
			policy_add_root(&p, buf, RIGHT_R, ORIGIN_USER, true),
			0);
	}
	cr_assert_eq(
		policy_add_root(&p, "/one-more", RIGHT_R, ORIGIN_USER, true),
		-E2BIG);
}

Test(policy, rights_strings)
{
	char b[POLICY_RIGHTS_STR];

	cr_assert_str_eq(policy_rights_str(RIGHT_ALL, b), "rwx");
	cr_assert_str_eq(policy_rights_str(RIGHT_R | RIGHT_X, b), "rx");
	cr_assert_str_eq(policy_rights_str(0, b), "-");
	cr_assert_str_eq(policy_rights_str(RIGHT_ALL | RIGHT_U, b), "rwxc");
	cr_assert_str_eq(policy_rights_str(RIGHT_U, b), "c");
}

/* A UNIX socket: under a writable root or a --connect-unix one; a
 * readable or executable root is not enough, and RIGHT_U is no file
 * right. */
Test(policy, unix_sockets)
{
	cr_assert_eq(
		policy_add_root(&p, "/w", RIGHT_R | RIGHT_W, ORIGIN_USER, true),
		0);
	cr_assert_eq(policy_add_root(&p, "/rx", RIGHT_R | RIGHT_X,
				     ORIGIN_DEFAULT, true),
		     0);
	cr_assert_eq(policy_add_root(&p, "/u", RIGHT_U, ORIGIN_USER, true), 0);
	cr_assert(policy_unix_allowed(&p, "/w/s"));
	cr_assert(policy_unix_allowed(&p, "/u/d/s"));
	cr_assert(!policy_unix_allowed(&p, "/rx/s"));
	cr_assert(!policy_unix_allowed(&p, "/other/s"));
	cr_assert(policy_allows(&p, RIGHT_U, "/w/s"));
	cr_assert(!policy_allows(&p, RIGHT_U, "/rx/s"));
	cr_assert(!policy_allows(&p, RIGHT_R, "/u/f"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/u/f"));
	cr_assert(policy_is_visible(&p, "/u/s"));
	/* the temp dirs shared with the host: only a root the user gave
	 * makes a socket there the command's */
	cr_assert_eq(
		policy_add_root(&p, "/tmp", RIGHT_ALL, ORIGIN_DEFAULT, true),
		0);
	cr_assert_eq(
		policy_add_root(&p, "/tmp/mine", RIGHT_U, ORIGIN_USER, true),
		0);
	cr_assert(policy_unix_allowed(&p, "/tmp/x/s"));
	cr_assert(policy_unix_shared(&p, "/tmp/x/s"));
	cr_assert(policy_unix_shared(&p, "/var/tmp/s"));
	cr_assert(!policy_unix_shared(&p, "/tmp/mine/s"));
	cr_assert(!policy_unix_shared(&p, "/w/s"));
	cr_assert(!policy_unix_shared(&p, "/tmpx/s"));
}

Test(policy, tcp_ports)
{
	cr_assert(!policy_tcp_allowed(&p, false, 443)); /* network off */
	p.net = NET_PORTS;
	p.connect_ports[0] = 443;
	p.nconnect = 1;
	p.bind_ports[0] = 8000;
	p.nbind = 1;
	cr_assert(policy_tcp_allowed(&p, false, 443));
	cr_assert(!policy_tcp_allowed(&p, false, 80));
	cr_assert(!policy_tcp_allowed(&p, true, 443));
	cr_assert(policy_tcp_allowed(&p, true, 8000));
	p.net = NET_ON;
	cr_assert(policy_tcp_allowed(&p, false, 80));
	cr_assert(policy_tcp_allowed(&p, true, 1));
}

/* A workspace with the shapes the launcher makes: a protected hook
 * directory lifted by a user root, a hidden secret, a file root. */
static void workspace_policy(void)
{
	policy_add_root(&p, "/", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true);
	policy_add_root(&p, "/w", RIGHT_ALL, ORIGIN_DEFAULT, true);
	policy_add_root(&p, "/w/.git/hooks", RIGHT_R, ORIGIN_PROTECTED, true);
	policy_add_root(&p, "/w/.git/hooks/ok", RIGHT_W, ORIGIN_USER, true);
	policy_add_root(&p, "/home/u/.ssh", 0, ORIGIN_PROTECTED, true);
	policy_add_root(&p, "/dev/null", RIGHT_R | RIGHT_W, ORIGIN_DEFAULT,
			false);
}

Test(policy, child_rights_are_those_of_every_entry_of_the_dir)
{
	static const char *const dirs[] = {
		"/w/src",	"/w/.git/hooks/ok", "/w/.git/hooks/ok/d",
		"/home/u/.ssh", "/home/u/.ssh/d",   "/dev/null",
		"/usr/lib/x",
	};
	static const char *const names[] = { "x", "main.c", ".hidden" };
	char child[256];

	workspace_policy();
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		unsigned int rights = 0xff;

		cr_assert(policy_child_rights(&p, dirs[i], &rights), "%s",
			  dirs[i]);
		for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
			snprintf(child, sizeof(child), "%s/%s", dirs[i],
				 names[j]);
			cr_assert_eq(rights, policy_rights(&p, child), "%s",
				     child);
			cr_assert_eq(rights != 0, policy_is_visible(&p, child),
				     "%s", child);
		}
	}
}

Test(policy, child_rights_are_not_given_where_a_root_lies_below)
{
	static const char *const dirs[] = { "/",       "/w",
					    "/w/.git", "/w/.git/hooks",
					    "/home",   "/dev" };
	unsigned int rights = 0x55;

	workspace_policy();
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		cr_assert(!policy_child_rights(&p, dirs[i], &rights), "%s",
			  dirs[i]);
		cr_assert_eq(rights, 0x55, "untouched");
	}
	/* the twin: with the only root at the top, "/" is alike below */
	fini();
	policy_add_root(&p, "/", RIGHT_R, ORIGIN_DEFAULT, true);
	cr_assert(policy_child_rights(&p, "/", &rights));
	cr_assert_eq(rights, RIGHT_R);
}

/* ---- policy_allows(): the one decision ---------------------------- */

Test(policy, need_0_asks_for_visibility_only)
{
	policy_add_root(&p, "/w", RIGHT_ALL, ORIGIN_USER, true);
	policy_add_root(&p, "/a/b/c", RIGHT_R, ORIGIN_DEFAULT, true);
	/* inside a root, and on the way to one: visible */
	cr_assert(policy_allows(&p, 0, "/w/x/y"));
	cr_assert(policy_allows(&p, 0, "/a/b/c/d"));
	cr_assert(policy_allows(&p, 0, "/a/b"));
	cr_assert(policy_allows(&p, 0, "/a"));
	cr_assert(policy_allows(&p, 0, "/"));
	/* ... where nothing is granted: the ancestors grant no right */
	cr_assert(!policy_allows(&p, RIGHT_R, "/a/b"));
	cr_assert(!policy_allows(&p, RIGHT_R, "/a"));
	/* beside the way, or a prefix that is not a component */
	cr_assert(!policy_allows(&p, 0, "/a/x"));
	cr_assert(!policy_allows(&p, 0, "/a/b/cd"));
	cr_assert(!policy_allows(&p, 0, "/wx"));
	cr_assert(!policy_allows(&p, 0, "/etc"));
}

Test(policy, every_right_asked_must_be_had)
{
	policy_add_root(&p, "/usr", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true);
	policy_add_root(&p, "/usr/local", RIGHT_W, ORIGIN_USER, true);
	cr_assert(policy_allows(&p, RIGHT_R, "/usr/bin/ls"));
	cr_assert(policy_allows(&p, RIGHT_R | RIGHT_X, "/usr/bin/ls"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/usr/bin/ls"));
	cr_assert(!policy_allows(&p, RIGHT_R | RIGHT_W, "/usr/bin/ls"));
	cr_assert(!policy_allows(&p, RIGHT_ALL, "/usr/bin/ls"));
	/* the union of both roots below /usr/local: all three */
	cr_assert(policy_allows(&p, RIGHT_ALL, "/usr/local/bin/x"));
	cr_assert(policy_allows(&p, RIGHT_W, "/usr/local"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/usr/localx"));
	cr_assert(!policy_allows(&p, RIGHT_R, "/etc/passwd"));
}

Test(policy, a_file_root_grants_that_file_and_nothing_below_or_beside)
{
	policy_add_root(&p, "/etc/hosts", RIGHT_R, ORIGIN_USER, false);
	cr_assert(policy_allows(&p, RIGHT_R, "/etc/hosts"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/etc/hosts"));
	cr_assert(!policy_allows(&p, RIGHT_R, "/etc/hosts/x"));
	cr_assert(!policy_allows(&p, 0, "/etc/hosts/x"));
	cr_assert(!policy_allows(&p, RIGHT_R, "/etc/hostsx"));
	cr_assert(!policy_allows(&p, RIGHT_R, "/etc/passwd"));
	/* its directory is on the way: seen, not read */
	cr_assert(policy_allows(&p, 0, "/etc"));
	cr_assert(!policy_allows(&p, RIGHT_R, "/etc"));
}

Test(policy, a_protected_root_keeps_only_its_own_rights)
{
	workspace_policy(); /* /w rwx, /w/.git/hooks r (protected) */
	cr_assert(policy_allows(&p, RIGHT_W, "/w/.git/config"));
	cr_assert(policy_allows(&p, RIGHT_R, "/w/.git/hooks/pre-commit"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks/pre-commit"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks"));
	/* X is granted by both / and /w, and still not kept */
	cr_assert(!policy_allows(&p, RIGHT_X, "/w/.git/hooks/pre-commit"));
	cr_assert_eq(policy_rights(&p, "/w/.git/hooks/pre-commit"), RIGHT_R);
	/* a secret keeps nothing, though / grants rx */
	cr_assert_eq(policy_rights(&p, "/home/u/.ssh/id_ed25519"), 0);
	cr_assert(!policy_allows(&p, RIGHT_R, "/home/u/.ssh/id_ed25519"));
	cr_assert(!policy_allows(&p, RIGHT_R, "/home/u/.ssh"));
	cr_assert(policy_allows(&p, RIGHT_R, "/home/u/.sshx"));
	cr_assert(policy_allows(&p, RIGHT_R, "/home/u"));
}

Test(policy, two_protected_roots_keep_what_both_keep)
{
	policy_add_root(&p, "/w", RIGHT_ALL, ORIGIN_DEFAULT, true);
	policy_add_root(&p, "/w/p", RIGHT_R | RIGHT_X, ORIGIN_PROTECTED, true);
	policy_add_root(&p, "/w/p/q", RIGHT_R | RIGHT_W, ORIGIN_PROTECTED,
			true);
	cr_assert_eq(policy_rights(&p, "/w/p/x"), RIGHT_R | RIGHT_X);
	cr_assert_eq(policy_rights(&p, "/w/p/q/x"), RIGHT_R);
}

Test(policy, a_user_root_at_or_below_a_protected_one_lifts_it_there)
{
	workspace_policy(); /* with /w/.git/hooks/ok w (user) */
	cr_assert(policy_allows(&p, RIGHT_W, "/w/.git/hooks/ok"));
	cr_assert(policy_allows(&p, RIGHT_ALL, "/w/.git/hooks/ok/x"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks/okx"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks/pre-commit"));
	/* a user root naming the protected path itself lifts all of it */
	fini();
	policy_add_root(&p, "/w", RIGHT_ALL, ORIGIN_DEFAULT, true);
	policy_add_root(&p, "/w/.git/hooks", RIGHT_R, ORIGIN_PROTECTED, true);
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks/x"));
	policy_add_root(&p, "/w/.git/hooks", RIGHT_W, ORIGIN_USER, true);
	cr_assert_eq(p.nroots, 3, "the protected root stays one of its own");
	cr_assert(policy_allows(&p, RIGHT_W, "/w/.git/hooks/x"));
}

Test(policy, only_a_root_within_the_protected_one_lifts_it)
{
	policy_add_root(&p, "/w", RIGHT_ALL, ORIGIN_USER, true);
	policy_add_root(&p, "/w/.git/hooks", RIGHT_R, ORIGIN_PROTECTED, true);
	/* the user's /w lies above: no lift */
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks/x"));
	/* a default root below lifts it there, as its writable mount over
	 * the read-only one does (the ci temp dir in cordon's state) */
	policy_add_root(&p, "/w/.git/hooks/d", RIGHT_ALL, ORIGIN_DEFAULT, true);
	cr_assert(policy_allows(&p, RIGHT_W, "/w/.git/hooks/d/x"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks/e"));
	/* a user file root below lifts that file only */
	policy_add_root(&p, "/w/.git/hooks/pre-push", RIGHT_W, ORIGIN_USER,
			false);
	cr_assert(policy_allows(&p, RIGHT_W, "/w/.git/hooks/pre-push"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks/pre-push.d"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks/pre-push/x"));
}

Test(policy, only_a_user_root_granting_write_lifts_a_protection)
{
	/* --read .git/hooks in a workspace: the mounts keep it read-only
	 * (a --read root is not mounted), so the shim must refuse too */
	policy_add_root(&p, "/w", RIGHT_ALL, ORIGIN_DEFAULT, true);
	policy_add_root(&p, "/w/.git/hooks", RIGHT_R, ORIGIN_USER, true);
	policy_add_root(&p, "/w/.git/hooks", RIGHT_R | RIGHT_X,
			ORIGIN_PROTECTED, true);
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks/pre-commit"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks"));
	cr_assert(policy_allows(&p, RIGHT_R | RIGHT_X,
				"/w/.git/hooks/pre-commit"));
	/* nor an --exec below it (mounted exec, still read-only) */
	policy_add_root(&p, "/w/.git/hooks/tools", RIGHT_X, ORIGIN_USER, true);
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks/tools/x"));
	/* the twin: the --write the denial suggests, on the file */
	policy_add_root(&p, "/w/.git/hooks/pre-commit", RIGHT_R | RIGHT_W,
			ORIGIN_USER, false);
	cr_assert(policy_allows(&p, RIGHT_W, "/w/.git/hooks/pre-commit"));
	cr_assert(!policy_allows(&p, RIGHT_W, "/w/.git/hooks/pre-push"));
}

Test(policy, nothing_below_a_secret_lifts_it)
{
	/* a secret is covered whole by an empty thing (covers.c): a root
	 * below it is hidden with it, whatever it grants */
	policy_add_root(&p, "/", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true);
	policy_add_root(&p, "/etc/ssl/private", 0, ORIGIN_PROTECTED, true);
	policy_add_root(&p, "/etc/ssl/private/a.key", RIGHT_R | RIGHT_W,
			ORIGIN_USER, false);
	cr_assert_eq(policy_rights(&p, "/etc/ssl/private/a.key"), 0);
	cr_assert(!policy_allows(&p, RIGHT_R, "/etc/ssl/private/a.key"));
	/* the twin: a protection that keeps reading is lifted there */
	fini();
	policy_add_root(&p, "/", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true);
	policy_add_root(&p, "/etc/ssl/private", RIGHT_R, ORIGIN_PROTECTED,
			true);
	policy_add_root(&p, "/etc/ssl/private/a.key", RIGHT_R | RIGHT_W,
			ORIGIN_USER, false);
	cr_assert(
		policy_allows(&p, RIGHT_R | RIGHT_W, "/etc/ssl/private/a.key"));
}

Test(policy, a_rights_0_root_is_seen_and_grants_nothing)
{
	/* what the launcher adds for a symlink on the way to a root */
	policy_add_root(&p, "/bin", 0, ORIGIN_DEFAULT, false);
	policy_add_root(&p, "/usr/bin", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT,
			true);
	cr_assert(policy_allows(&p, 0, "/bin"));
	cr_assert(!policy_allows(&p, RIGHT_R, "/bin"));
	cr_assert(!policy_allows(&p, RIGHT_X, "/bin"));
	cr_assert(!policy_allows(&p, 0, "/bin/ls"));
	cr_assert(!policy_allows(&p, 0, "/binx"));
	/* nor does it take anything from a root that contains it */
	policy_add_root(&p, "/", RIGHT_R, ORIGIN_DEFAULT, true);
	cr_assert(policy_allows(&p, RIGHT_R, "/bin"));
	cr_assert(!policy_allows(&p, RIGHT_X, "/bin"));
}

/*
 * policy_child_rights() against policy_rights() of the real entries of
 * a real tree: where it answers, every entry has those rights and is
 * visible exactly when it has some; where it does not, an entry differs
 * or lies on the way to a root.
 */
static char tree[64];
static size_t answered, declined;

static void tree_fini(void)
{
	fini();
	tmptree_remove(tree);
}

TestSuite(policy_tree, .fini = tree_fini);

static bool entries_differ(const char *dir, unsigned int *first)
{
	char child[PATH_BUF];
	struct dirent *e;
	DIR *d = opendir(dir);
	bool differ = false, any = false;

	cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		unsigned int r;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(child, sizeof(child), "%s/%s", dir, e->d_name);
		r = policy_rights(&p, child);
		if (any && r != *first)
			differ = true;
		if (!any)
			*first = r;
		any = true;
		/* on the way to a root, though it has no right */
		if (r == 0 && policy_is_visible(&p, child))
			differ = true;
	}
	closedir(d);
	return differ;
}

static int check_dir(const char *dir, const struct stat *st, int type,
		     struct FTW *ftw)
{
	unsigned int rights = 0x55, first = 0;
	char child[PATH_BUF];
	struct dirent *e;
	DIR *d;

	(void)st;
	(void)ftw;
	if (type != FTW_D)
		return 0;
	if (!policy_child_rights(&p, dir, &rights)) {
		declined++;
		cr_assert_eq(rights, 0x55, "%s: rights touched", dir);
		cr_assert(entries_differ(dir, &first),
			  "%s: no answer, yet every entry is alike", dir);
		return 0;
	}
	answered++;
	d = opendir(dir);
	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(child, sizeof(child), "%s/%s", dir, e->d_name);
		cr_assert_eq(policy_rights(&p, child), rights, "%s", child);
		cr_assert_eq(policy_is_visible(&p, child), rights != 0, "%s",
			     child);
	}
	closedir(d);
	return 0;
}

static void mk(const char *rel, bool dir)
{
	char path[PATH_BUF];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	if (dir) {
		cr_assert_eq(mkdir(path, 0755), 0, "%s", path);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "%s", path);
	close(fd);
}

static void add(const char *rel, unsigned int rights, enum root_origin o,
		bool dir)
{
	char path[PATH_BUF];

	snprintf(path, sizeof(path), "%s%s%s", tree, *rel ? "/" : "", rel);
	cr_assert_eq(policy_add_root(&p, path, rights, o, dir), 0);
}

Test(policy_tree, child_rights_agree_with_the_rights_of_real_entries)
{
	static const char *const dirs[] = {
		"w",
		"w/src",
		"w/src/deep",
		"w/.git",
		"w/.git/hooks",
		"w/.git/hooks/ok",
		"w/.git/hooks/ok2",
		"w/okish",
		"ro",
		"ro/sub",
		"out",
		"out/a",
		"link-parent",
	};
	static const char *const files[] = {
		"w/src/main.c",
		"w/src/deep/x",
		"w/.git/config",
		"w/.git/hooks/pre-commit",
		"w/.git/hooks/ok/f",
		"w/.git/hooks/ok2/f",
		"w/secret.key",
		"w/.hidden",
		"ro/f",
		"ro/sub/g",
		"out/a/h",
		"out/b",
		"link-parent/lnk",
	};
	char *t;
	char tmpl[] = "/tmp/cordon-policy-XXXXXX";

	cr_assert_not_null(mkdtemp(tmpl));
	t = realpath(tmpl, NULL);
	cr_assert_not_null(t);
	snprintf(tree, sizeof(tree), "%s", t);
	free(t);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		mk(dirs[i], true);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		mk(files[i], false);
	/* the tree's own root: nothing above it is granted */
	add("w", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("w/.git/hooks", RIGHT_R | RIGHT_X, ORIGIN_PROTECTED, true);
	add("w/.git/hooks/ok", RIGHT_W, ORIGIN_USER, true);
	add("w/secret.key", 0, ORIGIN_PROTECTED, false);
	add("ro", RIGHT_R, ORIGIN_USER, true);
	add("link-parent/lnk", 0, ORIGIN_DEFAULT, false);
	cr_assert_eq(nftw(tree, check_dir, 16, FTW_PHYS), 0);
	/* both answers were given, on dirs that each name */
	cr_assert_geq(answered, 8, "answered %zu", answered);
	cr_assert_geq(declined, 4, "declined %zu", declined);
}

/* ---- policy_tcp_allowed() ----------------------------------------- */

Test(policy, tcp_lists_are_apart_and_off_refuses_listed_ports)
{
	p.connect_ports[0] = 443;
	p.nconnect = 1;
	p.bind_ports[0] = 0;
	p.bind_ports[1] = 65535;
	p.nbind = 2;
	/* off: the lists do not count */
	cr_assert(!policy_tcp_allowed(&p, false, 443));
	cr_assert(!policy_tcp_allowed(&p, true, 0));
	p.net = NET_PORTS;
	cr_assert(policy_tcp_allowed(&p, true, 0));
	cr_assert(policy_tcp_allowed(&p, true, 65535));
	cr_assert(!policy_tcp_allowed(&p, true, 65534));
	cr_assert(!policy_tcp_allowed(&p, false, 0));
	cr_assert(!policy_tcp_allowed(&p, false, 65535));
	/* an entry past the count is not in the list */
	p.connect_ports[1] = 80;
	cr_assert(!policy_tcp_allowed(&p, false, 80));
	p.nconnect = 0;
	cr_assert(!policy_tcp_allowed(&p, false, 443));
}

/* listen(): with ports, only on a --bind port, any with --bind 0, or
 * again on a socket listening already; off and on do not decide it. */
Test(policy, listen_needs_a_bind_port_with_ports)
{
	p.connect_ports[0] = 443;
	p.nconnect = 1;
	p.bind_ports[0] = 8080;
	p.nbind = 1;
	cr_assert(policy_listen_allowed(&p, 0, false)); /* off: own netns */
	p.net = NET_ON;
	cr_assert(policy_listen_allowed(&p, 0, false));
	p.net = NET_PORTS;
	cr_assert(!policy_listen_allowed(&p, 0, false));
	cr_assert(!policy_listen_allowed(&p, 443, false));
	cr_assert(!policy_listen_allowed(&p, 40000, false));
	cr_assert(policy_listen_allowed(&p, 8080, false));
	cr_assert(policy_listen_allowed(&p, 40000, true));
	p.bind_ports[1] = 0;
	p.nbind = 2;
	cr_assert(policy_listen_allowed(&p, 0, false));
	cr_assert(policy_listen_allowed(&p, 40000, false));
}

/* UDP: only with UDP ports granted (the host's network); a bind of port
 * 0 (the first send's own) with a connect port; the network on, all. */
Test(policy, udp_ports)
{
	struct policy u = { .net = NET_PORTS };

	cr_assert(!policy_has_udp(&u));
	cr_assert(!policy_udp_allowed(&u, false, 53));
	cr_assert_eq(policy_add_ports(&u, "udp:53", false), 0);
	cr_assert(policy_has_udp(&u));
	cr_assert(policy_udp_allowed(&u, false, 53));
	cr_assert(!policy_udp_allowed(&u, false, 54));
	cr_assert(policy_udp_allowed(&u, true, 0));
	cr_assert(!policy_udp_allowed(&u, true, 53));
	cr_assert(!policy_tcp_allowed(&u, false, 53));
	cr_assert_eq(policy_add_ports(&u, "5353/udp", true), 0);
	cr_assert(policy_udp_allowed(&u, true, 5353));
	u.net = NET_OFF;
	cr_assert(!policy_has_udp(&u));
	cr_assert(!policy_udp_allowed(&u, false, 53));
	u.net = NET_ON;
	cr_assert(policy_udp_allowed(&u, false, 9));
	/* only bind ports: no ephemeral bind */
	memset(&u, 0, sizeof(p));
	u.net = NET_PORTS;
	cr_assert_eq(policy_add_ports(&u, "udp:5353", true), 0);
	cr_assert(!policy_udp_allowed(&u, true, 0));
	/* at most POLICY_MAX_PORTS in a list */
	cr_assert_eq(policy_add_ports(&u, "udp:1000-1100", false), -E2BIG);
}
