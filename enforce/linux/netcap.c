/*
 * netcap.c - transparent capture in the network namespace of hosts
 * allowed (linux.h): whatever a program does, each TCP connection it
 * makes to an address other than the namespace's own reaches cordon's
 * proxy, and each name it looks up reaches cordon's resolver.
 *
 * Why a redirect inside the namespace rather than a TUN device: with a
 * TUN device the supervisor would terminate TCP itself, in a userspace
 * TCP stack (lwIP, libslirp) fed raw packets by the command, outside the
 * sandbox: a parser of hostile packets with the supervisor's authority,
 * and a copy of every byte through it.  A redirect keeps the kernel's own
 * TCP on both sides: the proxy accepts an ordinary socket, reads the
 * destination the program asked for with SO_ORIGINAL_DST (conntrack's),
 * decides, and splices as for the proxy variables.  What it needs is
 * nf_tables with NAT, which Debian's and Ubuntu's kernels build (as
 * modules, loaded on first use) from 5.10 on; where it is missing the run
 * goes on with the proxy variables alone, and says so, since nothing
 * reaches out of the namespace either way: capture is reach, not the
 * boundary.
 *
 * Set up by pid 1, just after unshare(CLONE_NEWNET) (ns.c), before the
 * command exists:
 *  - the dummy addresses 192.0.0.8 (RFC 7600) and fd63:6f72:646f:6e00::1
 *    on the loopback, each the source of a default route through it, so
 *    that a connect to anywhere is routed (and then redirected), never
 *    ENETUNREACH;
 *  - nft's rules (table inet cordon): port 53, TCP or UDP, to any
 *    address goes to cordon's resolver on the loopback; other TCP to
 *    other addresses to the capture listener (127.0.0.1 or [::1] port
 *    POLICY_CAPTURE_PORT); anything else not local is rejected;
 *  - the resolver's sockets (UDP and TCP, port 53) on 127.0.0.1, ::1
 *    and each /etc/resolv.conf name server (its address added to the
 *    loopback when it is not one of its own): the name servers the
 *    command's resolver asks are cordon's even without the rules;
 *  - a listener for each --allow-host naming a loopback address and
 *    port (localhost:PORT, 127.0.0.1:PORT, [::1]:PORT, a name
 *    /etc/hosts puts on the loopback), which the proxy forwards to that
 *    port of the host's loopback (80 and 443 for a rule without one).
 * The sockets go to the supervisor (sockgate.c) and pid 1 keeps none.
 *
 * nft is run as a program (/usr/sbin/nft, Debian's nftables, priority
 * important): libnftables has no static archive in Debian and the
 * launcher is linked static-pie; for the same reason (libnl's archives
 * crash a static-pie program at start) the two addresses and routes are
 * rtnetlink messages written here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <resolv.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enforce/linux/linux.h"
#include "enforce/proxy/proxy.h"

#define NFT_WAIT_MS 5000

void netcap_features(const struct policy *p, bool netns_ok,
		     struct feature_set *s)
{
	feature_add(s, (struct feature){
			       .layer = "capture",
			       .name = FEATURE_CAPTURE,
			       .needs = "nf_tables with NAT in the kernel, "
					"and nft (Debian's nftables)",
			       .needed = false,
			       .available = netns_ok && p->net == NET_HOSTS &&
					    netcap_nft() != NULL,
		       });
}

/* ---- the sockets ---- */

static int add_sock(struct netcap *nc, int fd, enum proxy_sock_kind kind,
		    const struct sockaddr_storage *to)
{
	if (nc->n == NETCAP_SOCKS_MAX) {
		close(fd);
		return -E2BIG;
	}
	nc->socks[nc->n].fd = fd;
	nc->socks[nc->n].kind = kind;
	if (to)
		nc->socks[nc->n].to = *to;
	nc->n++;
	return 0;
}

static socklen_t sa_len(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET ? sizeof(struct sockaddr_in)
				       : sizeof(struct sockaddr_in6);
}

static uint16_t port_of(const struct sockaddr_storage *a)
{
	return ntohs(a->ss_family == AF_INET
			     ? ((const struct sockaddr_in *)a)->sin_port
			     : ((const struct sockaddr_in6 *)a)->sin6_port);
}

static void set_port(struct sockaddr_storage *a, uint16_t port)
{
	if (a->ss_family == AF_INET)
		((struct sockaddr_in *)a)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)a)->sin6_port = htons(port);
}

/* A socket of @type bound to @a (its port set), listening if a stream.
 * Return: it, or -errno. */
