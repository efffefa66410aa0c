/*
 * Unit tests of the end-of-run summary (enforce/summary.c): the line
 * that names a program run without the shim says why, from the
 * "exec-unshimmed" record's rule, and the Linux wording stays as the
 * integration tests expect it.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <jansson.h>

#include "enforce/summary.h"

static struct supervisor s;

static void note_unshimmed(const char *path, const char *rule)
{
	json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s}", "operation",
			      "exec-unshimmed", "verdict", "note", "layer",
			      "shim", "path", path, "rule", rule);

	cr_assert_not_null(r);
	tally_note(&s.tally, r);
	json_decref(r);
}

static void init(void)
{
	memset(&s, 0, sizeof(s));
	cr_redirect_stderr();
}

TestSuite(summary, .init = init);

Test(summary, static_binary_keeps_the_linux_wording)
{
	note_unshimmed("/w/rd-static",
		       "a static binary (no PT_INTERP): the shim cannot enter "
		       "it; the kernel layer holds");
	summary_print(&s);
	fflush(stderr);
	cr_assert_stderr_eq_str(
		"cordon: /w/rd-static ran without the shim (static or foreign "
		"binary): the kernel enforced its policy, but its denials are "
		"not explained\n");
}

Test(summary, sip_binary_is_named_as_sip)
{
	note_unshimmed("/bin/sh",
		       "an Apple binary under System Integrity Protection "
		       "(SIP): dyld drops DYLD_INSERT_LIBRARIES there and in "
		       "all it runs; Seatbelt holds alone");
	summary_print(&s);
	fflush(stderr);
	cr_assert_stderr_eq_str(
		"cordon: /bin/sh ran without the shim (SIP: Apple's binaries "
		"drop DYLD_INSERT_LIBRARIES; Seatbelt alone holds there): the "
		"kernel enforced its policy, but its denials are not "
		"explained\n");
}

Test(summary, each_program_once_with_its_own_reason)
{
	note_unshimmed("/w/h32", "a binary of another ELF class: the shim "
				 "cannot enter it; the kernel layer holds");
	note_unshimmed("/w/h32", "a binary of another ELF class");
	note_unshimmed("/usr/bin/env", "an Apple binary under System "
				       "Integrity Protection (SIP): ...");
	summary_print(&s);
	fflush(stderr);
	cr_assert_stderr_eq_str(
		"cordon: /w/h32 ran without the shim (static or foreign "
		"binary): the kernel enforced its policy, but its denials are "
		"not explained\n"
		"cordon: /usr/bin/env ran without the shim (SIP: Apple's "
		"binaries drop DYLD_INSERT_LIBRARIES; Seatbelt alone holds "
		"there): the kernel enforced its policy, but its denials are "
		"not explained\n");
}

Test(summary, nothing_to_say_says_nothing)
{
	summary_print(&s);
	fflush(stderr);
	cr_assert_stderr_eq_str("");
}

static void note_denial(struct tally *t, const char *rule, const char *what)
{
	json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "operation",
			      "open", "verdict", "deny", "layer", "shim",
			      "rule", rule, "resolved", what, "allow",
			      "with --read /x");

	cr_assert_not_null(r);
	tally_note(t, r);
	json_decref(r);
}

/* tally_init() clears the counts alone: a group and a target start
 * from zero when taken, whatever their memory held before. */
Test(summary, a_tally_counts_from_zero_over_tables_left_dirty)
{
	static struct tally t;

	memset(&t, 0xa5, sizeof(t));
	tally_init(&t);
	note_denial(&t, "outside the readable roots", "/a");
	note_denial(&t, "outside the readable roots", "/b");
	note_denial(&t, "outside the readable roots", "/a");
	cr_assert_eq(t.denials, 3);
	cr_assert_eq(t.kernel_denials, 0);
	cr_assert_eq(t.nunshimmed, 0);
	cr_assert_eq(t.ngroups, 1);
	cr_assert_eq(t.groups[0].count, 3);
	cr_assert_eq(t.groups[0].ntargets, 2);
	cr_assert_str_eq(t.groups[0].targets[0].what, "/a");
	cr_assert_eq(t.groups[0].targets[0].count, 2);
	cr_assert_eq(t.groups[0].targets[1].count, 1);
}
