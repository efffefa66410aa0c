/*
 * Unit tests of the end-of-run summary (enforce/report/summary.c): the line
 * that names a program run without the shim says why, from the
 * "exec-unshimmed" record's rule, and the Linux wording stays as the
 * integration tests expect it; the last line holds every option that
 * allows what was refused, computed outside from the records' paths
 * and operations (never their "allow" text), quoted, deduplicated.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "enforce/report/report.h"
#include "shim/core/rule.h"

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
	json_t *r =
		json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "operation", "open",
			  "verdict", "deny", "layer", "shim", "rule", rule,
			  "resolved", what, "allow", "with --read /x");

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

/* ---- the last line: every option, computed outside ---------------- */

static char D[64];

static void denial_at(const char *op, int need, const char *resolved,
		      const char *allow)
{
	json_t *r =
		json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s}",
			  "operation", op, "verdict", "deny", "layer", "shim",
			  "rule", "outside the roots", "path", resolved,
			  "resolved", resolved, "need", need, "allow", allow);

	cr_assert_not_null(r);
	tally_note(&s.tally, r);
	json_decref(r);
}

static void net_denial(const char *dest, const char *allow)
{
	json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "operation",
			      "connect", "verdict", "deny", "layer", "shim",
			      "rule", "network is off", "destination", dest,
			      "allow", allow);

	cr_assert_not_null(r);
	tally_note(&s.tally, r);
	json_decref(r);
}

static const char *in_d(const char *rel)
{
	static char buf[8][256];
	static int n;
	char *b = buf[n++ % 8];

	snprintf(b, 256, "%s/%s", D, rel);
	return b;
}

static void options_init(void)
{
	char tmpl[] = "/tmp/cordon-summary-XXXXXX";

	init();
	cr_assert_not_null(mkdtemp(tmpl));
	memcpy(D, tmpl, sizeof(tmpl));
	cr_assert_eq(mkdir(in_d("out"), 0755), 0);
	cr_assert_eq(mkdir(in_d("my dir"), 0755), 0);
	cr_assert_eq(close(open(in_d("out/f"), O_CREAT | O_WRONLY, 0644)), 0);
	cr_assert_eq(close(open(in_d("my dir/a\nb"), O_CREAT | O_WRONLY, 0644)),
		     0);
}

static void options_fini(void)
{
	unlink(in_d("out/f"));
	unlink(in_d("my dir/a\nb"));
	rmdir(in_d("out"));
	rmdir(in_d("my dir"));
	rmdir(D);
}

TestSuite(options, .init = options_init, .fini = options_fini);

/* The summary's last line. */
static const char *last_line(void)
{
	static char buf[65536];
	FILE *f = cr_get_redirected_stderr();
	char line[8192];

	fflush(stderr);
	buf[0] = '\0';
	while (fgets(line, sizeof(line), f))
		snprintf(buf, sizeof(buf), "%s", line);
	return buf;
}

Test(options, rm_outside_is_one_write_of_its_directory)
{
	char want[512];

	/* rm: the fstatat (see) and the unlinkat (write); the records'
	 * own "allow" says otherwise, and is not what counts */
	denial_at("fstatat", 0, in_d("out/f"), "with --read /");
	denial_at("unlinkat", 2, in_d("out/f"), "with --write /");
	summary_print(&s);
	snprintf(want, sizeof(want),
		 "cordon: allow all of it with: --write %s\n", in_d("out"));
	cr_assert_str_eq(last_line(), want);
}

Test(options, paths_are_quoted_and_deduplicated)
{
	char want[1024];

	denial_at("open", 1, in_d("my dir/a\nb"), "with --read x");
	denial_at("open", 1, in_d("my dir/a\nb"), "with --read x");
	denial_at("mkdir", 2, in_d("my dir/new"), "");
	denial_at("execve", 4, in_d("out/f"), "");
	summary_print(&s);
	/* the read below the --write of its directory is implied */
	snprintf(want, sizeof(want),
		 "cordon: allow all of it with: --write '%s/my dir' --exec "
		 "%s\n",
		 D, in_d("out/f"));
	cr_assert_str_eq(last_line(), want);
}

Test(options, a_newline_stays_in_the_quoted_word)
{
	char want[1024];

	denial_at("open", 1, in_d("my dir/a\nb"), "");
	summary_print(&s);
	snprintf(want, sizeof(want),
		 "cordon: allow all of it with: --read $'%s/my dir/a\\nb'\n",
		 D);
	cr_assert_str_eq(last_line(), want);
}

Test(options, ports_in_one_list_and_net_implies_them)
{
	net_denial("127.0.0.1:443", "with --connect 443");
	net_denial("127.0.0.1:80", "with --connect 80");
	net_denial("127.0.0.1:80", "with --connect 80");
	net_denial("0.0.0.0:8000", "with --bind 8000");
	/* forged: not one of the three shapes, never pasted */
	net_denial("x", "with --connect 22; rm -rf ~");
	net_denial("x", "with --connect 99999");
	net_denial("x", "with --connect 080");
	summary_print(&s);
	cr_assert_str_eq(last_line(), "cordon: allow all of it with: --connect "
				      "443,80 --bind 8000\n");
}

