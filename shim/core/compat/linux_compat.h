/*
 * linux_compat.h - the few Linux interfaces the shared sources use, on
 * Darwin.  The Makefile forces it into every Darwin compile (-include);
 * the Linux build never sees it.
 *
 * The files the launcher and the shim share (shim/path.c, check.c,
 * init.c, report.c, report_net.c, audit.c; enforce/report/supervise.c and
 * spawn.c) reach the kernel through syscall(SYS_x, ...), because a libc
 * wrapper there could be the shim's own hook.  On Darwin syscall(2) is
 * deprecated and its numbers differ, and no such detour is needed: the
 * image that interposes calls the real libSystem functions (dyld applies
 * an image's interposing to the other images only).  So each
 * syscall(SYS_x, ...) becomes cordon_SYS_x(...) (compat_darwin.c), the Darwin
 * call with the Linux convention (-1 and errno on failure).  A shared
 * file that starts using another system call does not build here: an
 * undeclared cordon_SYS_..., on the first Mac build, not a silent gap.
 *
 * The headers Darwin lacks (<linux/magic.h>, <linux/openat2.h>,
 * <sys/vfs.h>) come from this directory, searched after the system's
 * (-idirafter).
 */
#ifndef CORDON_LINUX_COMPAT_H
#define CORDON_LINUX_COMPAT_H

/* Declared before the macros below, so that the system's prototypes of
 * syscall() and socket() are read as they are. */
#include <fcntl.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

struct open_how;

/* glibc declares environ in <unistd.h> under _GNU_SOURCE; Darwin does
 * not, and a dylib cannot link against it at all (environ(7)): there it
 * is read through _NSGetEnviron(), every time (its value changes). */
#ifdef CORDON_DYLIB
#include <crt_externs.h>
#define environ (*_NSGetEnviron())
#else
extern char **environ;
#endif

/* Flags Darwin lacks, read only by the functions below: high bits that
 * none of Darwin's own AT_* or SOCK_* values uses. */
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x40000000
#endif
#ifndef SOCK_CLOEXEC
#define SOCK_CLOEXEC 0x10000000
#endif
#ifndef SOCK_NONBLOCK
#define SOCK_NONBLOCK 0x20000000
#endif

#define syscall(nr, ...) cordon_##nr(__VA_ARGS__)

long cordon_SYS_newfstatat(int dirfd, const char *path, struct stat *st,
			   int flags);
long cordon_SYS_statfs(const char *path, struct statfs *sf);
long cordon_SYS_readlinkat(int dirfd, const char *path, char *buf, size_t len);
long cordon_SYS_getcwd(char *buf, size_t len);
long cordon_SYS_openat(int dirfd, const char *path, int flags, int mode);
long cordon_SYS_openat2(int dirfd, const char *path, const struct open_how *how,
			size_t len);
long cordon_SYS_close(long fd);
long cordon_SYS_pread64(long fd, void *buf, size_t len, off_t off);
long cordon_SYS_write(long fd, const void *buf, size_t len);
long cordon_SYS_getpid(void);
long cordon_SYS_getppid(void);
long cordon_SYS_clock_gettime(clockid_t clock, struct timespec *ts);
long cordon_SYS_socket(int domain, int type, int protocol);
long cordon_SYS_setsockopt(long fd, int level, int name, const void *val,
			   size_t len);
long cordon_SYS_sendto(long fd, const void *buf, size_t len, int flags,
		       const void *addr, size_t alen);
long cordon_SYS_pidfd_open(pid_t pid, unsigned int flags);

/* socket() with SOCK_CLOEXEC and SOCK_NONBLOCK, as Linux takes them. */
int cordon_socket(int domain, int type, int protocol);
#define socket(domain, type, protocol) cordon_socket(domain, type, protocol)

#endif
