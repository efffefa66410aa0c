/*
 * broker_call.c - one notified call, performed by the broker on the
 * command's own socket: the descriptor taken with pidfd_getfd(), the
 * address and the data copied once with process_vm_readv() (the broker
 * acts on its copy and never reads again), the decision on what the
 * copy names, then the call itself and its result as the answer.
 *
 * A pathname UNIX address is resolved as the command would resolve it:
 * in its mount namespace, from its root (and its working directory for
 * a relative path), following symlinks as connect() does, to an O_PATH
 * descriptor of the socket file.  The decision is taken on that
 * descriptor's path, and the call goes to "/proc/self/fd/N": to the
 * inode checked, whatever the names around it become meanwhile.
 *
 * A path that meets no symlink is resolved with RESOLVE_NO_SYMLINKS and
 * decided on its normal form (the inode's path, when the command's root
 * is its namespace's), with no readlink; one that meets a symlink is
 * resolved again, following it, and decided on the opened inode's path.
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

#include "enforce/broker/broker_call.h"
#include "enforce/broker/broker_own.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

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

/* The command's working directory, as a path in its own namespace. */
static int target_cwd(pid_t pid, char cwd[PATH_BUF])
{
	char proc[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)pid);
	n = readlink(proc, cwd, PATH_BUF - 1);
	if (n < 0)
		return -errno;
	cwd[n] = '\0';
	/* "(unreachable)/..." or a deleted directory: nothing to name. */
	return cwd[0] == '/' ? 0 : -ENOENT;
}

/* The path of the open @fd, in @out: "/..." (else -ENOENT). */
static int fd_path(int fd, char out[PATH_BUF])
{
	char proc[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, out, PATH_BUF - 1);
	if (n < 0)
		return -errno;
	out[n] = '\0';
	return out[0] == '/' ? 0 : -ENOENT;
}

/* Open the root of thread @tid into @t (unchecked yet: unix_vet), and
 * note whether it is the root of its mount namespace ("/" seen from
 * here), where a path through no symlink names its inode as given. */
static int open_root(struct broker_target *t, pid_t tid)
{
	char proc[64], path[PATH_BUF];

	snprintf(proc, sizeof(proc), "/proc/%d/root", (int)tid);
	t->root = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
	t->root_checked = false;
	if (t->root < 0)
		return -errno;
	t->root_lexical = !fd_path(t->root, path) && !strcmp(path, "/");
	return 0;
}

/* Open the socket file @path names for process @pid, from its root,
 * into *@fd, and its path in @resolved. */
static int open_unix(const struct broker_call *c, const char *path, int *fd,
		     char resolved[PATH_BUF])
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char full[PATH_BUF];
	int ret = 0;

	full[0] = '\0';
	if (path[0] != '/') {
		ret = target_cwd((pid_t)c->n->pid, full);
		if (!ret && strlen(full) + 1 + strlen(path) >= PATH_BUF)
			ret = -ENAMETOOLONG;
		if (ret)
			return ret;
		strncat(full, "/", PATH_BUF - strlen(full) - 1);
	}
	strncat(full, path, PATH_BUF - strlen(full) - 1);
	if (c->t->root < 0) {
		ret = open_root(c->t, (pid_t)c->n->pid);
		if (ret)
			return ret;
	}
	/* Through no symlink, the inode's path is the path given, made
	 * normal: no readlink needed (when the root is its namespace's). */
	if (c->t->root_lexical) {
		how.resolve |= RESOLVE_NO_SYMLINKS;
		*fd = (int)syscall(SYS_openat2, c->t->root, full, &how,
				   sizeof(how));
		if (*fd >= 0)
			return path_normalize(full, resolved) ? -ENOENT : 0;
		if (errno != ELOOP)
			return -errno;
		how.resolve &= ~(__u64)RESOLVE_NO_SYMLINKS;
	}
	*fd = (int)syscall(SYS_openat2, c->t->root, full, &how, sizeof(how));
	if (*fd < 0)
		return -errno;
	ret = fd_path(*fd, resolved);
	if (ret) {
		close(*fd);
		*fd = -1;
	}
	return ret;
}

/* A pathname AF_UNIX address: the path as given (the kernel ends it at
 * the first NUL or at the address's end). */
