/*
 * shimdrive_change: call one function of the shim's create and change
 * families, once, the way a program would, and say what it returned.
 *
 *   shimdrive_change FUNCTION ARGS...     (shimdrive_change -h lists them)
 *
 * errno is set to 1234 just before the call.  Prints one line:
 *   "ok errno=N[ EXTRA]"  the call succeeded; N is errno after it (1234
 *                         when the call kept it), EXTRA what it made
 *   "fail ENAME"          the call failed with errno (or the returned
 *                         error number) ENAME
 * Exit status 0 on success, 1 on failure, 2 on misuse.
 *
 * A dirfd argument (D) is opened with a raw syscall (O_PATH), so that
 * setting it up never goes through the shim.  The old symbol versions
 * (dlopen@GLIBC_2.2.5, dlmopen@GLIBC_2.3.4, __xmknod) are called as a
 * binary built against an older glibc would.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#define SENTINEL 1234

/* NULL, hidden from the nonnull attributes of the headers. */
static const char *volatile no_path;

extern char **environ;

int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev);
int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev);
void *dlopen_old(const char *file, int mode);
void *dlmopen_old(Lmid_t lmid, const char *file, int mode);
__asm__(".symver dlopen_old,dlopen@GLIBC_2.2.5");
__asm__(".symver dlmopen_old,dlmopen@GLIBC_2.3.4");

static const char usage[] =
	"usage: shimdrive_change FUNCTION ARGS...\n"
	"  mkstemp|mkstemp64|mkostemp|mkostemp64|mkdtemp TEMPLATE\n"
	"  mkstemps|mkstemps64|mkostemps|mkostemps64 TEMPLATE SUFFIXLEN\n"
	"  tmpfile|tmpfile64\n"
	"  mkfifo|mknod|__xmknod|mkdir|unlink|rmdir|remove PATH\n"
	"  mkfifoat|mknodat|__xmknodat|mkdirat|unlinkat|unlinkat-rmdir D NAME\n"
	"  dlopen|dlopen@2.2.5|dlmopen|dlmopen@2.3.4 FILE\n"
	"  addopen-read|addopen-write PATH   (then spawn cat or echo)\n"
	"  rename|renameat2|renameat2-noreplace|renameat2-exchange OLD NEW\n"
	"  renameat OLDD OLD NEWD NEW\n"
	"  link|linkat|linkat-follow|linkat-fd|symlink OLD NEW\n"
	"  symlinkat TARGET D NAME\n"
	"  chmod|lchmod|fchmodat|fchmodat-nofollow PATH OCTAL\n"
	"  chown|lchown|fchownat|fchownat-nofollow PATH UID GID\n"
	"  utime|utimes|lutimes|utimensat|utimensat-nofollow PATH SECONDS\n"
	"  futimesat D NAME SECONDS\n"
	"  futimesat-null|utimensat-null FILE SECONDS   (the fd forms)\n"
	"  setxattr|lsetxattr PATH NAME VALUE\n"
	"  removexattr|lremovexattr PATH NAME\n";

static int dir_fd(const char *path)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path,
			      O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "shimdrive_change: %s: %s\n", path,
			strerror(errno));
		exit(2);
	}
	return fd;
}

static int file_fd(const char *path, int flags)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "shimdrive_change: %s: %s\n", path,
			strerror(errno));
		exit(2);
	}
	return fd;
}

static int report(int ok, int err, const char *extra)
{
	if (!ok) {
		printf("fail %s\n", strerrorname_np(err));
		return 1;
	}
	printf("ok errno=%d%s%s\n", err, extra ? " " : "", extra ? extra : "");
	return 0;
}

/* Call EXPR with errno at the sentinel; keep errno right after it. */
#define CALL(expr) (errno = SENTINEL, r = (expr), e = errno)

static int temp(const char *fn, char **a)
{
	int suffix = strstr(fn, "temps") ? (int)strtol(a[1], NULL, 10) : 0;
	long r;
	int e;

	if (!strcmp(fn, "mkstemp"))
		CALL(mkstemp(a[0]));
	else if (!strcmp(fn, "mkstemp64"))
		CALL(mkstemp64(a[0]));
	else if (!strcmp(fn, "mkostemp"))
		CALL(mkostemp(a[0], O_CLOEXEC));
	else if (!strcmp(fn, "mkostemp64"))
		CALL(mkostemp64(a[0], O_CLOEXEC));
	else if (!strcmp(fn, "mkstemps"))
		CALL(mkstemps(a[0], suffix));
	else if (!strcmp(fn, "mkstemps64"))
		CALL(mkstemps64(a[0], suffix));
	else if (!strcmp(fn, "mkostemps"))
		CALL(mkostemps(a[0], suffix, O_CLOEXEC));
	else if (!strcmp(fn, "mkostemps64"))
		CALL(mkostemps64(a[0], suffix, O_CLOEXEC));
	else if (!strcmp(fn, "mkdtemp"))
		CALL(mkdtemp(a[0]) ? 0 : -1);
	else
		return -1;
	return report(r >= 0, e, a[0]);
}

