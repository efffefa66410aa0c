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
#include "tests/unit/path_fixture.h"

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
