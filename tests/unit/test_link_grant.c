/*
 * Unit tests of the option for the two ends of a hard link or a rename
 * (shim/core/rule.c): a link's ends must lie on one mount, and in the
 * sandbox each root granting write or execute is a mount of its own
 * (enforce/linux/mounts.c), so the least grant is the deepest directory
 * holding both ends, and none when a root's mount lies between them or
 * they are on two file systems; a rename across mounts keeps its
 * option and says what it does not do.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "shim/core/path.h"
#include "shim/core/rule.h"
#include "tmptree.h"

static struct policy p;
static char T[64];

static const char *in_t(const char *rel)
{
	static char buf[8][PATH_BUF];
	static int n;
	char *b = buf[n++ % 8];

	snprintf(b, PATH_BUF, "%s/%s", T, rel);
	return b;
}

static void init(void)
{
	static const char *const dirs[] = { "out",   "out/d",	"out/e",
					    "ws",    "ws/sub",	"bin",
					    "bin/d", "ws/.git", NULL };
	char tmpl[] = "/tmp/cordon-link-XXXXXX";
	char *t;
	int fd;

	cr_assert_not_null(mkdtemp(tmpl), "mkdtemp: %s", strerror(errno));
	t = realpath(tmpl, NULL);
	cr_assert(t && strlen(t) < sizeof(T));
	memcpy(T, t, strlen(t) + 1);
	free(t);
	for (size_t i = 0; dirs[i]; i++)
		cr_assert_eq(mkdir(in_t(dirs[i]), 0755), 0, "%s", dirs[i]);
	fd = open(in_t("out/d/a"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	/* the workspace (rwx), a root granted exec only: both mounts */
	cr_assert_eq(policy_add_root(&p, in_t("ws"), RIGHT_ALL, ORIGIN_DEFAULT,
				     true),
		     0);
	cr_assert_eq(policy_add_root(&p, in_t("bin"), RIGHT_R | RIGHT_X,
				     ORIGIN_USER, true),
		     0);
}

static void fini(void)
{
	policy_free(&p);
	memset(&p, 0, sizeof(p));
	tmptree_remove(T);
}

TestSuite(link_grant, .init = init, .fini = fini);

/* The grant of a link refused at T/@end, its other end T/@peer (or
 * @peer as it is when absolute); "(none)" when there is none. */
static const char *grant(const char *op, const char *end, const char *peer)
{
	static char out[PATH_BUF];
	const char *other = peer[0] == '/' ? peer : in_t(peer);

	if (!rule_grant_path(&p, op, RIGHT_W, in_t(end), other, out))
		return "(none)";
	return out;
}

Test(link_grant, both_ends_in_one_directory_grant_it)
{
	cr_assert_str_eq(grant("link", "out/d/a", "out/d/b"), in_t("out/d"));
	cr_assert_str_eq(grant("linkat", "out/d/b", "out/d/a"), in_t("out/d"));
}

Test(link_grant, ends_in_two_directories_grant_the_one_above_both)
{
	/* one grant for both lines: two would be two mounts */
	cr_assert_str_eq(grant("link", "out/d/a", "out/e/b"), in_t("out"));
	cr_assert_str_eq(grant("link", "out/e/b", "out/d/a"), in_t("out"));
}

Test(link_grant, a_root_mount_between_the_ends_allows_none)
{
	char out[PATH_BUF];

	/* from the workspace (a mount) to outside, and back */
	cr_assert_str_eq(grant("linkat", "out/d/b", "ws/a"), "(none)");
	cr_assert_str_eq(grant("link", "out/d/a", "ws/sub/b"), "(none)");
	/* a root granted exec only is a mount too */
	cr_assert_str_eq(grant("link", "out/d/a", "bin/d/b"), "(none)");
	cr_assert_str_eq(rule_why_none(&p, "link", RIGHT_W, in_t("out/d/b"),
				       in_t("ws/a")),
			 RULE_NO_LINK);
	/* the summary's answer is the line's */
	cr_assert(!rule_grant_path(&p, "link", RIGHT_W, in_t("out/d/b"),
				   in_t("ws/a"), out));
}

Test(link_grant, inside_one_root_mount_the_directory_stays)
{
	/* both ends under the exec-only root: one mount once granted */
	cr_assert_str_eq(grant("link", "bin/d/a", "bin/d/b"), in_t("bin/d"));
}

Test(link_grant, two_file_systems_allow_none)
{
	struct stat a, b;

	if (stat(T, &a) < 0 || stat("/proc", &b) < 0 || a.st_dev == b.st_dev)
		cr_skip_test("SKIP: no second file system at /proc");
	cr_assert_str_eq(grant("link", "out/d/a", "/proc/x"), "(none)");
}

Test(link_grant, without_the_other_end_the_directory_as_before)
{
	char out[PATH_BUF];

	cr_assert(rule_grant_path(&p, "link", RIGHT_W, in_t("out/d/b"), NULL,
				  out));
	cr_assert_str_eq(out, in_t("out/d"));
	/* not a link: the other end is no matter */
	cr_assert(rule_grant_path(&p, "unlink", RIGHT_W, in_t("out/d/a"),
				  in_t("ws/a"), out));
	cr_assert_str_eq(out, in_t("out/d"));
}

/* rule_put_cross() of a rename refused at T/@end, from T/@peer. */
static const char *cross(const char *op, const char *end, const char *peer)
{
	static char buf[512];
	struct strbuf sb = STRBUF(buf, sizeof(buf));

	buf[0] = '\0';
	rule_put_cross(&sb, &p, op, RIGHT_W, in_t(end), in_t(peer));
	return buf;
}

Test(link_grant, a_rename_across_mounts_says_what_the_option_does_not_do)
{
	char out[PATH_BUF];

	cr_assert_str_eq(cross("rename", "out/d/b", "ws/a"),
			 "; " RULE_RENAME_CROSS);
	cr_assert_str_eq(cross("renameat2", "out/d/a", "ws/b"),
			 "; " RULE_RENAME_CROSS);
	/* its option stays: mv copies across mounts */
	cr_assert(rule_grant_path(&p, "rename", RIGHT_W, in_t("out/d/b"),
				  in_t("ws/a"), out));
	cr_assert_str_eq(out, in_t("out/d"));
	/* within one directory outside, one mount once granted */
	cr_assert_str_eq(cross("rename", "out/d/a", "out/d/b"), "");
	/* a link says it in its option instead */
	cr_assert_str_eq(cross("link", "out/d/b", "ws/a"), "");
}

Test(link_grant, a_protection_the_option_lifts_is_no_mount_between)
{
	/* git renames config.lock onto its protected config: the option,
	 * the git directory, lifts the protection (no EXDEV note) */
	cr_assert_eq(policy_add_root(&p, in_t("ws/.git/config"), RIGHT_R,
				     ORIGIN_PROTECTED, false),
		     0);
	cr_assert_str_eq(
		cross("rename", "ws/.git/config", "ws/.git/config.lock"), "");
	/* a protection the option leaves is one */
	cr_assert_eq(policy_add_root(&p, in_t("ws/sub/keep"), RIGHT_R,
				     ORIGIN_PROTECTED, false),
		     0);
	cr_assert_str_eq(grant("link", "ws/sub/keep", "ws/sub/x"), "(none)");
}
