/*
 * proxy_own.c - the host's own addresses, as the egress proxy sees them
 * now: read at the start, and read again whenever the kernel says one
 * came or went (a netlink socket on RTNLGRP_IPV4_IFADDR and
 * RTNLGRP_IPV6_IFADDR, an event of the proxy's loop).  A name under a
 * wildcard never reaches one of them (proxy_conn.c).
 *
 * No gap between a change and the decision: proxy_is_own() first takes
 * what the socket holds, so an address added before the check (the
 * kernel queues the news before `ip addr add` returns) is known to it,
 * whether or not the loop came round to the event yet.  The socket
 * subscribes before the first read, so no change falls between them; a
 * socket that overflowed (ENOBUFS) lost news, and it reads again too.
 * Fails closed: while the addresses cannot be read, every address is
 * the host's own.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enforce/proxy/proxy_int.h"

/* The addresses of getifaddrs(), into @o; false when unread. */
static bool reread(struct own_addrs *o)
{
	struct ifaddrs *ifa, *i;
	size_t n = 0, cap = 0;
	struct sockaddr_storage *v = NULL, *grown;

	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i; i = i->ifa_next) {
		int fam = i->ifa_addr ? i->ifa_addr->sa_family : AF_UNSPEC;

		if (fam != AF_INET && fam != AF_INET6)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			grown = cap > OWN_ADDRS_MAX
					? NULL
					: realloc(v, cap * sizeof(*v));
			if (!grown) {
				free(v);
				freeifaddrs(ifa);
				return false;
			}
			v = grown;
		}
		memset(&v[n], 0, sizeof(v[n]));
		memcpy(&v[n++], i->ifa_addr,
		       fam == AF_INET ? sizeof(struct sockaddr_in)
				      : sizeof(struct sockaddr_in6));
	}
	freeifaddrs(ifa);
	free(o->addrs);
	o->addrs = v;
	o->n = n;
	return true;
}

/* Take the news queued on the socket; read again if there was any. */
static void refresh(struct own_addrs *o)
{
	char buf[8192];
	bool changed = o->unread;
	ssize_t r;

	for (;;) {
		r = recv(o->nl, buf, sizeof(buf), MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		changed = true; /* news, lost news (ENOBUFS), or a failure */
		if (r == 0 || (r < 0 && errno != ENOBUFS))
			break;
	}
	if (changed)
		o->unread = !reread(o);
}

static void on_news(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	refresh(arg);
}

int own_start(struct proxy *px)
{
	struct own_addrs *o = &px->own;
	struct sockaddr_nl nl = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR,
	};

	o->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       NETLINK_ROUTE);
	if (o->nl < 0)
		return -errno;
	if (bind(o->nl, (struct sockaddr *)&nl, sizeof(nl)))
		return -errno;
	o->ev = event_new(px->base, o->nl, EV_READ | EV_PERSIST, on_news, o);
	if (!o->ev || event_add(o->ev, NULL))
		return -ENOMEM;
	o->unread = !reread(o);
	return 0;
}

void own_stop(struct proxy *px)
{
	struct own_addrs *o = &px->own;

	if (o->ev)
		event_free(o->ev);
	if (o->nl >= 0)
		close(o->nl);
	free(o->addrs);
	memset(o, 0, sizeof(*o));
	o->nl = -1;
}

bool proxy_is_own(struct proxy *px, const struct sockaddr *sa)
{
	struct own_addrs *o = &px->own;
	const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)sa;
	struct sockaddr_in v4 = { .sin_family = AF_INET };

	/* ::ffff:a.b.c.d is a.b.c.d, to connect() as to this check */
	if (sa->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
		memcpy(&v4.sin_addr, v6->sin6_addr.s6_addr + 12, 4);
		sa = (const struct sockaddr *)&v4;
	}
	refresh(o);
	if (o->unread)
		return true;
	for (size_t i = 0; i < o->n; i++)
		if (proxy_addr_same((const struct sockaddr *)&o->addrs[i], sa))
			return true;
	return false;
}
