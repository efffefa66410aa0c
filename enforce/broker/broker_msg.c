/*
 * broker_msg.c - sendmsg and sendmmsg performed by the broker: the
 * message header, its address, its data (bounded: BROKER_SEND_MAX) and
 * its control data (BROKER_CONTROL_MAX) copied once from the command,
 * the descriptors of an SCM_RIGHTS message taken from the command with
 * pidfd_getfd() and passed on in their place.  The control data is
 * checked first (broker_cmsg.c): SCM_CREDENTIALS only the caller's own,
 * rewritten into the supervisor's view and sent with the capability to
 * vouch for them raised for that send alone; what would need a privilege
 * the command lacks, refused.  MSG_ZEROCOPY is dropped from the flags.
 *
 * Runs in the supervisor's worker threads; frees and closes all it
 * took before returning.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "enforce/broker/broker_int.h"
#include "enforce/broker/broker_cmsg.h"

/* One message, copied. */
struct msg_copy {
	struct msghdr m;
	struct sockaddr_storage ss;
	socklen_t sslen;
	struct iovec iov;
	char *control;
	int fds[BROKER_FDS_MAX];
	size_t nfds;
	int pathfd;
	unsigned int cmsgs; /* BROKER_CMSG_*: what the control data holds */
};

static void msg_free(struct msg_copy *mc)
{
	free(mc->iov.iov_base);
	free(mc->control);
	for (size_t i = 0; i < mc->nfds; i++)
		close(mc->fds[i]);
	if (mc->pathfd >= 0)
		close(mc->pathfd);
}

/* The address (mc->sslen bytes, read with the iovec array: one system
 * call less) and the data of @uiov[0..@n), concatenated, bounded. */
static int read_data(const struct broker_call *c, const struct msghdr *um,
		     struct msg_copy *mc)
{
	size_t n = um->msg_iovlen, total = 0, at = 0;
	struct iovec *uiov;
	int ret = 0;

	if (n > IOV_MAX)
		return -EMSGSIZE;
	uiov = calloc(n ? n : 1, sizeof(*uiov));
	if (!uiov)
		return -ENOMEM;
	ret = broker_read2(c, uiov, (uintptr_t)um->msg_iov, n * sizeof(*uiov),
			   &mc->ss, (uintptr_t)um->msg_name, mc->sslen);
	for (size_t i = 0; !ret && i < n; i++) {
		if (uiov[i].iov_len > SSIZE_MAX - total)
			ret = -EINVAL;
		else
			total += uiov[i].iov_len;
	}
	if (!ret && total > BROKER_SEND_MAX) {
		if (broker_sock_type(c) != SOCK_STREAM)
			ret = -EMSGSIZE;
		total = BROKER_SEND_MAX;
	}
	mc->iov.iov_base = ret ? NULL : malloc(total ? total : 1);
	if (!ret && !mc->iov.iov_base)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < n && at < total; i++) {
		size_t part = uiov[i].iov_len;

		if (part > total - at)
			part = total - at;
		ret = broker_read(c, (char *)mc->iov.iov_base + at,
				  (uintptr_t)uiov[i].iov_base, part);
		at += part;
	}
	mc->iov.iov_len = total;
	free(uiov);
	return ret;
}

/* Take the descriptors of each SCM_RIGHTS header from the command, and
 * put the broker's numbers in their place: every header the kernel will
 * read (broker_cmsg_next(), not CMSG_NXTHDR), or a number left as the
 * command wrote it would name the supervisor's own descriptor. */
static int take_fds(const struct broker_call *c, struct msg_copy *mc)
{
	unsigned char *ctl = (unsigned char *)mc->control;
	size_t len = mc->m.msg_controllen, at = BROKER_CMSG_FIRST;
	struct cmsghdr h;

	while ((at = broker_cmsg_next(ctl, len, at, &h)) < len) {
		size_t n;

		if (h.cmsg_level != SOL_SOCKET || h.cmsg_type != SCM_RIGHTS)
			continue;
		n = (h.cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			unsigned char *num =
				ctl + at + CMSG_LEN(0) + i * sizeof(int);
			int fd;

			if (mc->nfds == BROKER_FDS_MAX)
				return -EINVAL;
			memcpy(&fd, num, sizeof(fd));
			fd = pidfd_getfd(c->pidfd, fd, 0);
			if (fd < 0)
				return -EBADF;
			mc->fds[mc->nfds++] = fd;
			memcpy(num, &fd, sizeof(fd));
		}
	}
	return at == BROKER_CMSG_END ? 0 : -EINVAL;
}

/* Who the caller is, for broker_cmsg_vet(): read through its pid, and
 * so only believed while its call is still pending. */
static int caller_ids(void *arg, struct broker_ids *out)
{
	const struct broker_call *c = arg;
	int ret = broker_ids_read((pid_t)c->n->pid, out);

	return ret ? ret : broker_call_valid(c) ? 0 : -ENOENT;
}

static int read_control(const struct broker_call *c, const struct msghdr *um,
			struct msg_copy *mc)
{
	int ret;

