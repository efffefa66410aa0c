/*
 * broker_deputy.c - the process that performs the broker's UNIX
 * connect() and listen(): a fork of the supervisor with its uid and
 * gids (the command's outside view) and no capability at all.
 *
 * Why.  The kernel records the credentials of the task that calls
 * connect() or listen() on a UNIX socket; SO_PEERCRED and SO_PEERPIDFD
 * of the peer name that task.  Made by the broker, they named the
 * supervisor, and a peer that looks its pid up (sd_bus reads the
 * capabilities in /proc/PID/status, polkit, a portal) lent the command
 * the authority of a root supervisor (issue 27, class 4).  Made here,
 * they name a process with the command's ids and no capability.  The
 * pid is still not the caller's, and its cgroup and LSM label are the
 * supervisor's (broker.h).
 *
 * What it holds: its channel to the broker and nothing else (every other
 * descriptor closed at the fork), an empty effective, permitted,
 * inheritable, ambient and (where the supervisor may drop it) bounding
 * set, NO_NEW_PRIVS, not dumpable, its own session (no terminal's
 * signals), killed with the thread that forked it (PDEATHSIG).
 *
 * How: each broker worker has a channel of its own (a SOCK_SEQPACKET
 * pair, one end sent over the deputy's first channel on its first
 * call), served by a thread of the deputy's, so that a connect blocked
 * on a full backlog holds up only its worker, as it did in the broker.
 * A call is one round trip: the request (op, backlog, the address the
 * broker checked, its own copy) with the command's socket and the
 * socket file's O_PATH descriptor (SCM_RIGHTS), the answer (0 or
 * -errno).  The deputy performs what it is given, without checks: it
 * runs no policy and its caller is the broker alone.  Gone (killed, or
 * out of threads): the call fails EACCES, said once on stderr; never a
 * wait.
 */
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/broker/broker_deputy.h"

struct broker_deputy {
	int ctl; /* the first channel: new channels go over it */
	pid_t pid;
};

enum { OP_CONNECT = 1, OP_LISTEN = 2 };

struct req {
	int op;
	int backlog;
	int by_fd; /* the address names the second descriptor */
	int cpu;   /* the worker's, when it sent */
	socklen_t len;
	struct sockaddr_storage ss;
};

/* This worker's channel, and whose. */
static _Thread_local int chan = -1;
static _Thread_local struct broker_deputy *chan_of;
static atomic_bool said;

/* Send @fds (up to 2) with @buf over @fd; receive them in recv_fds(). */
static ssize_t send_fds(int fd, const void *buf, size_t len, const int *fds,
			int n)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { (void *)buf, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	memset(&u, 0, sizeof(u));
	if (n > 0) {
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE((size_t)n * sizeof(int));
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, (size_t)n * sizeof(int));
	}
	return sendmsg(fd, &m, MSG_NOSIGNAL);
}

/* Return: the bytes read, with up to 2 descriptors in @fds (*@n of
 * them); or -1. */
static ssize_t recv_fds(int fd, void *buf, size_t len, int *fds, int *n)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { buf, len };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	ssize_t got;

	*n = 0;
	do
		got = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -1;
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		size_t k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int f;

			memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(f));
			if (*n < 2)
				fds[(*n)++] = f;
			else
				close(f);
		}
	}
	if (m.msg_flags & MSG_CTRUNC)
		return -1;
	return got;
}

/* In the deputy: one request, performed.  Return: 0 or -errno. */
static int perform(struct req *r, const int *fds, int n)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)&r->ss;

	if (n < 1)
		return -EBADF;
	if (r->op == OP_LISTEN)
		return listen(fds[0], r->backlog) ? -errno : 0;
	if (r->op != OP_CONNECT || r->len > sizeof(r->ss))
		return -EINVAL;
	if (r->by_fd) {
		if (n < 2)
			return -EBADF;
		memset(sun, 0, sizeof(*sun));
		sun->sun_family = AF_UNIX;
		snprintf(sun->sun_path, sizeof(sun->sun_path),
			 "/proc/self/fd/%d", fds[1]);
		r->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				     strlen(sun->sun_path) + 1);
	}
	return connect(fds[0], (struct sockaddr *)&r->ss, r->len) ? -errno : 0;
}

/* In the deputy: run where the worker runs.  Its call blocks waiting
 * for the answer, so that CPU is free; woken on another, idle one, each
 * wake-up costs ~20 us on a VM (the bench: a brokered connect ~30 us,
 * ~75 us through a deputy left to float, ~35 us with this). */
