/*
 * broker_setup.c - the broker's filter, installed in the command's
 * process (broker_install), and its listener handed over to the
 * supervisor by number (broker_give_listener, broker_take_listener);
 * broker.c argues the design and serves the listener.
 *
 * broker_give_listener() runs in the command's process before exec:
 * async-signal-safe, no allocation.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
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

#include "enforce/broker.h"

/* With the network shared, bind() too (broker_own.c notes the command's
 * own UNIX sockets); with TCP ports allowed, listen() (a listen() on a
 * socket bound to no port takes an ephemeral one).  With the network off
 * the command's network namespace holds both; with it on, listen() is
 * free: programs that never bind or listen pay nothing either way. */
static int build_filter(scmp_filter_ctx ctx, enum net_mode net)
{
	int ret =
		seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);

	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect),
				       0);
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendto),
				       1, SCMP_A4(SCMP_CMP_NE, 0));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendmsg),
				       0);
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendmmsg),
				       0);
	if (!ret && policy_net_shared(net))
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(bind), 0);
	if (!ret && net == NET_PORTS)
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(listen),
				       0);
	return ret;
}

/* libseccomp 2.5 cannot ask for WAIT_KILLABLE_RECV: export the program
 * and load it with seccomp(2). */
static int load(scmp_filter_ctx ctx, int *listener)
{
	struct sock_fprog prog;
	struct stat st;
	void *bpf = NULL;
	int fd, ret;

	fd = memfd_create("cordon-broker", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = seccomp_export_bpf(ctx, fd);
	if (!ret && fstat(fd, &st))
		ret = -errno;
	if (!ret &&
	    (st.st_size <= 0 ||
	     st.st_size > BPF_MAXINSNS * (off_t)sizeof(struct sock_filter)))
		ret = -E2BIG;
	if (!ret) {
		bpf = malloc((size_t)st.st_size);
		if (!bpf)
			ret = -ENOMEM;
		else if (pread(fd, bpf, (size_t)st.st_size, 0) != st.st_size)
			ret = -EIO;
	}
	close(fd);
	if (!ret) {
		prog.len = (unsigned short)(st.st_size /
					    (off_t)sizeof(struct sock_filter));
		prog.filter = bpf;
		*listener = (int)syscall(
			SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			SECCOMP_FILTER_FLAG_NEW_LISTENER |
				SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
			&prog);
		if (*listener < 0)
			ret = -errno;
	}
	free(bpf);
	return ret;
}

int broker_install(enum net_mode net, int *listener, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	int ret;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		ret = -errno;
		snprintf(err, errlen, "no_new_privs: %s", strerror(-ret));
		return ret;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		snprintf(err, errlen, "seccomp_init failed");
		return -ENOMEM;
	}
	ret = build_filter(ctx, net);
	if (ret)
		snprintf(err, errlen, "the broker's filter: %s",
			 strerror(-ret));
	else if ((ret = load(ctx, listener)))
		snprintf(err, errlen,
			 "cannot install the broker's filter: %s "
			 "(needs seccomp user notification with "
			 "WAIT_KILLABLE_RECV, Linux 5.19)",
			 strerror(-ret));
	seccomp_release(ctx);
	return ret;
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
