/*
 * shimdrive_stat.c - call one function of the metadata family by its
 * exact public name, and print what it answered.
 *
 *   shimdrive_stat [-d FD] [-f nofollow|empty] OP PATH [r|w|x|rw|...]
 *
 * OP is a glibc name (stat, __lxstat64, statx, faccessat, readlinkat,
 * __realpath_chk, ...) or one of realpath-null (a NULL buffer),
 * realpath-old and realpath-old-null (realpath@GLIBC_2.2.5, catalog
 * D-14 "oldver").  -d gives the dirfd of the *at names (AT_FDCWD by
 * default), -f their flags; the last argument is the mode of the access
 * names (F_OK when absent).
 *
 * One line out: "OP ok DETAIL errno=N" (errno is set to 1234 before the
 * call, so N shows what the call left there), or "OP fail ENAME".
 * Exit status 0 when the call succeeded, 1 when it failed, 2 on usage.
 * Built without fortify, so each name is called exactly as written.
 */
#undef _FORTIFY_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st,
	       int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st,
		 int flags);
ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen);
ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t len,
			 size_t buflen);
char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen);

/* realpath as a program linked against glibc < 2.3 calls it. */
char *realpath_old(const char *path, char *resolved);
__asm__(".symver realpath_old,realpath@GLIBC_2.2.5");

#define STAT_VER 1 /* _STAT_VER_LINUX on x86_64 */

static const char *op;
static int dirfd_ = AT_FDCWD;
static int atflags;
static int mode = F_OK;

static int failed(void)
{
	const char *name = strerrorname_np(errno);

	printf("%s fail %s\n", op, name ? name : "?");
	return 1;
}

static int ok(const char *detail, int err)
{
	printf("%s ok %s errno=%d\n", op, detail, err);
	return 0;
}

static int stat_result(int ret, const struct stat *st)
{
	int err = errno;
	char d[256];

	if (ret != 0)
		return failed();
	snprintf(d, sizeof(d), "mode=%o size=%lld nlink=%lu ino=%lu",
		 (unsigned)st->st_mode, (long long)st->st_size,
		 (unsigned long)st->st_nlink, (unsigned long)st->st_ino);
	return ok(d, err);
}

static int stat64_result(int ret, const struct stat64 *st)
{
	struct stat s = { 0 };

	s.st_mode = st->st_mode;
	s.st_size = st->st_size;
	s.st_nlink = st->st_nlink;
	s.st_ino = st->st_ino;
	return stat_result(ret, &s);
}

static int int_result(int ret)
{
	int err = errno;

	return ret == 0 ? ok("-", err) : failed();
}

static int text_result(ssize_t n, char *buf)
{
	int err = errno;

	if (n < 0)
		return failed();
	buf[n] = '\0';
	return ok(buf, err);
}

static int path_result(char *r)
{
	int err = errno;

	return r ? ok(r, err) : failed();
}

static int do_stat(const char *p)
{
	struct stat st;
	struct stat64 st64;

	if (!strcmp(op, "stat"))
		return stat_result(stat(p, &st), &st);
	if (!strcmp(op, "stat64"))
		return stat64_result(stat64(p, &st64), &st64);
	if (!strcmp(op, "lstat"))
		return stat_result(lstat(p, &st), &st);
	if (!strcmp(op, "lstat64"))
		return stat64_result(lstat64(p, &st64), &st64);
	if (!strcmp(op, "fstatat"))
		return stat_result(fstatat(dirfd_, p, &st, atflags), &st);
	if (!strcmp(op, "fstatat64"))
		return stat64_result(fstatat64(dirfd_, p, &st64, atflags),
				     &st64);
	if (!strcmp(op, "__xstat"))
		return stat_result(__xstat(STAT_VER, p, &st), &st);
	if (!strcmp(op, "__xstat64"))
		return stat64_result(__xstat64(STAT_VER, p, &st64), &st64);
	if (!strcmp(op, "__lxstat"))
		return stat_result(__lxstat(STAT_VER, p, &st), &st);
	if (!strcmp(op, "__lxstat64"))
		return stat64_result(__lxstat64(STAT_VER, p, &st64), &st64);
	if (!strcmp(op, "__fxstatat"))
		return stat_result(
			__fxstatat(STAT_VER, dirfd_, p, &st, atflags), &st);
	if (!strcmp(op, "__fxstatat64"))
		return stat64_result(
			__fxstatat64(STAT_VER, dirfd_, p, &st64, atflags),
			&st64);
	return -1;
}

