/*
 * session_proto.c - the session's ids, its directory and socket, and
 * lines with descriptors over a stream (session_proto.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "enforce/base/base.h"
#include "enforce/session/session_proto.h"

bool session_id_valid(const char *id)
{
	size_t i;

	for (i = 0; id[i]; i++)
		if (i >= SESSION_ID_LEN || !((id[i] >= '0' && id[i] <= '9') ||
					     (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return i == SESSION_ID_LEN;
}

int session_id_new(char *out)
{
	unsigned char r[SESSION_ID_LEN / 2];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -EIO;
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
	return 0;
}

int session_dir(char out[PATH_BUF])
{
	const struct rundir *rd;
	char err[2 * PATH_BUF];
	int ret = rundir_get(&rd, err, sizeof(err));

	if (ret) {
		say_error("%s", err);
		return ret;
	}
	snprintf(out, PATH_BUF, "%s", rd->path);
	return 0;
}

int session_sock_path(const char *id, char out[108])
{
	char dir[PATH_BUF];
	int ret = session_dir(dir);

	if (ret)
		return ret;
	if (snprintf(out, 108, "%s/%s.sock", dir, id) >= 108)
		return -ENAMETOOLONG;
	return 0;
}

int session_send(int fd, const void *buf, size_t len, const int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(3 * sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds > 0) {
		struct cmsghdr *cm;

		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
	}
	while (len > 0) {
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
		iov.iov_base = (char *)iov.iov_base + n;
		iov.iov_len -= (size_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* Keep the descriptors of @mh in @l (at most three in all). */
static void take_fds(struct session_line *l, struct msghdr *mh)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm;
	     cm = CMSG_NXTHDR(mh, cm)) {
		size_t n;
		int *fds;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		fds = (int *)CMSG_DATA(cm);
		for (size_t i = 0; i < n; i++) {
			if (l->nfds >= 0 && l->nfds < 3) {
				l->fds[l->nfds++] = fds[i];
				continue;
			}
			close(fds[i]);
			session_line_close_fds(l);
			l->nfds = -1;
		}
	}
	if (mh->msg_flags & MSG_CTRUNC) {
		session_line_close_fds(l);
		l->nfds = -1;
	}
}

int session_read_line(int fd, struct session_line *l)
{
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov;
	struct msghdr mh;
	char *nl;
	ssize_t n;

	for (;;) {
		nl = memchr(l->buf, '\n', l->len);
		if (nl) {
			*nl = '\0';
			l->used = (size_t)(nl - l->buf) + 1;
			return 1;
		}
		if (l->len >= SESSION_LINE_MAX)
			return -EMSGSIZE;
		iov = (struct iovec){ l->buf + l->len,
				      SESSION_LINE_MAX - l->len };
		mh = (struct msghdr){ .msg_iov = &iov,
				      .msg_iovlen = 1,
				      .msg_control = cbuf,
				      .msg_controllen = sizeof(cbuf) };
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		take_fds(l, &mh);
		if (n == 0)
			return -EPIPE;
		l->len += (size_t)n;
	}
}

void session_line_next(struct session_line *l)
{
	size_t used = l->used;

	l->used = 0;
	memmove(l->buf, l->buf + used, l->len - used);
	l->len -= used;
}

void session_line_close_fds(struct session_line *l)
{
	for (int i = 0; i < l->nfds; i++)
		close(l->fds[i]);
	if (l->nfds > 0)
		l->nfds = 0;
}
