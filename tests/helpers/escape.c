/*
 * escape.c - one escape attempt per call, by the system call itself (no
 * libc wrapper the shim could see), for tests/integration/t_escape.sh.
 *
 *   escape ACTION ARG...
 *
 *   tiocsti TEXT              push TEXT into the input of the tty on fd 0
 *   uring-create PATH         create PATH through io_uring (IORING_OP_OPENAT)
 *   add-key DESC              add a "user" key DESC to the user keyring
 *   find-key DESC             look DESC up in the user keyring
 *   unlink-key DESC           remove it
 *   sethostname NAME          set the hostname
 *   chown PATH UID            change the owner of PATH
 *   write PATH TEXT           open PATH O_WRONLY|O_TRUNC and write TEXT
 *   read PATH                 open PATH O_RDONLY, print what a read gives
 *   truncate PATH             truncate(2) PATH to 0 bytes, by its name
 *   reopen-write PATH TEXT    open PATH O_PATH, then reopen it for writing
 *                             through /proc/self/fd/N and write TEXT
 *   by-handle PATH            open PATH through name_to_handle_at and
 *                             open_by_handle_at, print its first line
 *   mount-tmpfs DIR           mount a tmpfs on DIR
 *   prlimit PID N             set PID's open-file limit to N
 *   setprio PID N             set PID's nice value to N
 *   memfd-exec PROG ARG...    copy PROG into a memfd and execute that,
 *                             with PROG as its argv[0]
 *   link SRC DST, rename SRC DST
 *   int80-creat PATH          creat() through the 32-bit system call gate
 *   chmod PATH MODE           change the mode (octal)
 *   utimes PATH               set the times to the epoch
 *   setxattr PATH             set the attribute user.cordon
 *
 * Prints "ok" or "fail ENAME" (or what the action read); exit 0 when the
 * action succeeded, 1 when it failed, 2 on usage.
 */
#include <errno.h>
#include <fcntl.h>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <liburing.h>
#pragma GCC diagnostic pop
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>
#include <linux/keyctl.h>

static long num(const char *s)
{
	return strtol(s, NULL, 10);
}

static int done(long ret)
{
	if (ret < 0) {
		const char *n = strerrorname_np(errno);

		printf("fail %s\n", n ? n : "?");
		return 1;
	}
	printf("ok\n");
	return 0;
}

static int uring_create(const char *path)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int ret = io_uring_queue_init(4, &ring, 0);

	if (ret < 0) {
		errno = -ret;
		return done(-1);
	}
	sqe = io_uring_get_sqe(&ring);
	if (!sqe)
		return done(-1);
	io_uring_prep_openat(sqe, AT_FDCWD, path, O_CREAT | O_WRONLY, 0644);
	io_uring_submit(&ring);
	ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret == 0) {
		ret = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	if (ret < 0) {
		errno = -ret;
		return done(-1);
	}
	return done(0);
}

static long key_find(const char *desc)
{
	return syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user",
		       desc, 0);
}

static int reopen_write(const char *path, const char *text)
{
	char proc[64];
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_PATH);
	int w;

	if (fd < 0)
		return done(-1);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	w = (int)syscall(SYS_openat, AT_FDCWD, proc, O_WRONLY | O_TRUNC);
	if (w < 0)
		return done(-1);
	return done(syscall(SYS_write, w, text, strlen(text)));
}

static int by_handle(const char *path)
{
	struct {
		struct file_handle h;
		unsigned char bytes[MAX_HANDLE_SZ];
	} fh;
	char buf[256] = "";
	int mount_id, mfd, fd;
	ssize_t n;

	fh.h.handle_bytes = MAX_HANDLE_SZ;
	if (syscall(SYS_name_to_handle_at, AT_FDCWD, path, &fh.h, &mount_id,
		    0) < 0)
		return done(-1);
	mfd = (int)syscall(SYS_openat, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY);
	if (mfd < 0)
		return done(-1);
	fd = (int)syscall(SYS_open_by_handle_at, mfd, &fh.h, O_RDONLY);
	if (fd < 0)
		return done(-1);
	n = read(fd, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		printf("%s\n", buf);
	}
	return done(n);
}

static int memfd_exec(char **argv)
{
	struct stat st;
	int in = open(argv[0], O_RDONLY);
	int fd = (int)syscall(SYS_memfd_create, "escape", 0);
	extern char **environ;

	if (in < 0 || fd < 0 || fstat(in, &st) < 0 ||
	    sendfile(fd, in, NULL, (size_t)st.st_size) != st.st_size)
		return done(-1);
	syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
	return done(-1);
}

