/*
 * hook_net_darwin.c - connect and bind on macOS.
 *
 * The macOS counterpart of hook_net.c, for the two calls that name an
 * address on every program's way out (sendto and sendmsg with an
 * address are left to Seatbelt, which refuses them all the same).
 * IPv4 and IPv6 follow the network policy: off refuses all, a port
 * list allows TCP to and from the listed ports only, on allows all.  A
 * UNIX socket with a path is a file: reaching it or making it needs W
 * on the path.  Refusals fail with EACCES, as on Linux.
 */
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "hook_darwin.h"
#include "net.h"

#define SUN_PATH_MAX sizeof(((struct sockaddr_un *)0)->sun_path)

void hooks_net_resolve(void)
{
}

/* The policy's verdict on an IPv4 or IPv6 address @ss of @len bytes. */
static int inet_verdict(const char *name, enum net_use use, int fd,
			const struct sockaddr_storage *ss, socklen_t len)
{
	const struct policy *p = &shim.policy;
	struct net_denial d = { .name = name, .use = use, .addr = ss };
	size_t need = ss->ss_family == AF_INET ? sizeof(struct sockaddr_in)
					       : sizeof(struct sockaddr_in6);
	int type = 0;
	socklen_t tl = sizeof(type);

	/* no socket, or a short address: the kernel fails the call */
	if (p->net == NET_ON || len < need ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0)
		return 0;
	d.tcp = type == SOCK_STREAM; /* no SCTP or MPTCP sockets here */
	if (p->net == NET_OFF)
		d.why = NET_WHY_OFF;
	else if (!d.tcp)
		d.why = NET_WHY_NOT_TCP;
	else if (policy_tcp_allowed(p, use == NET_USE_BIND, net_port(ss)))
		return 0;
	else
		d.why = NET_WHY_PORT;
	report_net_denial(&d);
	return shim.extra.learn ? 0 : EACCES; /* learning: recorded */
}

/* The path of the UNIX address @sa of @len bytes, into @path; false
 * for an unnamed or malformed one (the kernel decides). */
static bool socket_path(const struct sockaddr *sa, socklen_t len,
			char path[SUN_PATH_MAX + 1])
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)sa;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	size_t n;

	if (len <= off || len > sizeof(*sun) || !sun->sun_path[0])
		return false;
	n = strnlen(sun->sun_path, len - off);
	memcpy(path, sun->sun_path, n);
	path[n] = '\0';
	return true;
}

static struct op socket_op(const char *name, enum net_use use, const char *path)
{
	return OP(name, RIGHT_W, AT_FDCWD, path,
		  use == NET_USE_BIND ? PATH_NOFOLLOW : 0);
}

/* 0 to forward, or the errno to fail with. */
static int verdict(const char *name, enum net_use use, int fd,
		   const struct sockaddr *sa, socklen_t len)
{
	struct sockaddr_storage ss;
	char path[SUN_PATH_MAX + 1];
	struct op op;

	if (!sa || len < offsetof(struct sockaddr, sa_data))
		return 0;
	if (sa->sa_family == AF_UNIX) {
		if (!socket_path(sa, len, path))
			return 0;
		op = socket_op(name, use, path);
		return shim_check(&op);
	}
	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return 0;
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, sa, len < sizeof(ss) ? len : sizeof(ss));
	return inet_verdict(name, use, fd, &ss, len);
}

static int net_deny(const char *name, enum net_use use, int fd,
		    const struct sockaddr *sa, socklen_t len)
{
	int err;

	if (!shim_is_ready())
		shim_init();
	if (!shim.active || !guard_enter())
		return 0;
	err = verdict(name, use, fd, sa, len);
	guard_leave();
	if (err)
		errno = err;
	return err ? -1 : 0;
}

/* After an allowed call failed: Seatbelt's refusal of a socket path is
 * reported like any path's. */
static int net_done(const char *name, enum net_use use,
		    const struct sockaddr *sa, socklen_t len, int ret,
		    int saved)
{
	char path[SUN_PATH_MAX + 1];
	struct op op;

	if (ret >= 0) {
		errno = saved;
		return ret;
	}
	if (sa && len > offsetof(struct sockaddr, sa_data) &&
	    sa->sa_family == AF_UNIX && socket_path(sa, len, path)) {
		op = socket_op(name, use, path);
		hook_failed(&op, errno);
	}
	return ret;
}

static int cordon_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	int saved = errno;

	if (net_deny("connect", NET_USE_CONNECT, fd, sa, len))
		return -1;
	return net_done("connect", NET_USE_CONNECT, sa, len,
			connect(fd, sa, len), saved);
}
INTERPOSE(cordon_connect, connect);

static int cordon_bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	int saved = errno;

	if (net_deny("bind", NET_USE_BIND, fd, sa, len))
		return -1;
	return net_done("bind", NET_USE_BIND, sa, len, bind(fd, sa, len),
			saved);
}
INTERPOSE(cordon_bind, bind);
