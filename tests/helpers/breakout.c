/*
 * breakout.c - what a sandboxed program tries against the host, by
 * system calls alone (no libc wrapper the shim could see; linked
 * static), for t_guarantees.sh: each effect is then checked from
 * outside, and each call is also made bare (its twin).
 *
 *   breakout copy FROM TO          read FROM, write what it held to TO
 *   breakout write FILE TEXT       write TEXT at the start of FILE
 *   breakout create FILE           create FILE (it must not exist)
 *   breakout truncate FILE         truncate FILE to 0 bytes, by name
 *   breakout kill PID              send SIGTERM to PID
 *   breakout shm-create KEY TEXT   a SysV segment KEY (0600) holding TEXT
 *   breakout shm-write KEY TEXT    attach the existing segment KEY, write
 *   breakout shm-read KEY          print what segment KEY holds
 *   breakout shm-rm KEY            remove segment KEY
 *
 * Prints "ok" (shm-read: the text first) or "fail ENAME"; exit 0 when
 * the action succeeded, 1 when it failed, 2 on usage.  KEY is a number.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SHM_SIZE 4096

static int fail(void)
{
	printf("fail %s\n",
	       strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	return 1;
}

static int ok(void)
{
	printf("ok\n");
	return 0;
}

static int copy(const char *from, const char *to)
{
	char buf[4096];
	long n;
	int in, out;

	in = (int)syscall(SYS_openat, AT_FDCWD, from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return fail();
	n = syscall(SYS_read, in, buf, sizeof(buf));
	if (n < 0)
		return fail();
	out = (int)syscall(SYS_openat, AT_FDCWD, to,
			   O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0 || syscall(SYS_write, out, buf, n) != n)
		return fail();
	return ok();
}

static int write_at_start(const char *file, const char *text)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, file, O_WRONLY | O_CLOEXEC);
	long n = (long)strlen(text);

	if (fd < 0 || syscall(SYS_write, fd, text, n) != n)
		return fail();
	return ok();
}

static int create(const char *file)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, file,
			      O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	return fd < 0 ? fail() : ok();
}

static int shm(const char *what, key_t key, const char *text)
{
	int create = strcmp(what, "shm-create") == 0;
	int id = (int)syscall(SYS_shmget, key, SHM_SIZE,
			      create ? IPC_CREAT | IPC_EXCL | 0600 : 0);
	char *at;

	if (id < 0)
		return fail();
	if (strcmp(what, "shm-rm") == 0)
		return syscall(SYS_shmctl, id, IPC_RMID, NULL) < 0 ? fail()
								   : ok();
	at = (char *)syscall(SYS_shmat, id, NULL, 0);
	if (at == (char *)-1)
		return fail();
	if (strcmp(what, "shm-read") == 0)
		printf("%.*s\n", SHM_SIZE - 1, at);
	else
		memcpy(at, text, strlen(text) + 1);
	return ok();
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (argc == 4 && strcmp(what, "copy") == 0)
		return copy(argv[2], argv[3]);
	if (argc == 4 && strcmp(what, "write") == 0)
		return write_at_start(argv[2], argv[3]);
	if (argc == 3 && strcmp(what, "create") == 0)
		return create(argv[2]);
	if (argc == 3 && strcmp(what, "truncate") == 0)
		return syscall(SYS_truncate, argv[2], 0) < 0 ? fail() : ok();
	if (argc == 3 && strcmp(what, "kill") == 0)
		return syscall(SYS_kill, (pid_t)strtol(argv[2], NULL, 10),
			       SIGTERM) < 0
			       ? fail()
			       : ok();
	if ((argc == 4 && (strcmp(what, "shm-create") == 0 ||
			   strcmp(what, "shm-write") == 0)) ||
	    (argc == 3 &&
	     (strcmp(what, "shm-read") == 0 || strcmp(what, "shm-rm") == 0)))
		return shm(what, (key_t)strtol(argv[2], NULL, 0),
			   argc == 4 ? argv[3] : "");
	fprintf(stderr, "usage: breakout copy|write|create|truncate|kill|"
			"shm-create|shm-write|shm-read|shm-rm ARGS...\n");
	return 2;
}