static void follow(int cpu, int *on)
{
	cpu_set_t set;

	if (cpu < 0 || cpu == *on || cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	*on = sched_setaffinity(0, sizeof(set), &set) ? -1 : cpu;
}

/* In the deputy: a thread serving one worker's channel. */
static void *serve(void *arg)
{
	int fd = (int)(long)arg, on = -1;

	for (;;) {
		struct req r;
		int fds[2], n, ret;
		ssize_t got = recv_fds(fd, &r, sizeof(r), fds, &n);

		if (got <= 0)
			break;
		if (got == (ssize_t)sizeof(r))
			follow(r.cpu, &on);
		ret = got == (ssize_t)sizeof(r) ? perform(&r, fds, n) : -EINVAL;
		for (int i = 0; i < n; i++)
			close(fds[i]);
		if (send(fd, &ret, sizeof(ret), MSG_NOSIGNAL) < 0)
			break;
	}
	close(fd);
	return NULL;
}

/* In the deputy: every capability gone, for good.  Return: 0, or -1. */
static int shed(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	/* the bounding set needs CAP_SETPCAP: a user's has none to use */
	for (int c = 0; c < 64; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno == EINVAL)
			break;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return -1;
	if (syscall(SYS_capget, &h, d))
		return -1;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable)
			return -1;
	return 0;
}

static void deputy_main(int ctl, pid_t parent)
{
	static const int quiet[] = { SIGINT,  SIGTERM, SIGHUP,	SIGQUIT,
				     SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU };
	sigset_t none;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() != parent)
		_exit(1);
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		signal(quiet[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	if (ctl > 0)
		syscall(SYS_close_range, 0U, (unsigned int)ctl - 1, 0U);
	syscall(SYS_close_range, (unsigned int)ctl + 1, ~0U, 0U);
	if (shed())
		_exit(1);
	for (;;) {
		char c;
		int fds[2], n;
		pthread_t t;
		pthread_attr_t a;
		ssize_t got = recv_fds(ctl, &c, 1, fds, &n);

		if (got <= 0)
			_exit(0);
		for (int i = 1; i < n; i++)
			close(fds[i]);
		if (n < 1)
			continue;
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&a, 64 << 10);
		if (pthread_create(&t, &a, serve, (void *)(long)fds[0]))
			close(fds[0]); /* the worker hears EOF: EACCES */
		pthread_attr_destroy(&a);
	}
}

struct broker_deputy *broker_deputy_start(void)
{
	struct broker_deputy *d = calloc(1, sizeof(*d));
	pid_t parent = getpid();
	int sv[2];

	if (!d)
		return NULL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		free(d);
		return NULL;
	}
	d->pid = fork();
	if (d->pid == 0) {
		close(sv[0]);
		deputy_main(sv[1], parent);
	}
	close(sv[1]);
	if (d->pid < 0) {
		close(sv[0]);
		free(d);
		return NULL;
	}
	d->ctl = sv[0];
	return d;
}

static long gone(void)
{
	if (chan >= 0)
		close(chan);
	chan = -1;
	chan_of = NULL;
	if (!atomic_exchange(&said, true))
		fprintf(stderr, "cordon: the broker's deputy is gone: brokered "
				"UNIX connect and listen now fail (EACCES)\n");
	return -EACCES;
}

/* One round trip on this worker's channel (opened on its first call). */
static long call(struct broker_deputy *d, const struct req *r, const int *fds,
		 int n)
{
	int ret, sv[2];
	ssize_t got;

	if (!d)
		return gone();
	if (chan_of != d) {
		broker_deputy_forget();
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
			return -errno;
		got = send_fds(d->ctl, "c", 1, &sv[1], 1);
		close(sv[1]);
		if (got != 1) {
			close(sv[0]);
			return gone();
		}
		chan = sv[0];
		chan_of = d;
	}
	if (send_fds(chan, r, sizeof(*r), fds, n) != (ssize_t)sizeof(*r))
		return gone();
	do
		got = recv(chan, &ret, sizeof(ret), 0);
	while (got < 0 && errno == EINTR);
	if (got != (ssize_t)sizeof(ret) || ret > 0)
		return gone();
	return ret;
}

long broker_deputy_connect(struct broker_deputy *d, int sock,
			   const struct sockaddr_storage *ss, socklen_t len,
			   int pathfd)
{
	struct req r = { .op = OP_CONNECT, .len = len, .cpu = sched_getcpu() };
	int fds[2] = { sock, pathfd };

	if (len > sizeof(r.ss))
		return -EINVAL;
	memcpy(&r.ss, ss, len);
	r.by_fd = pathfd >= 0;
	return call(d, &r, fds, pathfd >= 0 ? 2 : 1);
}

long broker_deputy_listen(struct broker_deputy *d, int sock, int backlog)
{
	struct req r = { .op = OP_LISTEN,
			 .backlog = backlog,
			 .cpu = sched_getcpu() };

	return call(d, &r, &sock, 1);
}

void broker_deputy_forget(void)
{
	if (chan >= 0)
		close(chan);
	chan = -1;
	chan_of = NULL;
}

void broker_deputy_stop(struct broker_deputy *d)
{
	if (!d)
		return;
	close(d->ctl);
	while (waitpid(d->pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(d);
}
