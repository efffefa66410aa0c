/*
 * net.h - what the network hooks (hook_net.c, darwin/hook_net_darwin.c),
 * their decision (net.c) and their report (report_net.c) share: a
 * refused IPv4 or IPv6 destination.
 *
 * A UNIX socket with a path is a file and goes through shim_check() and
 * report_denial() like any other path; only addresses come here.
 */
#ifndef CORDON_NET_H
#define CORDON_NET_H

#include <stdbool.h>
#include <sys/socket.h>

/* What the call does with the address. */
enum net_use {
	NET_USE_CONNECT, /* connect(): a TCP connection or a UDP default */
	NET_USE_SEND,	 /* sendto/sendmsg/sendmmsg with a destination */
	NET_USE_BIND,	 /* bind(): a local port */
};

/* Why the policy refuses it. */
enum net_why {
	NET_WHY_OFF,	 /* network off */
	NET_WHY_PORT,	 /* TCP, but the port is not listed */
	NET_WHY_NOT_TCP, /* only TCP ports are allowed; this is not TCP */
};

struct net_denial {
	const char *name; /* the hook: "connect", "sendto", "bind", ... */
	enum net_use use;
	enum net_why why;
	bool tcp; /* a TCP socket: a port grant (--connect, --bind) helps */
	const struct sockaddr_storage *addr; /* AF_INET or AF_INET6 */
};

/* "255.255.255.255:65535", "[ffff:...:ffff%4294967295]:65535" */
#define NET_ADDR_MAX 72

/* The port of an AF_INET or AF_INET6 address, in host order. */
unsigned int net_port(const struct sockaddr_storage *ss);

/* @ss as "host:port" ("[v6]:port"), RFC 5952 for IPv6. */
void net_addr_str(const struct sockaddr_storage *ss, char out[NET_ADDR_MAX]);

/**
 * net_decide - the decision of a hook that names the address @sa (@len
 * bytes; NULL: none) on @fd, with the lazy init and the reentrancy
 * guard: a UNIX socket path needs W on it, an IPv4 or IPv6 address
 * follows the network policy (reported when refused), anything else is
 * the kernel layer's.  Async-signal-safe.
 * Return: 0 to forward the call, or the errno to fail it with (EACCES).
 */
int net_decide(const char *name, enum net_use use, int fd,
	       const struct sockaddr *sa, socklen_t len);

/* After an allowed call on @sa failed with @err: a kernel denial of a
 * UNIX socket path is reported like any path's.  errno is @err after. */
void net_failed(const char *name, enum net_use use, const struct sockaddr *sa,
		socklen_t len, int err);

/**
 * net_is_tcp - each OS's own (in its hook file): is @fd plain TCP, as the
 * launcher's kernel layer sees it?  *@known is false when @fd is no
 * socket (the kernel fails the call).  Async-signal-safe.
 */
bool net_is_tcp(int fd, bool *known);

/**
 * report_net_denial - the line on stderr (unless quiet, once per
 * operation and destination in this process) and the audit record of
 * @d.  Allocates nothing; does not change errno.
 */
void report_net_denial(const struct net_denial *d);

#endif