	if (!um->msg_controllen)
		return 0;
	if (um->msg_controllen > BROKER_CONTROL_MAX)
		return -ENOBUFS;
	mc->control = calloc(1, um->msg_controllen);
	if (!mc->control)
		return -ENOMEM;
	ret = broker_read(c, mc->control, (uintptr_t)um->msg_control,
			  um->msg_controllen);
	mc->m.msg_control = mc->control;
	mc->m.msg_controllen = um->msg_controllen;
	if (!ret)
		ret = broker_cmsg_vet((unsigned char *)mc->control,
				      um->msg_controllen, caller_ids, (void *)c,
				      &mc->cmsgs);
	if (!ret && (mc->cmsgs & BROKER_CMSG_RIGHTS))
		ret = take_fds(c, mc);
	return ret;
}

/* Copy the message at @addr and decide on its address. */
static int read_msg(const struct broker_call *c, uint64_t addr,
		    struct msg_copy *mc)
{
	struct msghdr um;
	int ret;

	memset(mc, 0, sizeof(*mc));
	mc->pathfd = -1;
	ret = broker_read(c, &um, addr, sizeof(um));
	if (ret)
		return ret;
	if (um.msg_name && um.msg_namelen) {
		if (um.msg_namelen > sizeof(mc->ss))
			return -EINVAL;
		mc->sslen = um.msg_namelen;
	}
	ret = read_data(c, &um, mc);
	if (!ret)
		ret = read_control(c, &um, mc);
	if (!ret)
		ret = broker_vet(c, "sendmsg", &mc->ss, &mc->sslen,
				 &mc->pathfd);
	if (ret)
		return ret;
	mc->m.msg_name = mc->sslen ? &mc->ss : NULL;
	mc->m.msg_namelen = mc->sslen;
	mc->m.msg_iov = &mc->iov;
	mc->m.msg_iovlen = 1;
	return 0;
}

/* The caller's process and real ids, read once per thread served. */
static bool caller_real(const struct broker_call *c, struct ucred *uc)
{
	struct broker_ids *ids;

	if (!c->t->tgid) {
		ids = malloc(sizeof(*ids));
		if (!ids)
			return false;
		if (!broker_ids_read((pid_t)c->n->pid, ids) &&
		    broker_call_valid(c)) {
			c->t->tgid = ids->tgid_out;
			c->t->uid = ids->uid[0];
			c->t->gid = ids->gid[0];
		}
		free(ids);
	}
	*uc = (struct ucred){ c->t->tgid, c->t->uid, c->t->gid };
	return c->t->tgid > 0;
}

static bool is_unix(const struct broker_call *c)
{
	int domain = 0;
	socklen_t len = sizeof(domain);

	return !getsockopt(c->sock, SOL_SOCKET, SO_DOMAIN, &domain, &len) &&
	       domain == AF_UNIX;
}

ssize_t broker_send_as(const struct broker_call *c, struct msghdr *m, int flags,
		       int *pin, bool vouch)
{
	union {
		struct cmsghdr h;
		unsigned char b[1024];
	} own;
	unsigned char *ctl = NULL;
	struct ucred uc;
	ssize_t sent;
	int err;

	if (!vouch && broker_caps_can_vouch() && is_unix(c) &&
	    caller_real(c, &uc)) {
		size_t cap =
			CMSG_ALIGN(m->msg_controllen) + CMSG_SPACE(sizeof(uc));

		ctl = cap <= sizeof(own) ? own.b : malloc(cap);
		cap = ctl ? broker_cmsg_add_creds(m->msg_control,
						  m->msg_controllen, &uc, ctl,
						  cap)
			  : 0;
		if (cap) {
			m->msg_control = ctl;
			m->msg_controllen = cap;
			vouch = true;
		}
	}
	if (vouch)
		broker_caps_vouch(true);
	sent = broker_send_held(c, m, flags & ~BROKER_MSG_STRIP, pin);
	err = errno;
	if (vouch)
		broker_caps_vouch(false);
	if (ctl != own.b)
		free(ctl);
	errno = err;
	return sent;
}

static long send_one(const struct broker_call *c, uint64_t addr, int flags)
{
	struct msg_copy mc;
	long ret = read_msg(c, addr, &mc);

	if (!ret) {
		ssize_t sent = broker_send_as(c, &mc.m, flags, &mc.pathfd,
					      mc.cmsgs & BROKER_CMSG_CREDS);

		ret = sent < 0 ? broker_epipe(c, -errno, flags) : (long)sent;
	}
	msg_free(&mc);
	return ret;
}

long broker_sendmsg(const struct broker_call *c)
{
	return send_one(c, c->n->data.args[1], (int)c->n->data.args[2]);
}

/* Each message in turn, its msg_len written back as the kernel does;
 * the count sent, or the first error when none was. */
long broker_sendmmsg(const struct broker_call *c)
{
	uint64_t vec = c->n->data.args[1];
	unsigned int vlen = (unsigned int)c->n->data.args[2];
	int flags = (int)c->n->data.args[3];
	unsigned int i;

	if (vlen > IOV_MAX)
		vlen = IOV_MAX;
	for (i = 0; i < vlen; i++) {
		uint64_t at = vec + i * sizeof(struct mmsghdr);
		long ret = send_one(c, at, flags);
		unsigned int len = (unsigned int)ret;
		struct iovec local = { &len, sizeof(len) };
		struct iovec remote = {
			(void *)(uintptr_t)(at +
					    offsetof(struct mmsghdr, msg_len)),
			sizeof(len)
		};

		if (ret < 0)
			return i ? (long)i : ret;
		process_vm_writev((pid_t)c->n->pid, &local, 1, &remote, 1, 0);
	}
	return (long)i;
}
