/*
 * compat_darwin.c - the Linux system calls of the shared sources, made with
 * Darwin's own calls (see compat/linux_compat.h).  Linked into the
 * launcher and into libcordon.dylib.
 *
 * Each keeps the Linux convention: -1 with errno set on failure.  They
 * run where the Linux originals run, inside hooks and between vfork and
 * exec: no malloc, no locks, no stdio, only the stack.  Inside the dylib
 * the libSystem functions called here are the real ones, never the
 * shim's hooks (dyld does not interpose an image's own calls).
 */
#include <errno.h>
#include <libproc.h>
#include <limits.h>
#include <string.h>
#include <sys/param.h>

#include "shim/core/path.h"

#define FD_LINK "/proc/self/fd/"

/* fstatat(); AT_EMPTY_PATH on "" is the descriptor itself. */
long cordon_SYS_newfstatat(int dirfd, const char *path, struct stat *st,
			   int flags)
{
	if ((flags & AT_EMPTY_PATH) && path && !path[0])
		return fstat(dirfd, st);
	return fstatat(dirfd, path, st, flags & ~AT_EMPTY_PATH);
}

long cordon_SYS_statfs(const char *path, struct statfs *sf)
{
	return statfs(path, sf);
}

/* Copy @src (a NUL-terminated path) as readlink(2) would: truncated to
 * @len, no NUL added; its length. */
static long as_link(const char *src, char *buf, size_t len)
{
	size_t n = strlen(src);

	if (n > len)
		n = len;
	memcpy(buf, src, n);
	return (long)n;
}

/* The file of an open descriptor: F_GETPATH, into a MAXPATHLEN buffer. */
static long fd_link(const char *digits, char *buf, size_t len)
{
	char path[MAXPATHLEN];
	long fd = 0;
	const char *d = digits;

	while (*d >= '0' && *d <= '9' && fd <= INT_MAX / 10)
		fd = fd * 10 + (*d++ - '0');
	if (d == digits || *d) {
		errno = ENOENT; /* no such link in /proc/self/fd */
		return -1;
	}
	if (fcntl((int)fd, F_GETPATH, path) < 0)
		return -1;
	return as_link(path, buf, len);
}

/*
 * readlinkat(), and the two /proc links the shared sources read:
 * /proc/self/fd/N (the path of a descriptor) and /proc/self/exe (the
 * running program).  Darwin has no /proc; the same facts come from
 * fcntl(F_GETPATH) and proc_pidpath().
 */
long cordon_SYS_readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	char exe[PROC_PIDPATHINFO_MAXSIZE];

	if (strncmp(path, FD_LINK, sizeof(FD_LINK) - 1) == 0)
		return fd_link(path + sizeof(FD_LINK) - 1, buf, len);
	if (strcmp(path, "/proc/self/exe") == 0) {
		if (proc_pidpath(getpid(), exe, sizeof(exe)) <= 0)
			return -1;
		return as_link(exe, buf, len);
	}
	return readlinkat(dirfd, path, buf, len);
}

/* The kernel's getcwd returns the length with the NUL. */
long cordon_SYS_getcwd(char *buf, size_t len)
{
	if (!getcwd(buf, len))
		return -1;
	return (long)strlen(buf) + 1;
}

long cordon_SYS_openat(int dirfd, const char *path, int flags, int mode)
{
	return openat(dirfd, path, flags, mode);
}

/*
 * No openat2 on Darwin.  O_NOFOLLOW_ANY (macOS 11) would answer "no
 * symlink on the way", but only by opening the file, which a FIFO or a
 * device must not see; ENOSYS sends check.c to the full resolution.
 */
long cordon_SYS_openat2(int dirfd, const char *path, const struct open_how *how,
			size_t len)
{
	(void)dirfd;
	(void)path;
	(void)how;
	(void)len;
	errno = ENOSYS;
	return -1;
}

long cordon_SYS_close(long fd)
{
	return close((int)fd);
}

long cordon_SYS_pread64(long fd, void *buf, size_t len, off_t off)
{
	return pread((int)fd, buf, len, off);
}

long cordon_SYS_write(long fd, const void *buf, size_t len)
{
	return write((int)fd, buf, len);
}

long cordon_SYS_getpid(void)
{
	return getpid();
}

long cordon_SYS_getppid(void)
{
	return getppid();
}

long cordon_SYS_clock_gettime(clockid_t clock, struct timespec *ts)
{
	return clock_gettime(clock, ts);
}

/*
 * SOCK_CLOEXEC and SOCK_NONBLOCK set after the fact: Darwin's socket()
 * takes no flags.  The close-on-exec flag follows a moment later, so a
 * fork and exec by another thread in between may inherit the socket;
 * the shim's report sockets live for one send only.
 */
int cordon_socket(int domain, int type, int protocol)
{
	int fd = (socket)(domain, type & ~(SOCK_CLOEXEC | SOCK_NONBLOCK),
			  protocol);
	int saved;

	if (fd < 0)
		return -1;
	if (((type & SOCK_CLOEXEC) && fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) ||
	    ((type & SOCK_NONBLOCK) &&
	     fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

long cordon_SYS_socket(int domain, int type, int protocol)
{
	return cordon_socket(domain, type, protocol);
}

long cordon_SYS_setsockopt(long fd, int level, int name, const void *val,
			   size_t len)
{
	return setsockopt((int)fd, level, name, val, (socklen_t)len);
}

long cordon_SYS_sendto(long fd, const void *buf, size_t len, int flags,
		       const void *addr, size_t alen)
{
	return sendto((int)fd, buf, len, flags, (const struct sockaddr *)addr,
		      (socklen_t)alen);
}

/* No pidfd: enforce/report/supervise.c then polls for the child's end. */
long cordon_SYS_pidfd_open(pid_t pid, unsigned int flags)
{
	(void)pid;
	(void)flags;
	errno = ENOSYS;
	return -1;
}
