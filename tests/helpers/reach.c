/*
 * reach.c - reach into another process or the host's IPC, by system
 * calls (no libc wrapper the shim could see), for t_isolate.sh.
 *
 *   reach environ PID          print PID's /proc environ, a line each
 *   reach mem PID              read 16 bytes of PID's memory
 *   reach fds PID              PID's descriptors (its /proc fd directory)
 *                              that this process does not have open: what
 *                              PID holds beyond what it passed on
 *   reach getfds PID           take every descriptor of PID with
 *                              pidfd_getfd(2); into each regular file
 *                              taken, append "forged" and truncate it
 *   reach ptrace PID           PTRACE_ATTACH to PID (then detach)
 *   reach shm-create KEY TEXT  a SysV segment KEY holding TEXT
 *   reach shm-write KEY TEXT   write TEXT into the existing segment KEY
 *   reach shm-read KEY         print what segment KEY holds
 *   reach shm-rm KEY           remove it
 *   reach msg-create KEY       a SysV message queue KEY
 *   reach msg-send KEY TEXT    send TEXT to the existing queue KEY
 *   reach msg-count KEY        print how many messages it holds
 *   reach msg-rm KEY           remove it
 *
 * Prints "ok" or "fail ENAME" after what it read; exit 0 when the action
 * succeeded, 1 when it failed, 2 on usage.  KEY is a number (0x... ok).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

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

static long num(const char *s)
{
	return strtol(s, NULL, 0);
}

static int proc_open(const char *pid, const char *what)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, what);
	return (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
}

static int environ_of(const char *pid)
{
	char buf[65536];
	int fd = proc_open(pid, "environ");
	ssize_t n;

	if (fd < 0)
		return done(-1);
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return done(-1);
	for (ssize_t i = 0; i < n; i++)
		putchar(buf[i] ? buf[i] : '\n');
	return done(0);
}

static int mem_of(const char *pid)
{
	char buf[16];
	int fd = proc_open(pid, "mem");

	if (fd < 0)
		return done(-1);
	/* the first page of a program is mapped at no fixed place: any
	 * error but EIO (nothing mapped there) means the read was let in */
	if (pread(fd, buf, sizeof(buf), 0x400000) < 0 && errno != EIO)
		return done(-1);
	return done(0);
}

static int fds_of(const char *pid)
{
	int fd = proc_open(pid, "fd");
	DIR *d;
	struct dirent *e;

	if (fd < 0 || !(d = fdopendir(fd)))
		return done(-1);
	for (;;) {
		errno = 0;
		e = readdir(d);
		if (!e)
			return done(errno ? -1 : 0);
		if (e->d_name[0] != '.' &&
		    fcntl((int)num(e->d_name), F_GETFD) < 0)
			printf("fd %s\n", e->d_name);
	}
}

static int getfds(long pid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), taken = 0, err = 0;
	struct stat st;

	if (pidfd < 0)
		return done(-1);
	for (int fd = 0; fd < 256; fd++) {
		int got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);

		if (got < 0) {
			if (errno != EBADF)
				err = errno;
			continue;
		}
		taken++;
		printf("took %d\n", fd);
		if (fstat(got, &st) == 0 && S_ISREG(st.st_mode)) {
			if (write(got, "forged\n", 7) == 7)
				printf("wrote into %d\n", fd);
			if (ftruncate(got, 0) == 0)
				printf("truncated %d\n", fd);
		}
		close(got);
	}
	if (taken)
		return done(0);
	errno = err ? err : EBADF;
	return done(-1);
}

static int trace(long pid)
{
	if (ptrace(PTRACE_ATTACH, (pid_t)pid, NULL, NULL) < 0)
		return done(-1);
	waitpid((pid_t)pid, NULL, __WALL);
	ptrace(PTRACE_DETACH, (pid_t)pid, NULL, NULL);
	return done(0);
}

static int shm(const char *how, long key, const char *text)
{
	bool create = !strcmp(how, "shm-create");
	int id = shmget((key_t)key, create ? 4096 : 0,
			create ? IPC_CREAT | IPC_EXCL | 0600 : 0);
	char *mem;

	if (id < 0)
		return done(-1);
	if (!strcmp(how, "shm-rm"))
		return done(shmctl(id, IPC_RMID, NULL));
	mem = shmat(id, NULL, text ? 0 : SHM_RDONLY);
	if (mem == (void *)-1)
		return done(-1);
	if (text)
		snprintf(mem, 4096, "%s", text);
	else
		printf("%.*s\n", 4095, mem);
	shmdt(mem);
	return done(0);
}

static int msg(const char *how, long key, const char *text)
{
	bool create = !strcmp(how, "msg-create");
	int id = msgget((key_t)key, create ? IPC_CREAT | IPC_EXCL | 0600 : 0);
	struct {
		long type;
		char text[64];
	} m = { 1, "" };
	struct msqid_ds ds;

	if (id < 0)
		return done(-1);
	if (!strcmp(how, "msg-rm"))
		return done(msgctl(id, IPC_RMID, NULL));
	if (!strcmp(how, "msg-send")) {
		snprintf(m.text, sizeof(m.text), "%s", text);
		return done(msgsnd(id, &m, strlen(m.text) + 1, IPC_NOWAIT));
	}
	if (!strcmp(how, "msg-count")) {
		if (msgctl(id, IPC_STAT, &ds) < 0)
			return done(-1);
		printf("%lu\n", (unsigned long)ds.msg_qnum);
	}
	return done(0);
}

int main(int argc, char **argv)
{
	const char *a = argc > 1 ? argv[1] : "";
	int n = argc - 2;
	char **v = argv + 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(a, "environ") && n == 1)
		return environ_of(v[0]);
	if (!strcmp(a, "mem") && n == 1)
		return mem_of(v[0]);
	if (!strcmp(a, "fds") && n == 1)
		return fds_of(v[0]);
	if (!strcmp(a, "getfds") && n == 1)
		return getfds(num(v[0]));
	if (!strcmp(a, "ptrace") && n == 1)
		return trace(num(v[0]));
	if (!strncmp(a, "shm-", 4) && (n == 1 || n == 2))
		return shm(a, num(v[0]), n == 2 ? v[1] : NULL);
	if (!strncmp(a, "msg-", 4) && (n == 1 || n == 2))
		return msg(a, num(v[0]), n == 2 ? v[1] : NULL);
	fprintf(stderr, "usage: reach ACTION ARG... (see reach.c)\n");
	return 2;
}