static int tmpf(const char *fn, char **a)
{
	FILE *f;
	int e;

	(void)a;
	errno = SENTINEL;
	f = strcmp(fn, "tmpfile") ? tmpfile64() : tmpfile();
	e = errno;
	return report(f != NULL, e, NULL);
}

static int dl(const char *fn, char **a)
{
	void *h;
	int e;

	errno = SENTINEL;
	if (!strcmp(fn, "dlopen"))
		h = dlopen(a[0], RTLD_NOW);
	else if (!strcmp(fn, "dlopen@2.2.5"))
		h = dlopen_old(a[0], RTLD_NOW);
	else if (!strcmp(fn, "dlmopen"))
		h = dlmopen(LM_ID_BASE, a[0], RTLD_NOW);
	else
		h = dlmopen_old(LM_ID_BASE, a[0], RTLD_NOW);
	e = errno;
	return report(h != NULL, e, NULL);
}

/* Register the open, then run cat (reading it) or echo (writing it). */
static int addopen(const char *fn, char **a)
{
	bool rd = !strcmp(fn, "addopen-read");
	char cat0[] = "cat", echo0[] = "echo", echo1[] = "spawned";
	char *cat[] = { cat0, NULL }, *echo[] = { echo0, echo1, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int ret, e, status;

	posix_spawn_file_actions_init(&fa);
	errno = SENTINEL;
	ret = posix_spawn_file_actions_addopen(
		&fa, rd ? 0 : 1, a[0],
		rd ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC, 0644);
	e = errno;
	if (ret)
		return report(0, ret, NULL);
	fflush(stdout);
	if (posix_spawn(&pid, rd ? "/bin/cat" : "/bin/echo", &fa, NULL,
			rd ? cat : echo, environ) ||
	    waitpid(pid, &status, 0) < 0 || status != 0)
		return report(0, EIO, NULL);
	return report(1, e, NULL);
}

static int path1(const char *fn, char **a)
{
	dev_t dev = 0;
	long r;
	int e;

	if (!strcmp(fn, "mkfifo"))
		CALL(mkfifo(a[0], 0644));
	else if (!strcmp(fn, "mknod"))
		CALL(mknod(a[0], S_IFIFO | 0644, 0));
	else if (!strcmp(fn, "__xmknod"))
		CALL(__xmknod(0, a[0], S_IFIFO | 0644, &dev));
	else if (!strcmp(fn, "mkdir"))
		CALL(mkdir(a[0], 0755));
	else if (!strcmp(fn, "unlink"))
		CALL(unlink(a[0]));
	else if (!strcmp(fn, "rmdir"))
		CALL(rmdir(a[0]));
	else if (!strcmp(fn, "remove"))
		CALL(remove(a[0]));
	else
		return -1;
	return report(r == 0, e, NULL);
}

static int at1(const char *fn, char **a)
{
	int d = dir_fd(a[0]);
	dev_t dev = 0;
	long r;
	int e;

	if (!strcmp(fn, "mkfifoat"))
		CALL(mkfifoat(d, a[1], 0644));
	else if (!strcmp(fn, "mknodat"))
		CALL(mknodat(d, a[1], S_IFIFO | 0644, 0));
	else if (!strcmp(fn, "__xmknodat"))
		CALL(__xmknodat(0, d, a[1], S_IFIFO | 0644, &dev));
	else if (!strcmp(fn, "mkdirat"))
		CALL(mkdirat(d, a[1], 0755));
	else if (!strcmp(fn, "unlinkat"))
		CALL(unlinkat(d, a[1], 0));
	else if (!strcmp(fn, "unlinkat-rmdir"))
		CALL(unlinkat(d, a[1], AT_REMOVEDIR));
	else
		return -1;
	return report(r == 0, e, NULL);
}

static int path2(const char *fn, char **a)
{
	long r;
	int e;

	if (!strcmp(fn, "rename"))
		CALL(rename(a[0], a[1]));
	else if (!strcmp(fn, "renameat2"))
		CALL(renameat2(AT_FDCWD, a[0], AT_FDCWD, a[1], 0));
	else if (!strcmp(fn, "renameat2-noreplace"))
		CALL(renameat2(AT_FDCWD, a[0], AT_FDCWD, a[1],
			       RENAME_NOREPLACE));
	else if (!strcmp(fn, "renameat2-exchange"))
		CALL(renameat2(AT_FDCWD, a[0], AT_FDCWD, a[1],
			       RENAME_EXCHANGE));
	else if (!strcmp(fn, "link"))
		CALL(link(a[0], a[1]));
	else if (!strcmp(fn, "linkat"))
		CALL(linkat(AT_FDCWD, a[0], AT_FDCWD, a[1], 0));
	else if (!strcmp(fn, "linkat-follow"))
		CALL(linkat(AT_FDCWD, a[0], AT_FDCWD, a[1], AT_SYMLINK_FOLLOW));
	else if (!strcmp(fn, "linkat-fd"))
		CALL(linkat(file_fd(a[0], O_RDONLY), "", AT_FDCWD, a[1],
			    AT_EMPTY_PATH));
	else if (!strcmp(fn, "symlink"))
		CALL(symlink(a[0], a[1]));
	else
		return -1;
	return report(r == 0, e, NULL);
}

static int mode(const char *fn, char **a)
{
	mode_t m = (mode_t)strtoul(a[1], NULL, 8);
	long r;
	int e;

	if (!strcmp(fn, "chmod"))
		CALL(chmod(a[0], m));
	else if (!strcmp(fn, "lchmod"))
		CALL(lchmod(a[0], m));
	else if (!strcmp(fn, "fchmodat"))
		CALL(fchmodat(AT_FDCWD, a[0], m, 0));
	else if (!strcmp(fn, "fchmodat-nofollow"))
		CALL(fchmodat(AT_FDCWD, a[0], m, AT_SYMLINK_NOFOLLOW));
	else
		return -1;
	return report(r == 0, e, NULL);
}

static int owner(const char *fn, char **a)
{
	uid_t u = (uid_t)strtoul(a[1], NULL, 10);
	gid_t g = (gid_t)strtoul(a[2], NULL, 10);
	long r;
	int e;

	if (!strcmp(fn, "chown"))
		CALL(chown(a[0], u, g));
	else if (!strcmp(fn, "lchown"))
		CALL(lchown(a[0], u, g));
	else if (!strcmp(fn, "fchownat"))
		CALL(fchownat(AT_FDCWD, a[0], u, g, 0));
	else if (!strcmp(fn, "fchownat-nofollow"))
		CALL(fchownat(AT_FDCWD, a[0], u, g, AT_SYMLINK_NOFOLLOW));
	else
		return -1;
	return report(r == 0, e, NULL);
}

/* Set both times of a[0] (or of the fd forms' file) to @secs. */
static int times(const char *fn, char **a)
{
	long secs = strtol(a[1], NULL, 10);
	struct utimbuf ub = { .actime = secs, .modtime = secs };
	struct timeval tv[2] = { { .tv_sec = secs }, { .tv_sec = secs } };
	struct timespec ts[2] = { { .tv_sec = secs }, { .tv_sec = secs } };
	long r;
	int e;

	if (!strcmp(fn, "utime"))
		CALL(utime(a[0], &ub));
	else if (!strcmp(fn, "utimes"))
		CALL(utimes(a[0], tv));
	else if (!strcmp(fn, "lutimes"))
		CALL(lutimes(a[0], tv));
	else if (!strcmp(fn, "utimensat"))
		CALL(utimensat(AT_FDCWD, a[0], ts, 0));
	else if (!strcmp(fn, "utimensat-nofollow"))
		CALL(utimensat(AT_FDCWD, a[0], ts, AT_SYMLINK_NOFOLLOW));
	else if (!strcmp(fn, "futimesat-null"))
		CALL(futimesat(file_fd(a[0], O_RDONLY), no_path, tv));
	else if (!strcmp(fn, "utimensat-null"))
		CALL(utimensat(file_fd(a[0], O_RDONLY), no_path, ts, 0));
	else
		return -1;
	return report(r == 0, e, NULL);
}

static int xattr(const char *fn, char **a)
{
	long r;
	int e;

	if (!strcmp(fn, "setxattr"))
		CALL(setxattr(a[0], a[1], a[2], strlen(a[2]), 0));
	else if (!strcmp(fn, "lsetxattr"))
		CALL(lsetxattr(a[0], a[1], a[2], strlen(a[2]), 0));
	else if (!strcmp(fn, "removexattr"))
		CALL(removexattr(a[0], a[1]));
	else if (!strcmp(fn, "lremovexattr"))
		CALL(lremovexattr(a[0], a[1]));
	else
		return -1;
	return report(r == 0, e, NULL);
}

static int renameat_(const char *fn, char **a)
{
	long r;
	int e;

	(void)fn;
	CALL(renameat(dir_fd(a[0]), a[1], dir_fd(a[2]), a[3]));
	return report(r == 0, e, NULL);
}

static int symlinkat_(const char *fn, char **a)
{
	long r;
	int e;

	(void)fn;
	CALL(symlinkat(a[0], dir_fd(a[1]), a[2]));
	return report(r == 0, e, NULL);
}

static int futimesat_(const char *fn, char **a)
{
	struct timeval tv[2] = { { .tv_sec = strtol(a[2], NULL, 10) },
				 { .tv_sec = strtol(a[2], NULL, 10) } };
	long r;
	int e;

	(void)fn;
	CALL(futimesat(dir_fd(a[0]), a[1], tv));
	return report(r == 0, e, NULL);
}

static const struct cmd {
	const char *name;
	int nargs;
	int (*fn)(const char *fn, char **a);
} cmds[] = {
	{ "mkstemp", 1, temp },
	{ "mkstemp64", 1, temp },
	{ "mkostemp", 1, temp },
	{ "mkostemp64", 1, temp },
	{ "mkstemps", 2, temp },
	{ "mkstemps64", 2, temp },
	{ "mkostemps", 2, temp },
	{ "mkostemps64", 2, temp },
	{ "mkdtemp", 1, temp },
	{ "tmpfile", 0, tmpf },
	{ "tmpfile64", 0, tmpf },
	{ "dlopen", 1, dl },
	{ "dlopen@2.2.5", 1, dl },
	{ "dlmopen", 1, dl },
	{ "dlmopen@2.3.4", 1, dl },
	{ "addopen-read", 1, addopen },
	{ "addopen-write", 1, addopen },
	{ "mkfifo", 1, path1 },
	{ "mknod", 1, path1 },
	{ "__xmknod", 1, path1 },
	{ "mkdir", 1, path1 },
	{ "unlink", 1, path1 },
	{ "rmdir", 1, path1 },
	{ "remove", 1, path1 },
	{ "mkfifoat", 2, at1 },
	{ "mknodat", 2, at1 },
	{ "__xmknodat", 2, at1 },
	{ "mkdirat", 2, at1 },
	{ "unlinkat", 2, at1 },
	{ "unlinkat-rmdir", 2, at1 },
	{ "rename", 2, path2 },
	{ "renameat", 4, renameat_ },
	{ "renameat2", 2, path2 },
	{ "renameat2-noreplace", 2, path2 },
	{ "renameat2-exchange", 2, path2 },
	{ "link", 2, path2 },
	{ "linkat", 2, path2 },
	{ "linkat-follow", 2, path2 },
	{ "linkat-fd", 2, path2 },
	{ "symlink", 2, path2 },
	{ "symlinkat", 3, symlinkat_ },
	{ "chmod", 2, mode },
	{ "lchmod", 2, mode },
	{ "fchmodat", 2, mode },
	{ "fchmodat-nofollow", 2, mode },
	{ "chown", 3, owner },
	{ "lchown", 3, owner },
	{ "fchownat", 3, owner },
	{ "fchownat-nofollow", 3, owner },
	{ "utime", 2, times },
	{ "utimes", 2, times },
	{ "lutimes", 2, times },
	{ "utimensat", 2, times },
	{ "utimensat-nofollow", 2, times },
	{ "futimesat", 3, futimesat_ },
	{ "futimesat-null", 2, times },
	{ "utimensat-null", 2, times },
	{ "setxattr", 3, xattr },
	{ "lsetxattr", 3, xattr },
	{ "removexattr", 2, xattr },
	{ "lremovexattr", 2, xattr },
};

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name) && argc - 2 == cmds[i].nargs)
			return cmds[i].fn(argv[1], argv + 2);
	fputs(usage, stderr);
	return 2;
}
