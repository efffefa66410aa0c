/*
 * broker_call.c - one notified call, performed by the broker on the
 * command's own socket: the descriptor taken with pidfd_getfd(), the
 * address and the data copied once with process_vm_readv() (the broker
 * acts on its copy and never reads again), the decision on what the
 * copy names (broker_vet.c), then the call itself and its result as the
 * answer (a connect or sendto here; sendmsg, sendmmsg: broker_msg.c;
 * bind, listen: broker_hold.c).
 *
 * Runs in the supervisor's worker threads: no global state but each
 * worker's few pidfds and roots of the threads it served (kept while
 * their threads live: see target()), every other descriptor closed
 * before returning, nothing written to the terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "enforce/broker/broker_int.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* Copy the address at @addr (@len bytes, the command's). */
static int read_addr(const struct broker_call *c, uint64_t addr, uint64_t len,
		     struct sockaddr_storage *ss, socklen_t *sslen)
{
	if (len > sizeof(*ss))
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	*sslen = (socklen_t)len;
	return broker_read(c, ss, addr, (size_t)len);
}

static long do_connect(const struct broker_call *c)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int pathfd, ret;

	ret = read_addr(c, c->n->data.args[1], c->n->data.args[2] & 0xffffffff,
			&ss, &len);
	if (!ret)
		ret = broker_vet(c, "connect", &ss, &len, &pathfd);
	if (ret)
		return ret;
	/* A stream connect may wait (a full backlog, a TCP handshake), and
	 * the kernel has no per-call way to ask it not to: the watcher
	 * (broker_loop.c) takes the lead over if it does. */
	ret = (int)broker_connect_held(c, &ss, len, &pathfd);
	if (pathfd >= 0)
		close(pathfd);
	return ret;
}

/* sendto(fd, buf, len, flags, addr, addrlen), with an address. */
static long do_sendto(const struct broker_call *c)
{
	const __u64 *a = c->n->data.args;
	size_t len = (size_t)a[2];
	struct sockaddr_storage ss;
	socklen_t sslen;
	int pathfd, ret;
	ssize_t sent;
	char *buf;
	struct iovec iov;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (len > BROKER_SEND_MAX) {
		if (broker_sock_type(c) != SOCK_STREAM)
			return -EMSGSIZE;
		len = BROKER_SEND_MAX;
	}
	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	iov.iov_base = buf;
	iov.iov_len = len;
	sslen = (socklen_t)(a[5] & 0xffffffff);
	memset(&ss, 0, sizeof(ss));
	/* The data and the address in one read. */
	if ((a[5] & 0xffffffff) > sizeof(ss))
		ret = -EINVAL;
	else
		ret = broker_read2(c, buf, a[1], len, &ss, a[4], sslen);
	if (!ret)
		ret = broker_vet(c, "sendto", &ss, &sslen, &pathfd);
	if (ret) {
		free(buf);
		return ret;
	}
	m.msg_name = &ss;
	m.msg_namelen = sslen;
	sent = broker_send_as(c, &m, (int)a[3], &pathfd, false);
	ret = sent < 0 ? broker_epipe(c, -errno, (int)a[3]) : 0;
	if (pathfd >= 0)
		close(pathfd);
	free(buf);
	return ret ? ret : (long)sent;
}

/* The threads this worker served last.  A pidfd names one thread for
 * good: once that thread has ended (its id perhaps taken by another),
 * pidfd_getfd() through it fails with ESRCH and the slot is renewed; so
 * a pidfd_getfd() that succeeds proves the caller is the thread cached,
 * and its root the one cached (the command cannot change its root:
 * sysfilter.c refuses new namespaces, chroot needs a capability).  Few
 * slots: each holds two descriptors per worker. */
#define TARGET_SLOTS 4
static _Thread_local struct broker_target targets[TARGET_SLOTS];
static _Thread_local unsigned int target_next;

static void forget(struct broker_target *t)
{
	if (!t->tid)
		return;
	close(t->pidfd);
	if (t->root >= 0)
		close(t->root);
	t->tid = 0;
}

void broker_forget_targets(void)
{
	for (size_t i = 0; i < TARGET_SLOTS; i++)
		forget(&targets[i]);
}

/* The slot of thread @tid, with a pidfd (cached, or opened). */
static struct broker_target *target(pid_t tid)
{
	struct broker_target *t = NULL;
	int fd;

	for (size_t i = 0; i < TARGET_SLOTS; i++)
		if (targets[i].tid == tid)
			return &targets[i];
	/* A thread's pidfd (Linux 6.9), else the process's (enough when the
	 * thread is the leader). */
	fd = pidfd_open(tid, PIDFD_THREAD);
	if (fd < 0 && errno == EINVAL)
		fd = pidfd_open(tid, 0);
	if (fd < 0)
		return NULL;
	t = &targets[target_next++ % TARGET_SLOTS];
	forget(t);
	*t = (struct broker_target){ .tid = tid, .pidfd = fd, .root = -1 };
	return t;
}

/* Take the command's socket @num: through the cached pidfd, or, when its
 * thread has ended, a fresh one. */
static int take_sock(struct broker_call *c, int num)
{
	for (int tries = 0; tries < 2; tries++) {
		c->t = target((pid_t)c->n->pid);
		if (!c->t)
			return -ESRCH;
		c->pidfd = c->t->pidfd;
		c->sock = pidfd_getfd(c->pidfd, num, 0);
		if (c->sock >= 0)
			return 0;
		if (errno != ESRCH)
			return errno == EBADF ? -EBADF : -EPERM;
		forget(c->t);
	}
	return -ESRCH;
}

long broker_perform(struct broker *b, int listener,
		    const struct seccomp_notif *n, struct broker_denial *d)
{
	struct broker_sock s = { .type = -1, .blocking = -1 };
	struct broker_call c = {
		.b = b,
		.listener = listener,
		.n = n,
		.pidfd = -1,
		.sock = -1,
		.s = &s,
		.denial = d,
	};
	long ret;

	d->op = NULL;
	d->dest[0] = '\0';
	ret = take_sock(&c, (int)n->data.args[0]);
	/* A bind the kernel makes, and answers, whatever the broker saw. */
	if (ret)
		return n->data.nr == SYS_bind ? BROKER_CONTINUE : ret;
	if (n->data.nr == SYS_bind)
		ret = broker_bind(&c);
	else if (n->data.nr == SYS_listen)
		ret = broker_listen(&c);
	else if (n->data.nr == SYS_connect)
		ret = do_connect(&c);
	else if (n->data.nr == SYS_sendto)
		ret = do_sendto(&c);
	else if (n->data.nr == SYS_sendmsg)
		ret = broker_sendmsg(&c);
	else if (n->data.nr == SYS_sendmmsg)
		ret = broker_sendmmsg(&c);
	else
		ret = -ENOSYS;
	/* The kernel checks the descriptor before the rest: a call on what
	 * is no socket fails so, whatever its address (asked only on a
	 * failure: one system call less on success). */
	if (ret < 0 && ret != BROKER_CONTINUE && broker_sock_type(&c) < 0) {
		ret = broker_sock_type(&c);
		d->op = NULL;
	}
	close(c.sock);
	/* A root opened in this call is kept only if checked (unix_vet). */
	if (c.t->root >= 0 && !c.t->root_checked) {
		close(c.t->root);
		c.t->root = -1;
	}
	return ret;
}