/* creat(path, 0644) through int 0x80: i386 system call 8. */
static int int80_creat(const char *path)
{
	long ret;
	void *low =
		mmap((void *)0x100000, 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	/* the 32-bit gate takes 32-bit pointers: copy the path low */
	if (low == MAP_FAILED)
		return done(-1);
	strncpy(low, path, 4095);
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(8L), "b"(low), "c"(0644L)
			 : "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return done(-1);
	}
	return done(0);
}

int main(int argc, char **argv)
{
	const char *a = argc > 1 ? argv[1] : "";
	int n = argc - 2;
	char **v = argv + 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(a, "tiocsti") && n == 1) {
		for (const char *s = v[0]; *s; s++)
			if (syscall(SYS_ioctl, 0, TIOCSTI, s) < 0)
				return done(-1);
		return done(0);
	}
	if (!strcmp(a, "uring-create") && n == 1)
		return uring_create(v[0]);
	if (!strcmp(a, "add-key") && n == 1)
		return done(syscall(SYS_add_key, "user", v[0], "s3cr3t", 6,
				    KEY_SPEC_USER_KEYRING));
	if (!strcmp(a, "find-key") && n == 1)
		return done(key_find(v[0]));
	if (!strcmp(a, "unlink-key") && n == 1) {
		long k = key_find(v[0]);

		return done(k < 0 ? k
				  : syscall(SYS_keyctl, KEYCTL_UNLINK, k,
					    KEY_SPEC_USER_KEYRING));
	}
	if (!strcmp(a, "sethostname") && n == 1)
		return done(syscall(SYS_sethostname, v[0], strlen(v[0])));
	if (!strcmp(a, "chown") && n == 2)
		return done(syscall(SYS_fchownat, AT_FDCWD, v[0], num(v[1]), -1,
				    0));
	if (!strcmp(a, "write") && n == 2) {
		int fd = (int)syscall(SYS_openat, AT_FDCWD, v[0],
				      O_WRONLY | O_TRUNC);

		return done(
			fd < 0 ? -1
			       : syscall(SYS_write, fd, v[1], strlen(v[1])));
	}
	if (!strcmp(a, "read") && n == 1) {
		char buf[256];
		int fd = (int)syscall(SYS_openat, AT_FDCWD, v[0], O_RDONLY);
		long got =
			fd < 0 ? -1 : syscall(SYS_read, fd, buf, sizeof(buf));

		if (got > 0)
			syscall(SYS_write, 1, buf, got);
		return done(got < 0 ? -1 : 0);
	}
	if (!strcmp(a, "truncate") && n == 1)
		return done(syscall(SYS_truncate, v[0], 0));
	if (!strcmp(a, "reopen-write") && n == 2)
		return reopen_write(v[0], v[1]);
	if (!strcmp(a, "by-handle") && n == 1)
		return by_handle(v[0]);
	if (!strcmp(a, "mount-tmpfs") && n == 1)
		return done(syscall(SYS_mount, "none", v[0], "tmpfs", 0, NULL));
	if (!strcmp(a, "prlimit") && n == 2) {
		struct rlimit r = { (rlim_t)num(v[1]), (rlim_t)num(v[1]) };

		return done(syscall(SYS_prlimit64, num(v[0]), RLIMIT_NOFILE, &r,
				    NULL));
	}
	if (!strcmp(a, "setprio") && n == 2)
		return done(syscall(SYS_setpriority, PRIO_PROCESS, num(v[0]),
				    num(v[1])));
	if (!strcmp(a, "memfd-exec") && n >= 1)
		return memfd_exec(v);
	if (!strcmp(a, "link") && n == 2)
		return done(
			syscall(SYS_linkat, AT_FDCWD, v[0], AT_FDCWD, v[1], 0));
	if (!strcmp(a, "rename") && n == 2)
		return done(
			syscall(SYS_renameat, AT_FDCWD, v[0], AT_FDCWD, v[1]));
	if (!strcmp(a, "chmod") && n == 2)
		return done(syscall(SYS_fchmodat, AT_FDCWD, v[0],
				    strtol(v[1], NULL, 8)));
	if (!strcmp(a, "utimes") && n == 1) {
		struct timespec ts[2] = { { 0, 0 }, { 0, 0 } };

		return done(syscall(SYS_utimensat, AT_FDCWD, v[0], ts, 0));
	}
	if (!strcmp(a, "setxattr") && n == 1)
		return done(
			syscall(SYS_setxattr, v[0], "user.cordon", "x", 1, 0));
	if (!strcmp(a, "int80-creat") && n == 1)
		return int80_creat(v[0]);
	fprintf(stderr, "usage: escape ACTION ARG... (see escape.c)\n");
	return 2;
}
