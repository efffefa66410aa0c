/*
 * unixdiag.c - which UNIX sockets of the caller's network namespace are
 * bound at a file (or an abstract name)?  Asked of the kernel's socket
 * diagnostics (NETLINK_SOCK_DIAG, UDIAG_SHOW_VFS: the device and inode
 * of each bound socket's file; UDIAG_SHOW_NAME: its address).
 *
 * The broker asks it of the sockets in the temp dirs the command shares
 * with the host (/tmp, /var/tmp): with the network off the command has
 * a network namespace of its own, so a socket it bound itself is not
 * among the host's, and one a process outside bound (an ssh-agent, a
 * tmux started after the command) is.  With the network shared it asks
 * which socket is bound at a file or an abstract name (its cookie), to
 * tell the command's own from the host's (broker_own.c).
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "enforce/broker/unixdiag.h"

/* The kernel's own dev_t, as UNIX_DIAG_VFS gives it: major << 20. */
static bool same_dev(__u32 kdev, dev_t dev)
{
	return (kdev >> 20) == major(dev) && (kdev & 0xfffff) == minor(dev);
}

/* Is the socket of message @h bound at @at? */
static bool names(const struct nlmsghdr *h, const struct unixdiag_at *at)
{
	const struct unix_diag_msg *m = NLMSG_DATA(h);
	const struct rtattr *a = (const struct rtattr *)(m + 1);
	int len = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));

	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		const struct unix_diag_vfs *v = RTA_DATA(a);

		if (at->name && a->rta_type == UNIX_DIAG_NAME)
			return RTA_PAYLOAD(a) == at->len &&
			       memcmp(RTA_DATA(a), at->name, at->len) == 0;
		if (!at->name && a->rta_type == UNIX_DIAG_VFS &&
		    RTA_PAYLOAD(a) >= (int)sizeof(*v))
			return v->udiag_vfs_ino == (__u32)at->ino &&
			       same_dev(v->udiag_vfs_dev, at->dev);
	}
	return false;
}

/* Read the dump's answers to its end; 1 once @fn said true.  The buffer
 * is on the stack of the broker's thread (256 KB): a thread-local one is
 * zeroed for every thread the launcher starts, 8 page faults each
 * (~0.1 ms a thread), whether it ever asks or not. */
static int scan(int fd, const struct unixdiag_at *at,
		bool (*fn)(void *arg, const struct unixdiag_sock *s), void *arg)
{
	char buf[32768] __attribute__((aligned(8)));
	int found = 0;

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		int left = (int)n;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPROTO;
		for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			const struct unix_diag_msg *m = NLMSG_DATA(h);
			struct unixdiag_sock s;

			if (h->nlmsg_type == NLMSG_DONE)
				return found;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -EPROTO;
			if (found || h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
			    h->nlmsg_len < NLMSG_LENGTH(sizeof(
						   struct unix_diag_msg)) ||
			    (at && !names(h, at)))
				continue;
			s.ino = m->udiag_ino;
			s.type = m->udiag_type;
			s.state = m->udiag_state;
			s.cookie = (uint64_t)m->udiag_cookie[0] |
				   (uint64_t)m->udiag_cookie[1] << 32;
			found = fn(arg, &s);
		}
	}
}

/* What to ask of each socket: the address or the file, to match @at. */
static __u32 show(const struct unixdiag_at *at)
{
	if (!at)
		return 0;
	return at->name ? UDIAG_SHOW_NAME : UDIAG_SHOW_VFS;
}

int unixdiag_each(const struct unixdiag_at *at,
		  bool (*fn)(void *arg, const struct unixdiag_sock *s),
		  void *arg)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} msg = {
		.nlh = { .nlmsg_len = sizeof(msg),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.req = { .sdiag_family = AF_UNIX,
			 .udiag_states = ~0u,
			 .udiag_show = show(at) },
	};
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
			NETLINK_SOCK_DIAG);
	int ret;

	if (fd < 0)
		return -errno;
	ret = send(fd, &msg, sizeof(msg), 0) == (ssize_t)sizeof(msg)
		      ? scan(fd, at, fn, arg)
		      : -errno;
	close(fd);
	return ret;
}

static bool any(void *arg, const struct unixdiag_sock *s)
{
	(void)arg;
	(void)s;
	return true;
}

int unixdiag_bound_here(dev_t dev, ino_t ino)
{
	const struct unixdiag_at at = { .dev = dev, .ino = ino };

	return unixdiag_each(&at, any, NULL);
}
