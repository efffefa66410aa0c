/*
 * test_path.c - path_resolve() and path_normalize() against a real tree.
 *
 * Each test gets a fresh fixture under a mkdtemp directory T (its
 * canonical name), with the process's cwd at T:
 *
 *   T/proj/file            T/secret/key          T/secret/sub/inner
 *   T/proj/link -> ../secret/sub                 T/proj/abs -> T/secret
 *   T/proj/filelink -> file                      T/proj/up -> ..
 *   T/proj/cwdlink -> /proc/self/cwd             T/dangling -> nowhere
 *   T/loop1 -> loop2 -> loop1   T/self -> self   T/colon -> a:b
 *   T/chain/c0 -> c1 -> ... -> c40 -> ../proj/file  (c0 is 41 hops)
 *   T/noperm/inner (T/noperm has mode 0)         T/longlink -> ././.../proj
 *
 * Expected results are written relative to T ("secret/key") or as
 * absolute paths; the kernel (open, stat) and realpath(3) are used as
 * oracles where they can speak.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/core/path.h"

#define CHAIN_LEN     41
#define LONGLINK_DOTS 1500 /* "./" pairs in longlink's target */

static char T[256]; /* short, so that T/<name> always fits */
static int tfd = -1;

static void must(int ret, const char *what)
{
	cr_assert(ret == 0, "fixture: %s: %s", what, strerror(errno));
}

