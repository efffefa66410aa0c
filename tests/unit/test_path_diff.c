/*
 * test_path_diff.c - path_resolve() held against realpath(3) and the
 * kernel over every combination of a start and a suffix, in the tree
 * of path_fixture.h.
 */
#include "tests/unit/path_fixture.h"

TestSuite(resolve, .init = setup, .fini = teardown);

/*
 * Differential: every combination of a start and a suffix that realpath
 * resolves must come out the same, and wherever the kernel finds the
 * path, our result must name the same inode (followed or not).
 */
static const char *const starts[] = {
	".",
	"..",
	"proj",
	"proj/file",
	"proj/link",
	"proj/abs",
	"proj/filelink",
	"proj/up",
	"proj/cwdlink",
	"secret",
	"secret/sub",
	"secret/key",
	"chain/c1",
	"chain/c2",
	"chain/c39",
	"dangling",
	"colon",
	"longlink",
	"/proc/self/cwd",
	"/proc/self/root/tmp",
	"/proc/self/cwd/proj/link",
	"/etc",
	"/",
};

static const char *const suffixes[] = {
	"",
	"/",
	"/.",
	"/..",
	"/../key",
	"/../..",
	"/inner",
	"/./inner",
	"//file",
	"/../proj/link/..",
	"/up/secret/key",
	"/link/../sub",
	"/../secret/sub/inner",
	"/abs/sub",
	"/../../..",
	"/cwdlink/proj",
	"/filelink",
	"/../proj/filelink",
	"/passwd",
	"/../proj/up/proj",
};

struct diff_counts {
	int realpath;
	int kernel;
};

static void same_inode(const char *path, const char *out, int nofollow)
{
	struct stat a, b;
	int (*st)(const char *, struct stat *) = nofollow ? lstat : stat;

	if (st(path, &a))
		return;
	cr_assert_eq(st(out, &b), 0, "%s -> %s: %s", path, out,
		     strerror(errno));
	cr_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino,
		  "%s -> %s: another inode (nofollow %d)", path, out, nofollow);
}

static void diff_one(const char *path, struct diff_counts *n)
{
	char out[PATH_BUF], rp[PATH_MAX], at[PATH_BUF];
	struct stat st;
	int ret = path_resolve(AT_FDCWD, path, 0, out);

	if (realpath(path, rp)) {
		cr_assert_eq(ret, 0, "realpath(%s) = %s, path_resolve %d", path,
			     rp, ret);
		cr_assert_str_eq(out, rp, "path %s", path);
		n->realpath++;
	}
	cr_assert_eq(path_resolve(tfd, path, 0, at), ret, "dirfd %s", path);
	cr_assert_str_eq(at, out, "dirfd %s", path);
	if (!ret && stat(path, &st) == 0) {
		same_inode(path, out, 0);
		n->kernel++;
	}
	if (path_resolve(AT_FDCWD, path, PATH_NOFOLLOW, out) == 0)
		same_inode(path, out, 1);
	else
		cr_assert_neq(lstat(path, &st), 0, "lstat finds %s", path);
}

Test(resolve, differential_realpath_and_kernel)
{
	struct diff_counts n = { 0, 0 };
	char p[PATH_BUF];
	size_t ns = sizeof(starts) / sizeof(starts[0]);
	size_t nx = sizeof(suffixes) / sizeof(suffixes[0]);

	for (size_t i = 0; i < ns; i++) {
		for (size_t j = 0; j < nx; j++) {
			snprintf(p, sizeof(p), "%s%s", starts[i], suffixes[j]);
			diff_one(p, &n);
			for (size_t k = 0; k < nx; k++) {
				snprintf(p, sizeof(p), "%s%s%s", starts[i],
					 suffixes[j], suffixes[k]);
				diff_one(p, &n);
			}
		}
	}
	/* Make sure the comparison was not vacuous. */
	cr_assert_gt(n.realpath, 1000, "only %d realpath hits", n.realpath);
	cr_assert_gt(n.kernel, 1000, "only %d kernel hits", n.kernel);
}
