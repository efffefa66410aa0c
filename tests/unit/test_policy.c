/* Unit tests of the policy decision (shim/policy.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>

#include "shim/core/policy.h"
#include "enforce/policy_edit.h"

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
	char b[4];

	cr_assert_str_eq(policy_rights_str(RIGHT_ALL, b), "rwx");
	cr_assert_str_eq(policy_rights_str(RIGHT_R | RIGHT_X, b), "rx");
	cr_assert_str_eq(policy_rights_str(0, b), "-");
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
