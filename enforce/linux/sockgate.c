/*
 * sockgate.c - the broker (broker_loop.c) wired between the sandbox and the
 * supervisor.
 *
 * What is installed: where Landlock holds the UNIX sockets (RESOLVE_UNIX,
 * ABI 9, and the abstract scope, ABI 6), no broker for connects and
 * sends at all (Landlock also holds TCP from ABI 4 and UDP from ABI 10:
 * nothing is left for it); with TCP ports allowed, listen() alone.
 * Elsewhere the whole broker.
 *
 * The platform gate is a stream socketpair made before the fork.  The
 * sandboxed process (the namespace's pid 1, before it starts the
 * command; or the command itself without namespaces) installs the
 * broker's filter after the seccomp filter, so that every process it
 * starts carries both, and gives the listener's number over its end;
 * the supervisor takes the descriptor with pidfd_getfd() and serves it
 * until the command has ended.  pid 1 is made undumpable early (pid1.c)
 * and its memory belongs to the host's user namespace (it never
 * executes), so for that one exchange it is dumpable again: no process
 * of the command exists yet, and it is sealed again before the command
 * is started.  pid 1 keeps neither the listener nor the gate.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/broker/broker.h"
#include "enforce/linux/linux.h"

/* Can a listener be made under the filters above?  The kernel takes one
 * per chain of filters (EBUSY for a second: another supervisor above,
 * a cordon inside a cordon): tried in a child, which is thrown away. */
static bool listener_free(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };
	int st;
	pid_t pid;

	/* under no filter at all (one system call, where reading
	 * Seccomp_filters from /proc/self/status costs ~50 us a start) */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0)
		return true;
	pid = fork();
	if (pid == 0)
		_exit(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
				      syscall(SYS_seccomp,
					      SECCOMP_SET_MODE_FILTER,
					      SECCOMP_FILTER_FLAG_NEW_LISTENER,
					      &prog) >= 0
			      ? 0
			      : 1);
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0;
}

/* Does the kernel take a listener (Linux 5.0; the broker's calls need
 * 5.6: pidfd_getfd, openat2)?  Flags are checked before the program is
 * read: EFAULT for a missing program means they are known. */
static bool has_user_notif(void)
{
	unsigned int action = SECCOMP_RET_USER_NOTIF;

	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) != 0)
		return false;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		       SECCOMP_FILTER_FLAG_NEW_LISTENER, NULL) < 0 &&
	       errno == EFAULT && syscall(SYS_pidfd_getfd, -1, 0, 0) < 0 &&
	       errno == EBADF && listener_free();
}

/* Does Landlock hold the UNIX sockets here (landlock_features()'s
 * rows): a pathname one by RESOLVE_UNIX, an abstract one by its scope?
 * Then the broker's connect and sends are not installed: a connect
 * costs what it costs bare. */
static bool landlock_unix(const struct feature_set *s)
{
	const struct feature *path = feature_find(s, FEATURE_RESOLVE_UNIX),
			     *abstract = feature_find(s, FEATURE_ABSTRACT);

	return path && path->available && abstract && abstract->available;
}

void sockgate_features(const struct policy *p, struct feature_set *s)
{
	sockgate_rows(p, s, has_user_notif());
}

void sockgate_rows(const struct policy *p, struct feature_set *s,
		   bool available)
{
	struct feature f = {
		.layer = "broker",
		.name = FEATURE_BROKER,
		.needs = "seccomp user notification (Linux 5.6), and no "
			 "other supervisor's above",
		.needed = !landlock_unix(s),
		.available = available,
	};

	feature_add(s, f);
	/* Landlock checks the port bind() gives, not the one a listen()
	 * takes for a socket with none (policy_listen_allowed()) */
	f.name = FEATURE_BROKER_LISTEN;
	f.needed = p->net == NET_PORTS;
	feature_add(s, f);
}

int sockgate_broker(const struct feature_set *s)
{
	const struct feature *all = feature_find(s, FEATURE_BROKER),
			     *listen = feature_find(s, FEATURE_BROKER_LISTEN);

	if (!all || !all->available)
		return SOCKGATE_NONE;
	if (all->needed)
		return SOCKGATE_ALL;
	return listen && listen->needed ? SOCKGATE_LISTEN : SOCKGATE_NONE;
}

/* The capture's table and sockets, in one message (SCM_RIGHTS: they
 * are ordinary sockets); pid 1 keeps none.  Its data: */
struct netcap_wire {
	uint32_t n;
	uint8_t captured;
	char why[300];
	struct {
		int32_t kind;
		struct sockaddr_storage to;
	} s[NETCAP_SOCKS_MAX];
};