static int bound(const struct sockaddr_storage *a, int type)
{
	int fd = socket(a->ss_family, type | SOCK_CLOEXEC, 0), one = 1, ret;

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (a->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)a, sa_len(a)) < 0 ||
	    (type == SOCK_STREAM && listen(fd, SOMAXCONN) < 0)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/* Did an IPv6 socket fail for want of IPv6 (ipv6.disable=1, or no ::1)? */
static bool no_ipv6(int err)
{
	return err == -EADDRNOTAVAIL || err == -EAFNOSUPPORT;
}

static void addr_of(struct sockaddr_storage *a, const char *text)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, text, &((struct sockaddr_in *)a)->sin_addr) == 1)
		a->ss_family = AF_INET;
	else if (inet_pton(AF_INET6, text,
			   &((struct sockaddr_in6 *)a)->sin6_addr) == 1)
		a->ss_family = AF_INET6;
}

static bool same_addr(const struct sockaddr_storage *a,
		      const struct sockaddr_storage *b)
{
	return proxy_addr_same((const struct sockaddr *)a,
			       (const struct sockaddr *)b);
}

/* /etc/resolv.conf's name servers, as glibc's resolver reads them, and
 * the two loopback addresses, without repeats: at most @max. */
static size_t name_servers(struct sockaddr_storage *out, size_t max)
{
	struct __res_state st;
	size_t n = 0;

	addr_of(&out[n++], "127.0.0.1");
	addr_of(&out[n++], "::1");
	memset(&st, 0, sizeof(st));
	if (res_ninit(&st) != 0)
		return n;
	for (int i = 0; i < st.nscount && i < MAXNS && n < max; i++) {
		struct sockaddr_storage a = { 0 };
		bool seen = false;

		if (st.nsaddr_list[i].sin_family == AF_INET) {
			memcpy(&a, &st.nsaddr_list[i],
			       sizeof(struct sockaddr_in));
		} else if (st._u._ext.nsaddrs[i]) {
			memcpy(&a, st._u._ext.nsaddrs[i],
			       sizeof(struct sockaddr_in6));
		} else {
			continue;
		}
		if (a.ss_family != AF_INET && a.ss_family != AF_INET6)
			continue;
		for (size_t j = 0; j < n; j++)
			seen = seen || same_addr(&a, &out[j]);
		if (!seen)
			out[n++] = a;
	}
	res_nclose(&st);
	return n;
}

/* The loopback address /etc/hosts gives @name (by glibc's own reader of
 * the file: the name inside resolves the same way), into @out. */
static bool hosts_loopback(const char *name, struct sockaddr_storage *out)
{
	struct hostent *h;
	bool found = false;

	sethostent(0);
	while (!found && (h = gethostent())) {
		bool named = strcasecmp(h->h_name, name) == 0;

		for (char **a = h->h_aliases; !named && a && *a; a++)
			named = strcasecmp(*a, name) == 0;
		if (!named || h->h_addrtype != AF_INET || !h->h_addr_list[0])
			continue;
		memset(out, 0, sizeof(*out));
		out->ss_family = AF_INET;
		memcpy(&((struct sockaddr_in *)out)->sin_addr,
		       h->h_addr_list[0], 4);
		found = (ntohl(((struct sockaddr_in *)out)->sin_addr.s_addr) >>
			 24) == 127;
	}
	endhostent();
	return found;
}

/* Is @r a rule for a loopback address (localhost, or a name /etc/hosts
 * puts there)?  Its addresses into @out (at most two).  Return: how
 * many. */
static size_t loopback_of(const struct proxy_rule *r,
			  struct sockaddr_storage out[2])
{
	if (!r->is_ip) {
		if (r->wildcard)
			return 0;
		if (strcmp(r->host, "localhost") != 0)
			return hosts_loopback(r->host, &out[0]) ? 1 : 0;
		addr_of(&out[0], "127.0.0.1");
		addr_of(&out[1], "::1");
		return 2;
	}
	out[0] = r->addr;
	if (r->addr.ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)&r->addr)
				      ->sin_addr.s_addr) >>
			24) == 127;
	return r->addr.ss_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(
		       &((const struct sockaddr_in6 *)&r->addr)->sin6_addr);
}

/* Is there a forward of @a (its port too) already? */
static bool have_forward(const struct netcap *nc,
			 const struct sockaddr_storage *a)
{
	for (size_t i = 0; i < nc->n; i++)
		if ((nc->socks[i].kind == PROXY_SOCK_FORWARD ||
		     nc->socks[i].kind == PROXY_SOCK_FORWARD_NAME) &&
		    same_addr(&nc->socks[i].to, a) &&
		    port_of(&nc->socks[i].to) == port_of(a))
			return true;
	return false;
}