static void mk_file(const char *rel)
{
	int fd =
		openat(tfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	cr_assert(fd >= 0, "fixture: %s: %s", rel, strerror(errno));
	close(fd);
}

static void mk_link(const char *target, const char *rel)
{
	must(symlinkat(target, tfd, rel), rel);
}

static void mk_chain(void)
{
	char name[32], target[32];

	must(mkdirat(tfd, "chain", 0755), "chain");
	for (int i = 0; i < CHAIN_LEN; i++) {
		snprintf(name, sizeof(name), "chain/c%d", i);
		if (i == CHAIN_LEN - 1)
			snprintf(target, sizeof(target), "../proj/file");
		else
			snprintf(target, sizeof(target), "c%d", i + 1);
		mk_link(target, name);
	}
}

static void mk_longlink(void)
{
	static char target[2 * LONGLINK_DOTS + 8];
	size_t n = 0;

	for (int i = 0; i < LONGLINK_DOTS; i++) {
		target[n++] = '.';
		target[n++] = '/';
	}
	memcpy(target + n, "proj", 5);
	mk_link(target, "longlink");
}

static void setup(void)
{
	char tmpl[] = "/tmp/cordon-path-XXXXXX";
	char abs[PATH_BUF], *t;

	cr_assert(mkdtemp(tmpl), "mkdtemp: %s", strerror(errno));
	t = realpath(tmpl, NULL);
	cr_assert(t && strlen(t) < sizeof(T), "realpath: %s", strerror(errno));
	memcpy(T, t, strlen(t) + 1);
	free(t);
	tfd = open(T, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(tfd >= 0);
	must(chdir(T), "chdir");
	must(mkdirat(tfd, "proj", 0755), "proj");
	must(mkdirat(tfd, "secret", 0755), "secret");
	must(mkdirat(tfd, "secret/sub", 0755), "secret/sub");
	must(mkdirat(tfd, "noperm", 0755), "noperm");
	mk_file("proj/file");
	mk_file("secret/key");
	mk_file("secret/sub/inner");
	mk_file("noperm/inner");
	must(fchmodat(tfd, "noperm", 0, 0), "chmod noperm");
	mk_link("../secret/sub", "proj/link");
	snprintf(abs, sizeof(abs), "%s/secret", T);
	mk_link(abs, "proj/abs");
	mk_link("file", "proj/filelink");
	mk_link("..", "proj/up");
	mk_link("/proc/self/cwd", "proj/cwdlink");
	mk_link("nowhere", "dangling");
	mk_link("loop2", "loop1");
	mk_link("loop1", "loop2");
	mk_link("self", "self");
	mk_link("a:b", "colon");
	mk_chain();
	mk_longlink();
}

static int rm_one(const char *p, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(p) : unlink(p);
}

static void teardown(void)
{
	char p[PATH_BUF];

	if (!T[0])
		return;
	snprintf(p, sizeof(p), "%s/noperm", T);
	chmod(p, 0755);
	nftw(T, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	close(tfd);
}

TestSuite(resolve, .init = setup, .fini = teardown);

/* "secret/key" -> "T/secret/key"; absolute paths are kept. */
static void in_t(const char *rel, char out[PATH_BUF])
{
	if (rel[0] == '/')
		snprintf(out, PATH_BUF, "%s", rel);
	else if (!rel[0])
		snprintf(out, PATH_BUF, "%s", T);
	else
		cr_assert_lt(snprintf(out, PATH_BUF, "%s/%.3800s", T, rel),
			     PATH_BUF);
}

static void ok_at(int dirfd, const char *path, int flags, const char *want)
{
	char out[PATH_BUF], exp[PATH_BUF];
	int ret = path_resolve(dirfd, path, flags, out);

	cr_assert_eq(ret, 0, "path_resolve(%d, \"%s\", %d) = %d (%s)", dirfd,
		     path, flags, ret, strerror(-ret));
	in_t(want, exp);
	cr_assert_str_eq(out, exp, "path_resolve(\"%s\", %d)", path, flags);
}

static void ok(const char *path, int flags, const char *want)
{
	ok_at(AT_FDCWD, path, flags, want);
}

static void fails_at(int dirfd, const char *path, int flags, int err)
{
	char out[PATH_BUF];
	int ret = path_resolve(dirfd, path, flags, out);

	cr_assert_eq(ret, -err, "path_resolve(%d, \"%s\", %d) = %d (%s)%s%s",
		     dirfd, path, flags, ret, strerror(-ret), ret ? "" : " -> ",
		     ret ? "" : out);
	cr_assert_str_eq(out, "", "out must be empty on error");
}

static void fails(const char *path, int flags, int err)
{
	fails_at(AT_FDCWD, path, flags, err);
}

static int open_t(const char *rel, int flags)
{
	int fd = openat(tfd, rel, flags | O_CLOEXEC);

	cr_assert(fd >= 0, "open %s: %s", rel, strerror(errno));
	return fd;
}

Test(resolve, inside_the_root)
{
	ok("proj/file", 0, "proj/file");
	ok("proj", 0, "proj");
	ok(".", 0, "");
	ok("secret/sub/inner", 0, "secret/sub/inner");
}

Test(resolve, new_file_under_existing_dir)
{
	ok("proj/new.txt", 0, "proj/new.txt");
	ok("proj/new.txt", PATH_NOFOLLOW, "proj/new.txt");
	ok("proj/./new/", 0, "proj/new");
}

Test(resolve, dotdot_above_a_dirfd)
{
	int sub = open_t("secret/sub", O_RDONLY | O_DIRECTORY);
	char deep[PATH_BUF];
	size_t n = 0;

	/* T/etc does not exist: the tail is lexical, but still inside T. */
	ok_at(sub, "../../etc/passwd", 0, "etc/passwd");
	for (int i = 0; i < 64; i++, n += 3)
		memcpy(deep + n, "../", 3);
	memcpy(deep + n, "etc/passwd", sizeof("etc/passwd"));
	ok_at(sub, deep, 0, "/etc/passwd");
	close(sub);
}

Test(resolve, absolute_outside_ignores_dirfd)
{
	ok("/etc/passwd", 0, "/etc/passwd");
	ok("/etc/../etc/./passwd", 0, "/etc/passwd");
	/* The kernel ignores dirfd for an absolute path, even a bad one. */
	ok_at(-1, "/etc/passwd", 0, "/etc/passwd");
	ok_at(tfd, "/", 0, "/");
	ok("/..", 0, "/");
}

Test(resolve, from_the_root_directory)
{
	int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert(root >= 0);
	ok_at(root, "etc/passwd", 0, "/etc/passwd");
	ok_at(root, "", PATH_EMPTY_OK, "/");
	must(chdir("/"), "chdir /");
	ok("etc/passwd", 0, "/etc/passwd");
	ok("..", 0, "/");
	ok("", PATH_EMPTY_OK, "/");
	close(root);
}

Test(resolve, symlinked_dir_pointing_out)
{
	ok("proj/link", 0, "secret/sub");
	ok("proj/link/inner", 0, "secret/sub/inner");
	ok("proj/link/new", 0, "secret/sub/new");
	ok("proj/abs/key", 0, "secret/key");
	ok("proj/up/secret/key", 0, "secret/key");
	ok("proj/up/proj/up/proj/link/inner", 0, "secret/sub/inner");
}

Test(resolve, dotdot_after_symlink_is_not_lexical)
{
	struct stat a, b;

	ok("proj/link/../key", 0, "secret/key");
	ok("proj/link/..", 0, "secret");
	ok("proj/abs/../proj", 0, "proj");
	/* The kernel agrees: it opens secret/key, not proj/key. */
	cr_assert_eq(stat("proj/link/../key", &a), 0);
	cr_assert_eq(stat("secret/key", &b), 0);
	cr_assert(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
}

Test(resolve, nofollow_final_symlink)
{
	ok("proj/link", PATH_NOFOLLOW, "proj/link");
	ok("proj/filelink", PATH_NOFOLLOW, "proj/filelink");
	ok("proj/filelink", 0, "proj/file");
	/* Only the last component: the others are still followed. */
	ok("proj/link/inner", PATH_NOFOLLOW, "secret/sub/inner");
	ok("dangling", PATH_NOFOLLOW, "dangling");
	ok("loop1", PATH_NOFOLLOW, "loop1");
	ok("proj/cwdlink", PATH_NOFOLLOW, "proj/cwdlink");
}

Test(resolve, trailing_slash)
{
	/* A trailing slash follows the link even with NOFOLLOW. */
	ok("proj/link/", PATH_NOFOLLOW, "secret/sub");
	ok("proj/link//", 0, "secret/sub");
	ok("proj/", 0, "proj");
	ok("proj/newdir/", 0, "proj/newdir");
	fails("proj/file/", 0, ENOTDIR);
	fails("proj/filelink/", PATH_NOFOLLOW, ENOTDIR);
	fails("loop1/", PATH_NOFOLLOW, ELOOP);
}

Test(resolve, slashes_and_dots_collapse)
{
	ok("proj//./file", 0, "proj/file");
	ok(".//proj/.", 0, "proj");
	ok("///", 0, "/");
	ok("//etc//./passwd", 0, "/etc/passwd");
	ok("./././proj/././/file", 0, "proj/file");
}

Test(resolve, dangling_and_missing_tail)
{
	/* Documented choice: a missing directory is fine for the walk. */
	ok("proj/missing/b", 0, "proj/missing/b");
	ok("proj/missing/./b//c/", 0, "proj/missing/b/c");
	ok("dangling", 0, "nowhere");
	ok("dangling/x", 0, "nowhere/x");
	ok("colon", 0, "a:b");
}

Test(resolve, dotdot_after_missing_is_enoent)
{
	fails("missing/../x", 0, ENOENT);
	fails("proj/missing/../file", 0, ENOENT);
	fails("proj/missing/a/..", 0, ENOENT);
	fails("dangling/../proj", 0, ENOENT);
	cr_assert_eq(access("missing/../proj", F_OK), -1);
	cr_assert_eq(errno, ENOENT);
}

Test(resolve, file_used_as_dir_is_enotdir)
{
	fails("proj/file/x", 0, ENOTDIR);
	fails("proj/file/.", 0, ENOTDIR);
	fails("proj/file/..", 0, ENOTDIR);
	fails("proj/filelink/x", PATH_NOFOLLOW, ENOTDIR);
	cr_assert_eq(access("proj/file/..", F_OK), -1);
	cr_assert_eq(errno, ENOTDIR);
}

Test(resolve, dirfd_relative)
{
	int secret = open_t("secret", O_RDONLY | O_DIRECTORY);
	int opath = open_t("proj/link", O_PATH | O_DIRECTORY);
	int file = open_t("proj/file", O_RDONLY);
	int closed = open_t("proj", O_RDONLY);

	close(closed);
	ok_at(secret, "key", 0, "secret/key");
	ok_at(secret, "sub/../key", 0, "secret/key");
	ok_at(secret, "../proj/link/../key", 0, "secret/key");
	ok_at(opath, "inner", 0, "secret/sub/inner");
	fails_at(file, "x", 0, ENOTDIR);
	fails_at(closed, "x", 0, EBADF);
	fails_at(-1, "x", 0, EBADF);
	fails_at(-5, "x", 0, EBADF);
	close(secret);
	close(opath);
	close(file);
}

Test(resolve, deleted_dirfd_has_no_path)
{
	int fd;

	must(mkdirat(tfd, "gone", 0755), "gone");
	fd = open_t("gone", O_RDONLY | O_DIRECTORY);
	must(unlinkat(tfd, "gone", AT_REMOVEDIR), "rmdir gone");
	fails_at(fd, "x", 0, ENOENT);
	fails_at(fd, "", PATH_EMPTY_OK, ENOENT);
	close(fd);
}

Test(resolve, empty_path)
{
	int secret = open_t("secret", O_RDONLY | O_DIRECTORY);
	int file = open_t("proj/file", O_RDONLY);
	int lnk = open_t("proj/filelink", O_PATH | O_NOFOLLOW);

	fails("", 0, ENOENT);
	fails_at(secret, "", 0, ENOENT);
	ok("", PATH_EMPTY_OK, "");
	ok_at(secret, "", PATH_EMPTY_OK, "secret");
	/* AT_EMPTY_PATH works on any fd, not only directories. */
	ok_at(file, "", PATH_EMPTY_OK, "proj/file");
	ok_at(lnk, "", PATH_EMPTY_OK, "proj/filelink");
	fails_at(-1, "", PATH_EMPTY_OK, EBADF);
	/* NULL is EFAULT, as for the kernel, unless empty is allowed. */
	fails_at(secret, NULL, 0, EFAULT);
	ok_at(secret, NULL, PATH_EMPTY_OK, "secret");
	close(secret);
	close(file);
	close(lnk);
}

Test(resolve, proc_self_cwd)
{
	must(chdir("proj"), "chdir proj");
	ok("/proc/self/cwd/../secret/key", 0, "secret/key");
	ok("/proc/self/cwd", 0, "proj");
	ok("/proc/self/cwd/new", 0, "proj/new");
	ok("cwdlink/../secret/key", 0, "secret/key");
	ok("/proc/self/root/etc/passwd", 0, "/etc/passwd");
}

Test(resolve, proc_fd_magic_links)
{
	char p[64], want[64];
	int fds[2], key = open_t("secret/key", O_RDONLY);

	cr_assert_eq(pipe2(fds, O_CLOEXEC), 0);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", key);
	ok(p, 0, "secret/key");
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fds[0]);
	fails(p, 0, ENOENT);
	fails_at(fds[0], "", PATH_EMPTY_OK, ENOENT);
	fails_at(fds[0], "x", 0, ENOTDIR);
	/* NOFOLLOW names the link itself, which has a path. */
	snprintf(want, sizeof(want), "/proc/%d/fd/%d", getpid(), fds[0]);
	ok(p, PATH_NOFOLLOW, want);
	close(fds[0]);
	close(fds[1]);
	close(key);
}

Test(resolve, proc_fd_of_deleted_file)
{
	char p[64];
	int fd = open_t("proj/file", O_RDONLY);
	int mfd = memfd_create("cordon", MFD_CLOEXEC);

	must(unlinkat(tfd, "proj/file", 0), "unlink");
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	/* The link reads "T/proj/file (deleted)": not a name it has. */
	fails(p, 0, ENOENT);
	fails_at(fd, "", PATH_EMPTY_OK, ENOENT);
	cr_assert(mfd >= 0);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", mfd);
	fails(p, 0, ENOENT);
	close(fd);
	close(mfd);
}

Test(resolve, genuine_deleted_suffix)
{
	mk_file("secret/x (deleted)");
	mk_link("secret/x (deleted)", "real");
	mk_link("secret/y (deleted)", "fake");
	ok("real", 0, "secret/x (deleted)");
	ok("fake", 0, "secret/y (deleted)");
}

Test(resolve, symlink_loops)
{
	fails("loop1", 0, ELOOP);
	fails("self", 0, ELOOP);
	fails("loop2/x", PATH_NOFOLLOW, ELOOP);
}

Test(resolve, hop_limit_matches_kernel)
{
	int fd;

	fails("chain/c0", 0, ELOOP);	/* 41 links */
	ok("chain/c1", 0, "proj/file"); /* 40 links */
	ok("chain/c2", 0, "proj/file"); /* 39 links */
	ok("chain/c0", PATH_NOFOLLOW, "chain/c0");
	cr_assert_eq(open("chain/c0", O_RDONLY | O_CLOEXEC), -1);
	cr_assert_eq(errno, ELOOP);
	fd = open("chain/c1", O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0, "kernel: chain/c1: %s", strerror(errno));
	close(fd);
}

Test(resolve, name_too_long)
{
	char p[PATH_BUF + 8], out[PATH_BUF];
	size_t n;

	memset(p, 'a', PATH_BUF);
	p[PATH_BUF] = '\0';
	fails(p, 0, ENAMETOOLONG);
	/* 4095 bytes is a valid length when the result fits. */
	memcpy(p, "proj", 4);
	memset(p + 4, '/', PATH_BUF - 9);
	memcpy(p + PATH_BUF - 5, "file", 5);
	cr_assert_eq(strlen(p), PATH_BUF - 1);
	ok(p, 0, "proj/file");
	/* Short enough, but T/ in front makes the result too long. */
	for (n = 0; n + 101 < PATH_BUF - 6; n += 101) {
		memset(p + n, 'b', 100);
		p[n + 100] = '/';
	}
	memset(p + n, 'c', PATH_BUF - 6 - n);
	p[PATH_BUF - 6] = '\0';
	fails(p, 0, ENAMETOOLONG);
	/* The same from "/" fits. */
	p[0] = '/';
	cr_assert_eq(path_resolve(AT_FDCWD, p, 0, out), 0);
	cr_assert_str_eq(out, p);
}

Test(resolve, result_length_boundary)
{
	char p[PATH_BUF], out[PATH_BUF];
	size_t room = PATH_BUF - 1 - strlen(T) - 1; /* T + "/" + p + NUL */

	memset(p, 'd', room);
	for (size_t i = 200; i < room; i += 201)
		p[i] = '/';
	p[room] = '\0';
	cr_assert_eq(path_resolve(AT_FDCWD, p, 0, out), 0);
	cr_assert_eq(strlen(out), PATH_BUF - 1);
	p[room] = 'd';
	p[room + 1] = '\0';
	fails(p, 0, ENAMETOOLONG);
}

Test(resolve, symlink_splice_too_long)
{
	char p[PATH_BUF];
	size_t n = strlen("longlink/");

	ok("longlink/file", 0, "proj/file");
	memcpy(p, "longlink/", n);
	while (n < 2000) {
		p[n++] = '.';
		p[n++] = '/';
	}
	memcpy(p + n, "file", 5);
	/* target (3004) + rest (>1000) does not fit in one PATH_BUF */
	fails(p, 0, ENAMETOOLONG);
}

Test(resolve, errno_is_preserved)
{
	char out[PATH_BUF];

	errno = EXDEV;
	cr_assert_eq(path_resolve(AT_FDCWD, "proj/missing/new", 0, out), 0);
	cr_assert_eq(errno, EXDEV, "errno changed on success: %d", errno);
	cr_assert_eq(path_resolve(AT_FDCWD, "missing/../x", 0, out), -ENOENT);
	cr_assert_eq(errno, EXDEV, "errno changed on failure: %d", errno);
	cr_assert_eq(path_resolve(-1, "x", 0, out), -EBADF);
	cr_assert_eq(errno, EXDEV, "errno changed on EBADF: %d", errno);
}

Test(resolve, out_may_alias_path)
{
	char buf[PATH_BUF] = "proj/link/../key", want[PATH_BUF];

	in_t("secret/key", want);
	cr_assert_eq(path_resolve(AT_FDCWD, buf, 0, buf), 0);
	cr_assert_str_eq(buf, want);
}

Test(resolve, bad_flags)
{
	fails("proj", 0x100, EINVAL);
}

Test(resolve, search_permission_agrees_with_kernel)
{
	struct stat st;
	char out[PATH_BUF], want[PATH_BUF];
	int ret = path_resolve(AT_FDCWD, "noperm/inner", 0, out);

	/* root passes, a user gets EACCES: either way as the kernel says */
	in_t("noperm/inner", want);
	if (lstat("noperm/inner", &st) == 0) {
		cr_assert_eq(ret, 0, "kernel can, path_resolve: %d", ret);
		cr_assert_str_eq(out, want);
	} else {
		cr_assert_eq(ret, -errno, "kernel %d, path_resolve %d", errno,
			     ret);
	}
}

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

static void norm_ok(const char *in, const char *want)
{
	char out[PATH_BUF], same[PATH_BUF];
	int ret = path_normalize(in, out);

	cr_assert_eq(ret, 0, "path_normalize(\"%s\") = %d", in, ret);
	cr_assert_str_eq(out, want, "path_normalize(\"%s\")", in);
	snprintf(same, sizeof(same), "%s", in);
	cr_assert_eq(path_normalize(same, same), 0);
	cr_assert_str_eq(same, want, "in place: \"%s\"", in);
}

Test(normalize, lexical)
{
	norm_ok("/", "/");
	norm_ok("//", "/");
	norm_ok("/.", "/");
	norm_ok("/..", "/");
	norm_ok("/a/b/", "/a/b");
	norm_ok("/a/./b", "/a/b");
	norm_ok("/a/../b", "/b");
	norm_ok("/../../a", "/a");
	norm_ok("/a/b/../../..", "/");
	norm_ok("/a//b///c", "/a/b/c");
	norm_ok("/.../a/.b/..c/b.", "/.../a/.b/..c/b.");
	norm_ok("/a/b/c/../../d/./e/..", "/a/d");
	/* Lexical: a symlink is not looked at. */
	norm_ok("/proc/self/cwd/..", "/proc/self");
	/* Normal already (one scan, copied as is), and its near misses. */
	norm_ok("/a/b/c", "/a/b/c");
	norm_ok("/.a/..b/c.d/...", "/.a/..b/c.d/...");
	norm_ok("/a/b/.", "/a/b");
	norm_ok("/a/b/..", "/a");
	norm_ok("/a./", "/a.");
	norm_ok("/a/./", "/a");
	norm_ok("/a/..//b", "/b");
}

Test(normalize, errors)
{
	char p[PATH_BUF + 1], out[PATH_BUF];

	cr_assert_eq(path_normalize("a/b", out), -EINVAL);
	cr_assert_eq(path_normalize("", out), -EINVAL);
	cr_assert_eq(path_normalize(NULL, out), -EFAULT);
	memset(p, 'a', PATH_BUF);
	p[0] = '/';
	p[PATH_BUF] = '\0';
	cr_assert_eq(path_normalize(p, out), -ENAMETOOLONG);
	p[PATH_BUF - 1] = '\0';
	cr_assert_eq(path_normalize(p, out), 0);
	cr_assert_str_eq(out, p);
}

Test(path_search, every_entry_in_order_and_the_cwd_for_an_empty_one)
{
	const char *cur = "/usr/bin::/bin:";
	char out[PATH_BUF];

	cr_assert(path_search_next(&cur, "sh", out));
	cr_assert_str_eq(out, "/usr/bin/sh");
	cr_assert(path_search_next(&cur, "sh", out));
	cr_assert_str_eq(out, "./sh");
	cr_assert(path_search_next(&cur, "sh", out));
	cr_assert_str_eq(out, "/bin/sh");
	cr_assert(path_search_next(&cur, "sh", out),
		  "a trailing ':' is the cwd");
	cr_assert_str_eq(out, "./sh");
	cr_assert_not(path_search_next(&cur, "sh", out));
	cr_assert_null(cur);
}

Test(path_search, a_candidate_too_long_is_skipped)
{
	static char list[PATH_BUF + 16];
	const char *cur = list;
	char out[PATH_BUF];

	memset(list, 'a', PATH_BUF);
	list[0] = '/';
	memcpy(list + PATH_BUF, ":/bin", 6);
	cr_assert(path_search_next(&cur, "sh", out));
	cr_assert_str_eq(out, "/bin/sh");
	cr_assert_not(path_search_next(&cur, "sh", out));
}