static int give_netcap(int gate, struct netcap *nc)
{
	static struct netcap_wire w;
	union {
		char buf[CMSG_SPACE(sizeof(int) * NETCAP_SOCKS_MAX)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { &w, sizeof(w) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *h;
	char ack;
	int ret = 0;

	memset(&w, 0, sizeof(w));
	w.n = (uint32_t)nc->n;
	w.captured = nc->captured;
	memcpy(w.why, nc->why, sizeof(w.why));
	for (size_t i = 0; i < nc->n; i++) {
		w.s[i].kind = nc->socks[i].kind;
		w.s[i].to = nc->socks[i].to;
	}
	if (nc->n) {
		m.msg_control = ctl.buf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * nc->n);
		h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int) * nc->n);
		for (size_t i = 0; i < nc->n; i++)
			memcpy(CMSG_DATA(h) + i * sizeof(int), &nc->socks[i].fd,
			       sizeof(int));
	}
	if (sendmsg(gate, &m, MSG_NOSIGNAL) != (ssize_t)sizeof(w) ||
	    read(gate, &ack, 1) != 1)
		ret = -EPIPE;
	for (size_t i = 0; i < nc->n; i++)
		close(nc->socks[i].fd);
	nc->n = 0;
	return ret;
}

static int take_netcap(int gate, struct netcap *nc)
{
	static struct netcap_wire w;
	union { /* the gate passes credentials too (SO_PASSCRED) */
		char buf[CMSG_SPACE(sizeof(int) * NETCAP_SOCKS_MAX) +
			 CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { &w, sizeof(w) };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *h;
	size_t nfds = 0;
	ssize_t n = recvmsg(gate, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL);
	int ret = 0;

	memset(nc, 0, sizeof(*nc));
	if (n <= 0)
		return n < 0 ? -errno : -EPIPE;
	for (h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS)
			break;
	if (h)
		nfds = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	if (n != sizeof(w) || w.n > NETCAP_SOCKS_MAX || nfds != w.n ||
	    (m.msg_flags & MSG_CTRUNC))
		ret = -EPROTO;
	for (size_t i = 0; i < nfds; i++) {
		int fd;

		memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
		if (ret || w.s[i].kind < PROXY_SOCK_CAPTURE ||
		    w.s[i].kind > PROXY_SOCK_FORWARD_NAME) {
			close(fd);
			ret = -EPROTO;
			continue;
		}
		nc->socks[nc->n].fd = fd;
		nc->socks[nc->n].kind = (enum proxy_sock_kind)w.s[i].kind;
		nc->socks[nc->n++].to = w.s[i].to;
	}
	nc->captured = w.captured;
	memcpy(nc->why, w.why, sizeof(nc->why));
	nc->why[sizeof(nc->why) - 1] = '\0';
	if (write(gate, "", 1) != 1 && !ret)
		ret = -EPIPE;
	if (ret) {
		for (size_t i = 0; i < nc->n; i++)
			close(nc->socks[i].fd);
		nc->n = 0;
	}
	return ret;
}

int sockgate_install(int gate, int broker, enum net_mode net, int proxy,
		     struct netcap *nc, char *err, size_t errlen)
{
	int listener = -1, ret = 0,
	    dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);

	/* the capture's sockets first: under the broker's filter, the
	 * sendmsg would wait for the broker, which waits for this */
	if (net == NET_HOSTS && nc)
		ret = give_netcap(gate, nc);
	if (!ret && broker != SOCKGATE_NONE)
		ret = broker_install(net, broker == SOCKGATE_LISTEN, &listener,
				     err, errlen);
	if (!ret && dumpable == 0 && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		ret = -errno;
	/* the broker's listener, then the proxy's socket: -1 for none */
	if (!ret)
		ret = broker_give_listener(gate, listener);
	if (!ret)
		ret = broker_give_listener(gate, proxy);
	if (ret && !*err)
		snprintf(err, errlen, "cannot hand the broker over: %s",
			 strerror(-ret));
	if (dumpable == 0 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) && !ret) {
		ret = -errno;
		snprintf(err, errlen, "cannot make pid 1 undumpable: %s",
			 strerror(-ret));
	}
	if (listener >= 0)
		close(listener);
	if (proxy >= 0)
		close(proxy);
	close(gate);
	return ret;
}

struct served {
	struct broker *broker;
	void *hosts; /* hostgate.h */
};

int sockgate_serve(int gate, const struct policy *p,
		   void (*record)(void *arg, json_t *rec), void *arg,
		   void **handle)
{
	struct served *sv = calloc(1, sizeof(*sv));
	static struct netcap nc;
	int listener = -1, proxy = -1, ret = sv ? 0 : -ENOMEM;

	*handle = NULL;
	if (!ret && p->net == NET_HOSTS)
		ret = take_netcap(gate, &nc);
	if (!ret)
		ret = broker_take_listener(gate, &listener);
	if (!ret)
		ret = broker_take_listener(gate, &proxy);
	close(gate);
	if (ret == -EPIPE)
		ret = 0; /* the child ended first: it says why */
	if (!ret && listener >= 0) {
		ret = broker_start(&sv->broker, listener, p, record, arg);
		if (ret)
			close(listener);
		listener = -1;
	}
	if (!ret && proxy >= 0)
		ret = hostgate_serve(proxy, &nc, p, record, arg, &sv->hosts);
	else if (proxy >= 0)
		close(proxy);
	if (listener >= 0)
		close(listener);
	if (sv)
		*handle = sv;
	return ret;
}

void sockgate_stop(void *handle)
{
	struct served *sv = handle;

	if (!sv)
		return;
	hostgate_stop(sv->hosts);
	if (sv->broker)
		broker_stop(sv->broker);
	free(sv);
}