static bool own_port(uint16_t port)
{
	return port == POLICY_PROXY_PORT || port == POLICY_CAPTURE_PORT ||
	       port == 53;
}

/* The forwarding listeners of the rules naming loopback ports. */
static int forwards(const struct policy *p, struct netcap *nc, char *err,
		    size_t errlen)
{
	for (size_t i = 0; i < p->nhosts; i++) {
		struct sockaddr_storage a[2];
		struct proxy_rule r;
		size_t n;

		if (proxy_rule_parse(p->hosts[i], &r))
			continue;
		n = loopback_of(&r, a);
		/* a rule without a port: 80 and 443 */
		for (int k = 0; n && k < (r.port ? 1 : 2); k++) {
			uint16_t port = r.port ? r.port : k ? 443 : 80;

			if (own_port(port)) {
				snprintf(err, errlen,
					 "--allow-host %s: port %u of the "
					 "namespace's loopback is cordon's own",
					 p->hosts[i], port);
				return -1;
			}
			for (size_t j = 0; j < n; j++) {
				int fd;

				set_port(&a[j], port);
				if (have_forward(nc, &a[j]))
					continue; /* two names, one port */
				fd = bound(&a[j], SOCK_STREAM);
				/* ::1 where the kernel has no IPv6 */
				if (no_ipv6(fd) && j)
					continue;
				if (fd < 0) {
					snprintf(err, errlen,
						 "cannot listen for "
						 "--allow-host "
						 "%s in the namespace: %s",
						 p->hosts[i], strerror(-fd));
					return -1;
				}
				if (add_sock(nc, fd,
					     r.is_ip || !strcmp(r.host,
								"localhost")
						     ? PROXY_SOCK_FORWARD
						     : PROXY_SOCK_FORWARD_NAME,
					     &a[j])) {
					snprintf(err, errlen,
						 "too many loopback hosts");
					return -1;
				}
			}
		}
	}
	return 0;
}

int netcap_setup(const struct policy *p, struct netcap *nc, char *err,
		 size_t errlen)
{
	struct sockaddr_storage ns[MAXNS + 2], a;
	size_t nns = name_servers(ns, MAXNS + 2);
	int lo = (int)if_nametoindex("lo"), fd, ret;
	char why[300] = "";

	memset(nc, 0, sizeof(*nc));
	ret = lo > 0 ? netcap_routes(lo, true, ns, nns) : -ENODEV;
	if (ret < 0) {
		snprintf(err, errlen,
			 "cannot give the namespace's loopback the name "
			 "servers' addresses: %s",
			 strerror(-ret));
		return -1;
	}
	/* the rules first: without them, a default route would send what
	 * is not captured to the loopback, to wait for nothing */
	if (p->capture && netcap_rules(ns, nns, why, sizeof(why)) == 0) {
		ret = netcap_routes(lo, false, NULL, 0);
		if (ret)
			snprintf(why, sizeof(why), "cannot route: %s",
				 strerror(-ret));
		nc->captured = ret == 0;
	}
	if (p->capture && !nc->captured)
		snprintf(nc->why, sizeof(nc->why), "%s", why);
	for (size_t i = 0; i < nns; i++) {
		a = ns[i];
		set_port(&a, 53);
		for (int k = 0; k < 2; k++) {
			fd = bound(&a, k ? SOCK_STREAM : SOCK_DGRAM);
			if (no_ipv6(fd) && a.ss_family == AF_INET6)
				break; /* no IPv6 here */
			if (fd < 0) {
				snprintf(err, errlen,
					 "cannot listen for names in the "
					 "namespace: %s",
					 strerror(-fd));
				return -1;
			}
			if (add_sock(nc, fd,
				     k ? PROXY_SOCK_DNS_TCP
				       : PROXY_SOCK_DNS_UDP,
				     NULL))
				return -1;
		}
	}
	for (int k = 0; nc->captured && k < 2; k++) {
		addr_of(&a, k ? "::1" : "127.0.0.1");
		set_port(&a, POLICY_CAPTURE_PORT);
		fd = bound(&a, SOCK_STREAM);
		if (no_ipv6(fd) && k)
			break;
		if (fd < 0) {
			snprintf(err, errlen,
				 "cannot listen for the capture: %s",
				 strerror(-fd));
			return -1;
		}
		if (add_sock(nc, fd, PROXY_SOCK_CAPTURE, NULL))
			return -1;
	}
	return forwards(p, nc, err, errlen);
}