/* A text shorter than a prefix ("", "with"): the port is read after a
 * prefix that is there only (fuzz_record: it was read past the end of
 * a record's short "allow"). */
Test(options, a_short_allow_is_no_option)
{
	net_denial("x", "");
	net_denial("x", "with");
	net_denial("x", "with --bind");
	summary_print(&s);
	cr_assert_str_eq(last_line(),
			 "cordon:        3  x; no option allows this\n");
}

Test(options, net_implies_every_port)
{
	net_denial("127.0.0.1:443", "with --connect 443");
	net_denial("[::1]:53", "with --net");
	summary_print(&s);
	cr_assert_str_eq(last_line(), "cordon: allow all of it with: --net\n");
}

Test(options, no_option_no_line)
{
	/* a denial no option allows (a protected file renamed over) */
	static struct policy p;
	char want[1024];

	cr_assert_eq(policy_add_root(&p, in_d("out/f"), RIGHT_R,
				     ORIGIN_PROTECTED, false),
		     0);
	s.tally.policy = &p;
	denial_at("rename", 2, in_d("out/f"), "with --write /");
	summary_print(&s);
	snprintf(want, sizeof(want), "cordon:        1  %s; %s\n",
		 in_d("out/f"), RULE_NO_OPTION);
	cr_assert_str_eq(last_line(), want);
	policy_free(&p);
}

/* cordon's own audit log and state: no option, in the line or the last */
Test(options, cordons_own_log_has_no_option)
{
	char want[1024];

	snprintf(s.logpath, sizeof(s.logpath), "%s", in_d("out/f"));
	denial_at("open", 2, in_d("out/f"), "with --write /");
	denial_at("open", 1, in_d("my dir/a\nb"), "");
	summary_print(&s);
	fflush(stderr);
	snprintf(want, sizeof(want),
		 "cordon: allow all of it with: --read $'%s/my dir/a\\nb'\n",
		 D);
	cr_assert_str_eq(last_line(), want);
}

Test(options, cordons_own_log_alone_no_line)
{
	FILE *f = cr_get_redirected_stderr();
	char line[4096], want[1024];
	bool said = false;

	snprintf(s.logpath, sizeof(s.logpath), "%s", in_d("out/f"));
	denial_at("open", 2, in_d("out/f"), "with --write /");
	summary_print(&s);
	fflush(stderr);
	snprintf(want, sizeof(want), "cordon:        1  %s; %s\n",
		 in_d("out/f"), RULE_CORDONS);
	while (fgets(line, sizeof(line), f)) {
		cr_assert(!strstr(line, "allow all of it"), "%s", line);
		said |= strcmp(line, want) == 0;
	}
	cr_assert(said);
}

/* A look-up the shim marked ("probe"), on @resolved. */
static void lookup_at(const char *op, int need, const char *resolved)
{
	json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:b, s:s}",
			      "operation", op, "verdict", "deny", "layer",
			      "shim", "rule", "outside the roots", "path",
			      resolved, "resolved", resolved, "need", need,
			      "probe", 1, "allow", "");

	cr_assert_not_null(r);
	tally_note(&s.tally, r);
	json_decref(r);
}

/* What the summary printed, whole. */
static const char *all_text(void)
{
	static char buf[65536];
	FILE *f = cr_get_redirected_stderr();
	size_t n;

	fflush(stderr);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	return buf;
}

Test(options, a_lookup_the_command_went_on_from_is_left_out)
{
	char want[512];
	const char *text;

	lookup_at("access", 2, in_d("my dir"));
	lookup_at("stat", 0, in_d("out"));
	denial_at("open", 1, in_d("out/f"), "");
	summary_print(&s);
	snprintf(want, sizeof(want),
		 "cordon: allow all of it with: --read %s\n", in_d("out/f"));
	text = all_text();
	cr_assert(strstr(text, want), "%s", text);
	cr_assert(strstr(text, "\ncordon: look-ups the command went on from "
			       "(a stat, an access(), a bind to port 0) are "
			       "not in the line below: it may not need them\n"),
		  "%s", text);
}

Test(options, the_last_refusal_a_lookup_is_kept)
{
	char want[512];

	denial_at("open", 1, in_d("out/f"), "");
	lookup_at("stat", 0, in_d("my dir"));
	summary_print(&s);
	snprintf(want, sizeof(want),
		 "cordon: allow all of it with: --read %s --read '%s'\n",
		 in_d("out/f"), in_d("my dir"));
	cr_assert(strstr(all_text(), want), "%s", want);
}

Test(options, a_removed_variable_is_passed_with_e)
{
	json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "operation",
			      "getenv", "verdict", "deny", "layer", "shim",
			      "rule", "removed", "variable", "PKG_CONFIG_PATH",
			      "allow", "with -e PKG_CONFIG_PATH");

	tally_note(&s.tally, r);
	json_decref(r);
	summary_print(&s);
	cr_assert_str_eq(last_line(),
			 "cordon: allow all of it with: -e PKG_CONFIG_PATH\n");
}
