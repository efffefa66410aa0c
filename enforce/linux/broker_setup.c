/*
 * broker_setup.c - the broker's filter, installed in the command's
 * process (broker_install), and its listener handed over to the
 * supervisor by number (broker_give_listener, broker_take_listener);
 * broker_loop.c argues the design and serves the listener.
 *
 * broker_give_listener() runs in the command's process before exec:
 * async-signal-safe, no allocation.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce/broker/broker.h"
#include "enforce/linux/filters.h"

int broker_install(enum net_mode net, bool listen_only, int *listener,
		   char *err, size_t errlen)
{
	const struct filters_prog *f =
		&filters_compiled[listen_only ? FILTERS_BROKER_LISTEN
					      : filters_broker_variant(net)];
	struct sock_fprog prog = { f->len, (struct sock_filter *)f->insns };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		snprintf(err, errlen, "no_new_privs: %s", strerror(errno));
		return -errno;
	}
	/* with seccomp(2): libseccomp 2.5 cannot ask for
	 * WAIT_KILLABLE_RECV.  Before Linux 5.19 there is no such flag: a
	 * signal that lands while the broker performs a call ends the
	 * command's wait, and a restarted connect or send is performed
	 * again (EISCONN, or a datagram sent twice): doc/kernels.md. */
	*listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				 SECCOMP_FILTER_FLAG_NEW_LISTENER |
					 SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
				 &prog);
	if (*listener < 0 && errno == EINVAL)
		*listener =
			(int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				     SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (*listener < 0) {
		snprintf(err, errlen,
			 "cannot install the broker's filter: %s "
			 "(needs seccomp user notification, Linux 5.6)",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

int broker_give_listener(int sock, int listener)
{
	char ack;

	if (write(sock, &listener, sizeof(listener)) != sizeof(listener))
		return -EPIPE;
	if (read(sock, &ack, 1) != 1)
		return -EPIPE;
	return 0;
}

int broker_take_listener(int sock, int *listener)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	struct ucred cred = { .pid = 0 };
	int num, pidfd, ret = 0;
	struct iovec iov = { &num, sizeof(num) };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *h;
	ssize_t n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL);

	if (n <= 0)
		return n < 0 ? -errno : -EPIPE;
	h = CMSG_FIRSTHDR(&m);
	if (n != sizeof(num) || !h || h->cmsg_level != SOL_SOCKET ||
	    h->cmsg_type != SCM_CREDENTIALS)
		return -EPROTO;
	memcpy(&cred, CMSG_DATA(h), sizeof(cred));
	if (num == -1) { /* nothing to hand over */
		*listener = -1;
		return write(sock, "", 1) == 1 ? 0 : -EPIPE;
	}
	pidfd = pidfd_open(cred.pid, 0);
	if (pidfd < 0)
		return -errno;
	*listener = pidfd_getfd(pidfd, num, 0);
	if (*listener < 0)
		ret = -errno;
	close(pidfd);
	if (write(sock, "", 1) != 1 && !ret) {
		close(*listener);
		ret = -EPIPE;
	}
	return ret;
}