static int unix_vet(const struct broker_call *c, const char *op,
		    struct sockaddr_storage *ss, socklen_t *len, int *pathfd)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)ss;
	size_t max = *len - offsetof(struct sockaddr_un, sun_path);
	char given[sizeof(sun->sun_path) + 1], resolved[PATH_BUF];
	int ret;

	memcpy(given, sun->sun_path, max);
	given[max] = '\0';
	ret = open_unix(c, given, pathfd, resolved);
	if (ret)
		return ret;
	ret = still_valid(c) ? 0 : -ENOENT;
	if (!ret) {
		/* The caller was waiting all along: the root is its own. */
		c->t->root_checked = true;
		ret = broker_may_unix(c->b, resolved, *pathfd);
	}
	if (ret) {
		close(*pathfd);
		*pathfd = -1;
	}
	if (ret == -ENOENT || ret == -ECONNREFUSED)
		return ret;
	if (ret) {
		c->denial->op = op;
		c->denial->shared = ret == -EEXIST;
		snprintf(c->denial->given, PATH_BUF, "%s", given);
		snprintf(c->denial->resolved, PATH_BUF, "%s", resolved);
		return -EACCES;
	}
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "/proc/self/fd/%d",
		 *pathfd);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			   strlen(sun->sun_path) + 1);
	return 0;
}

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/* Does the command's socket live in another network namespace than
 * the supervisor's: the command's own?  Asked by the namespaces'
 * cookies (Linux 5.14): SIOCGSKNS needs CAP_NET_ADMIN over the socket's
 * namespace, which a root supervisor's broker threads no longer hold
 * (broker_caps.c). */
static bool own_netns(const struct broker_call *c)
{
	static uint64_t mine;
	uint64_t its = 0, here = __atomic_load_n(&mine, __ATOMIC_RELAXED);
	socklen_t len = sizeof(its);
	int s;

	if (!here) {
		s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		len = sizeof(here);
		if (s < 0 ||
		    getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, &here, &len)) {
			if (s >= 0)
				close(s);
			return false;
		}
		close(s);
		__atomic_store_n(&mine, here, __ATOMIC_RELAXED);
		len = sizeof(its);
	}
	if (getsockopt(c->sock, SOL_SOCKET, SO_NETNS_COOKIE, &its, &len))
		return false;
	return its != here;
}

/* Abstract: Landlock's scope refuses one bound outside the command's
 * domain, and the broker, outside that domain, tells them apart itself:
 * in a network namespace of the command's own (the network off) every
 * abstract name is the command's; in the host's, only a socket it bound
 * (broker_own.c), held in *@pin until the call is made.  Refused as the
 * scope refuses. */
static int abstract_vet(const struct broker_call *c,
			const struct sockaddr_storage *ss, socklen_t len,
			int *pin)
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)ss;

	if (!own_netns(c)) {
		*pin = broker_own_abstract(
			c, sun->sun_path,
			len - offsetof(struct sockaddr_un, sun_path));
		if (*pin < 0)
			return *pin;
	}
	if (still_valid(c))
		return 0;
	if (*pin >= 0)
		close(*pin);
	*pin = -1;
	return -ENOENT;
}

int broker_vet(const struct broker_call *c, const char *op,
	       struct sockaddr_storage *ss, socklen_t *len, int *pathfd)
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)ss;
	unsigned int port = 0;

	*pathfd = -1;
	if (*len < sizeof(sa_family_t))
		return still_valid(c) ? 0 : -ENOENT; /* the kernel answers */
	switch (ss->ss_family) {
	case AF_UNIX:
		if (*len <= offsetof(struct sockaddr_un, sun_path))
			break; /* unnamed: the kernel answers */
		if (*len > sizeof(struct sockaddr_un))
			return -EINVAL; /* as the kernel answers */
		if (sun->sun_path[0] == '\0')
			return abstract_vet(c, ss, *len, pathfd);
		return unix_vet(c, op, ss, len, pathfd);
	case AF_INET:
		if (*len >= sizeof(struct sockaddr_in))
			port = ntohs(((struct sockaddr_in *)ss)->sin_port);
		break;
	case AF_INET6:
		if (*len >= sizeof(struct sockaddr_in6))
			port = ntohs(((struct sockaddr_in6 *)ss)->sin6_port);
		break;
	default:
		break;
	}
	if (!still_valid(c))
		return -ENOENT;
	/* Landlock checks the port of a TCP connect; the broker, outside the
	 * domain, checks it in its place (a UDP socket exists only with the
	 * network on, where every port is allowed). */
	if ((ss->ss_family == AF_INET || ss->ss_family == AF_INET6) &&
	    broker_sock_type(c) == SOCK_STREAM &&
	    !broker_may_tcp(c->b, false, port))
		return -EACCES;
	return 0;
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
	 * (broker.c) takes the lead over if it does. */
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
