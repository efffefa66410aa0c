/*
 * hook_net_darwin.c - connect and bind on macOS.
 *
 * The macOS counterpart of hook_net.c, for the two calls that name an
 * address on every program's way out (sendto and sendmsg with an
 * address are left to Seatbelt, which refuses them all the same).  The
 * decision is net.c's, as on Linux: IPv4 and IPv6 follow the network
 * policy, a UNIX socket with a path is a file.  Refusals fail with
 * EACCES.
 */
#include <sys/socket.h>

#include "shim/darwin/hook_darwin.h"
#include "shim/net.h"

/* A stream socket is TCP, a datagram one UDP: macOS has no SCTP or
 * MPTCP sockets to tell apart. */
enum net_kind net_kind(int fd)
{
	int type = 0;
	socklen_t tl = sizeof(type);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0)
		return NET_KIND_UNKNOWN;
	return type == SOCK_STREAM  ? NET_KIND_TCP
	       : type == SOCK_DGRAM ? NET_KIND_UDP
				    : NET_KIND_OTHER;
}

/* 0 to forward, else -1 with errno set. */
static int net_deny(const char *name, enum net_use use, int fd,
		    const struct sockaddr *sa, socklen_t len)
{
	int err = net_decide(name, use, fd, sa, len);

	if (err)
		errno = err;
	return err ? -1 : 0;
}

/* The end of an allowed call that returned @ret: Seatbelt's refusal of
 * a socket path is reported like any path's. */
static int net_done(const char *name, enum net_use use,
		    const struct sockaddr *sa, socklen_t len, int ret,
		    int saved)
{
	if (ret < 0)
		net_failed(name, use, sa, len, errno);
	else
		errno = saved;
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
