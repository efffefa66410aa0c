/*
 * test_protect.c - protect_write() and protect_write_canon()
 * (enforce/policy/protect.c): what they keep from writing, what a user root
 * lifts, in the tree of roots_fixture.h.
 */
#include "tests/unit/roots_fixture.h"

TestSuite(protect, .init = setup, .fini = teardown);

/* ---- protect_write, protect_write_canon ----------------------------- */

static void add(const char *rel, unsigned int rights, enum root_origin o,
		bool dir)
{
	cr_assert_eq(policy_add_root(&p, in_t(rel), rights, o, dir), 0);
}

Test(protect, protect_write_keeps_the_rest_of_the_rights)
{
	mk_file("ws/.bashrc");
	mk_dir("ws/hooks");
	add("ws", RIGHT_ALL, ORIGIN_DEFAULT, true);
	cr_assert_eq(protect_write(&p, in_t("ws/.bashrc")), 0);
	cr_assert_eq(protect_write(&p, in_t("ws/hooks")), 0);
	has_root(in_t("ws/.bashrc"), RIGHT_R | RIGHT_X, ORIGIN_PROTECTED,
		 false);
	has_root(in_t("ws/hooks"), RIGHT_R | RIGHT_X, ORIGIN_PROTECTED, true);
	cr_assert_eq(p.nroots, 3);
	cr_assert(!policy_allows(&p, RIGHT_W, in_t("ws/.bashrc")));
	cr_assert(policy_allows(&p, RIGHT_R | RIGHT_X, in_t("ws/.bashrc")));
	cr_assert(!policy_allows(&p, RIGHT_W, in_t("ws/hooks/pre-commit")));
	cr_assert(policy_allows(&p, RIGHT_W, in_t("ws/other")));
	/* again: nothing more to take */
	cr_assert_eq(protect_write(&p, in_t("ws/.bashrc")), 0);
	cr_assert_eq(p.nroots, 3);
}

Test(protect, protect_write_of_what_is_not_writable_or_not_there_is_nothing)
{
	add("ro", RIGHT_R, ORIGIN_USER, true);
	cr_assert_eq(protect_write(&p, in_t("ro/file")), 0);
	cr_assert_eq(protect_write(&p, in_t("ws/absent")), 0);
	cr_assert_eq(protect_write(&p, in_t("home/.bashrc")), 0);
	cr_assert_eq(p.nroots, 1);
}

Test(protect, protect_write_follows_a_link_to_the_file_it_protects)
{
	mk_file("ws/target");
	mk_link("target", "ws/alias");
	add("ws", RIGHT_ALL, ORIGIN_DEFAULT, true);
	cr_assert_eq(protect_write(&p, in_t("ws/alias")), 0);
	has_root(in_t("ws/target"), RIGHT_R | RIGHT_X, ORIGIN_PROTECTED, false);
	cr_assert_null(find(in_t("ws/alias"), -1));
}

Test(protect, a_user_root_naming_the_path_with_write_lifts_the_protection)
{
	mk_file("ws/cfg");
	mk_file("ws/cfg2");
	add("ws", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("ws/cfg", RIGHT_R | RIGHT_W, ORIGIN_USER, false);
	add("ws/cfg2", RIGHT_R, ORIGIN_USER, false);
	cr_assert_eq(protect_write(&p, in_t("ws/cfg")), 0);
	cr_assert_null(find(in_t("ws/cfg"), ORIGIN_PROTECTED));
	cr_assert(policy_allows(&p, RIGHT_W, in_t("ws/cfg")));
	/* named with read only: still protected */
	cr_assert_eq(protect_write(&p, in_t("ws/cfg2")), 0);
	has_root(in_t("ws/cfg2"), RIGHT_R | RIGHT_X, ORIGIN_PROTECTED, false);
}

Test(protect, a_user_root_below_a_protected_dir_lifts_it_there)
{
	mk_dir("ws/hooks");
	mk_dir("ws/hooks/mine");
	add("ws", RIGHT_ALL, ORIGIN_DEFAULT, true);
	cr_assert_eq(protect_write(&p, in_t("ws/hooks")), 0);
	add("ws/hooks/mine", RIGHT_R | RIGHT_W, ORIGIN_USER, true);
	cr_assert(policy_allows(&p, RIGHT_W, in_t("ws/hooks/mine/x")));
	cr_assert(!policy_allows(&p, RIGHT_W, in_t("ws/hooks/other")));
}

Test(protect, protect_write_canon_protects_what_is_not_there_yet)
{
	add("ws", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("ro", RIGHT_R, ORIGIN_DEFAULT, true);
	cr_assert_eq(protect_write_canon(&p, in_t("ws/.git/hooks"), true), 0);
	cr_assert_eq(protect_write_canon(&p, in_t("ws/.gitmodules"), false), 0);
	has_root(in_t("ws/.git/hooks"), RIGHT_R | RIGHT_X, ORIGIN_PROTECTED,
		 true);
	has_root(in_t("ws/.gitmodules"), RIGHT_R | RIGHT_X, ORIGIN_PROTECTED,
		 false);
	cr_assert(
		!policy_allows(&p, RIGHT_W, in_t("ws/.git/hooks/post-merge")));
	cr_assert(!policy_allows(&p, RIGHT_W, in_t("ws/.gitmodules")));
	cr_assert(policy_allows(&p, RIGHT_W, in_t("ws/.gitmodulesx")));
	/* not writable: nothing to take */
	cr_assert_eq(protect_write_canon(&p, in_t("ro/.gitmodules"), false), 0);
	cr_assert_null(find(in_t("ro/.gitmodules"), -1));
}
