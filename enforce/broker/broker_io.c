/*
 * broker_io.c - what every brokered call does with the command's
 * process (broker_int.h): its memory read once with process_vm_readv(),
 * its notification checked still pending (the pid still the caller's),
 * SIGPIPE raised as the kernel would, and a send made on its socket
 * without holding up the broker's other calls.  The vetting, the
 * dispatch and the loop are above; nothing here calls up.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "enforce/broker/broker_int.h"

int broker_read(const struct broker_call *c, void *dst, uint64_t addr,
		size_t len)
{
	struct iovec local = { dst, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t got;

	if (!len)
		return 0;
	got = process_vm_readv((pid_t)c->n->pid, &local, 1, &remote, 1, 0);
	return got == (ssize_t)len ? 0 : -EFAULT;
}

int broker_read2(const struct broker_call *c, void *dst, uint64_t addr,
		 size_t len, void *dst2, uint64_t addr2, size_t len2)
{
	struct iovec local[2] = { { dst, len }, { dst2, len2 } };
	struct iovec remote[2] = { { (void *)(uintptr_t)addr, len },
				   { (void *)(uintptr_t)addr2, len2 } };
	ssize_t got;

	if (!len || !len2)
		return len ? broker_read(c, dst, addr, len)
			   : broker_read(c, dst2, addr2, len2);
	got = process_vm_readv((pid_t)c->n->pid, local, 2, remote, 2, 0);
	return got == (ssize_t)(len + len2) ? 0 : -EFAULT;
}

/* Is the notification still pending, so that the process read through
 * its pid is still the one that made the call (no pid reuse)? */
static bool still_valid(const struct broker_call *c)
{
	uint64_t id = c->n->id;

	return ioctl(c->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

bool broker_call_valid(const struct broker_call *c)
{
	return still_valid(c);
}

int broker_epipe(const struct broker_call *c, int err, int flags)
{
	if (err == -EPIPE && !(flags & MSG_NOSIGNAL))
		syscall(SYS_pidfd_send_signal, c->pidfd, SIGPIPE, NULL, 0);
	return err;
}

ssize_t broker_send(const struct broker_call *c, const struct msghdr *m,
		    int flags)
{
	struct msghdr rest = { .msg_iovlen = 1 };
	struct iovec iov;
	ssize_t sent, more;

	flags |= MSG_NOSIGNAL;
	if (flags & MSG_DONTWAIT)
		return sendmsg(c->sock, m, flags);
	/* Whether the socket blocks is asked only when the send would wait:
	 * on a non-blocking one the first try is the answer. */
	sent = sendmsg(c->sock, m, flags | MSG_DONTWAIT);
	if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
		return sent;
	if (sent >= 0 && ((size_t)sent == m->msg_iov->iov_len ||
			  broker_sock_type(c) != SOCK_STREAM))
		return sent;
	if (!broker_sock_blocks(c)) {
		if (sent < 0)
			errno = EAGAIN;
		return sent;
	}
	broker_may_block(c->b);
	if (sent < 0)
		return sendmsg(c->sock, m, flags);
	/* A stream sent in part: the rest, as a blocking send goes on (the
	 * address and control data went with the first part); an error then
	 * leaves the count sent, as the kernel's does. */
	iov.iov_base = (char *)m->msg_iov->iov_base + sent;
	iov.iov_len = m->msg_iov->iov_len - (size_t)sent;
	rest.msg_iov = &iov;
	more = sendmsg(c->sock, &rest, flags);
	return more < 0 ? sent : sent + more;
}

int broker_sock_type(const struct broker_call *c)
{
	socklen_t len = sizeof(c->s->type);

	if (c->s->type == -1 &&
	    getsockopt(c->sock, SOL_SOCKET, SO_TYPE, &c->s->type, &len))
		c->s->type = errno == ENOTSOCK ? -ENOTSOCK : -EBADF;
	return c->s->type;
}

bool broker_sock_blocks(const struct broker_call *c)
{
	int fl;

	if (c->s->blocking < 0) {
		fl = fcntl(c->sock, F_GETFL);
		c->s->blocking = fl < 0 || !(fl & O_NONBLOCK);
	}
	return c->s->blocking;
}
