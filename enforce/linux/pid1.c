/*
 * pid1.c - cordon's init in the command's PID namespace: ns_enter()
 * makes the calling process pid 1 there, spawn_exec() runs the command
 * as its child, and pid1_relay() forwards the signals an init receives
 * (an init gets only those it has a handler for) and leaves with the
 * command's status, reaping every orphan on the way.
 *
 * pid 1 lives inside the command's namespaces, so it is the command's
 * to attack: it must carry nothing worth taking.  It is not dumpable
 * (pid1_seal()): the command, which has no capability in the user
 * namespace that owns pid 1's memory, can neither trace it
 * (ptrace, pidfd_getfd, process_vm_readv) nor read its /proc entries
 * (environ, mem, fd links, maps).  Before anything else it closes the
 * descriptors of cordon's own (the supervisor's socket and log), and
 * once the command runs every other one (pid1_relay(): the command has
 * them itself); spawn_exec() has wiped the environment the launcher
 * started with from its memory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/linux/linux.h"
#include "enforce/base/base.h"

static volatile pid_t relay_to;

/* A descriptor's number from its /proc/self/fd name; -1 for "." */
static int atoi_fd(const char *s)
{
	int fd = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9' && fd < 1 << 24; s++)
		fd = fd * 10 + (*s - '0');
	return fd;
}

/* Is this process pid 1 of the command's namespace (ns_enter() made
 * it so)?  Then it outlives the command: see pid1_relay(). */
static bool is_init;

/* Before there is a command to forward to, a signal stops the start,
 * as it would stop a process that is no init. */
static void forward(int sig)
{
	if (relay_to > 0)
		kill(relay_to, sig);
	else
		_exit(128 + sig);
}

void pid1_catch_signals(void)
{
	static const int forwarded[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
	struct sigaction sa = { .sa_handler = forward };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, NULL);
}

/* Close every descriptor of cordon's own: those it made close-on-exec
 * (the supervisor's socket and log), which the command never inherits
 * either.  The others are the command's, which it holds itself. */
static void close_own_fds(void)
{
	char buf[4096] __attribute__((aligned(8)));
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ssize_t n;

	if (dir < 0)
		return;
	while ((n = getdents64(dir, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *e = (struct dirent64 *)(buf + off);
			int fd = atoi_fd(e->d_name), flags;

			off += e->d_reclen;
			if (fd <= 2 || fd == dir)
				continue;
			flags = fcntl(fd, F_GETFD);
			if (flags >= 0 && (flags & FD_CLOEXEC))
				close(fd);
		}
	close(dir);
}

/* A number from 1 to @n - 1, from the kernel's random pool. */
static long random_below(long n)
{
	unsigned int r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = (unsigned int)getpid() * 2654435761u;
	return 1 + (long)(r % (unsigned long)(n - 1));
}

static long read_number(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

void pid1_scatter_pids(void)
{
	long max = read_number("/proc/sys/kernel/pid_max"), next;
	char buf[32];
	int fd, len;

	/* the range of the classic default, whatever this namespace's
	 * own limit: some programs keep a pid in 15 bits */
	if (max > 32768)
		max = 32768;
	if (max < 2000)
		return;
	next = 300 + random_below(max - 1300);
	len = snprintf(buf, sizeof(buf), "%ld", next);
	fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, buf, (size_t)len) != len)
		(void)0; /* pids then start at 2: nothing worse */
	close(fd);
}

int pid1_seal(void)
{
	close_own_fds();
	return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

void pid1_become(void)
{
	is_init = true;
}

bool pid1_is_init(void)
{
	return is_init;
}

/* Wait for @child (reaping any other child on the way, as an init
 * must) and leave with its status. */
void pid1_relay(pid_t child)
{
	int st;
	pid_t w;

	relay_to = child;
	pid1_catch_signals();
	/* nothing from here on prints or reads: the command has what it
	 * needs, pid 1 keeps no way into anything */
	syscall(SYS_close_range, 0U, ~0U, 0U);
	/* the terminal sends these to the command's group, which holds
	 * the command itself */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	for (;;) {
		w = waitpid(-1, &st, 0);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			_exit(EXIT_CORDON);
		if (w == child)
			break;
	}
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	_exit(128 + WTERMSIG(st));
}