static int do_statx(const char *p)
{
	struct statx stx;
	struct stat st = { 0 };
	int ret = statx(dirfd_, p, atflags, STATX_BASIC_STATS, &stx);

	st.st_mode = stx.stx_mode;
	st.st_size = (off_t)stx.stx_size;
	st.st_nlink = stx.stx_nlink;
	st.st_ino = stx.stx_ino;
	return stat_result(ret, &st);
}

static int do_access(const char *p)
{
	if (!strcmp(op, "access"))
		return int_result(access(p, mode));
	if (!strcmp(op, "faccessat"))
		return int_result(faccessat(dirfd_, p, mode, atflags));
	if (!strcmp(op, "euidaccess"))
		return int_result(euidaccess(p, mode));
	if (!strcmp(op, "eaccess"))
		return int_result(eaccess(p, mode));
	return -1;
}

static int do_readlink(const char *p)
{
	char buf[PATH_MAX];
	size_t n = sizeof(buf) - 1;

	if (!strcmp(op, "readlink"))
		return text_result(readlink(p, buf, n), buf);
	if (!strcmp(op, "readlinkat"))
		return text_result(readlinkat(dirfd_, p, buf, n), buf);
	if (!strcmp(op, "__readlink_chk"))
		return text_result(__readlink_chk(p, buf, n, sizeof(buf)), buf);
	if (!strcmp(op, "__readlinkat_chk"))
		return text_result(
			__readlinkat_chk(dirfd_, p, buf, n, sizeof(buf)), buf);
	return -1;
}

static int do_realpath(const char *p)
{
	static char buf[PATH_MAX];

	if (!strcmp(op, "realpath"))
		return path_result(realpath(p, buf));
	if (!strcmp(op, "realpath-null"))
		return path_result(realpath(p, NULL));
	if (!strcmp(op, "realpath-old"))
		return path_result(realpath_old(p, buf));
	if (!strcmp(op, "realpath-old-null"))
		return path_result(realpath_old(p, NULL));
	if (!strcmp(op, "__realpath_chk"))
		return path_result(__realpath_chk(p, buf, sizeof(buf)));
	if (!strcmp(op, "canonicalize_file_name"))
		return path_result(canonicalize_file_name(p));
	return -1;
}

static int parse_mode(const char *m)
{
	int r = F_OK;

	for (; *m; m++)
		r |= *m == 'r' ? R_OK : *m == 'w' ? W_OK : *m == 'x' ? X_OK : 0;
	return r;
}

int main(int argc, char **argv)
{
	int (*const families[])(const char *) = {
		do_stat,
		do_access,
		do_readlink,
		do_realpath,
	};
	int c;

	while ((c = getopt(argc, argv, "d:f:")) != -1) {
		if (c == 'd')
			dirfd_ = (int)strtol(optarg, NULL, 10);
		else if (c == 'f' && !strcmp(optarg, "nofollow"))
			atflags |= AT_SYMLINK_NOFOLLOW;
		else if (c == 'f' && !strcmp(optarg, "empty"))
			atflags |= AT_EMPTY_PATH;
		else
			return 2;
	}
	if (argc - optind < 2)
		return 2;
	op = argv[optind];
	if (argc - optind > 2)
		mode = parse_mode(argv[optind + 2]);
	if (!strcmp(op, "statx")) {
		errno = 1234;
		return do_statx(argv[optind + 1]);
	}
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		int r;

		errno = 1234;
		r = families[i](argv[optind + 1]);
		if (r >= 0)
			return r;
	}
	fprintf(stderr, "shimdrive_stat: unknown operation %s\n", op);
	return 2;
}
