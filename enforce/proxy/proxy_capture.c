/*
 * proxy_capture.c - the connections transparent capture brings to the
 * proxy (enforce/linux/netcap.c redirects every TCP connection from the
 * command's namespace to an address not its own), and the loopback
 * forwards of --allow-host localhost:PORT (and of a name /etc/hosts
 * puts on the loopback: then decided as captured, by the name the
 * client sends or the address's).
 *
 * A captured connection speaks no proxy protocol: what it was going to
 * is SO_ORIGINAL_DST (conntrack's), and what it wants is read from its
 * first bytes without answering anything:
 *  - a TLS ClientHello's server name or an HTTP request's Host is the
 *    name decided (the rules of proxy_rules.c, the port the program
 *    dialed); the proxy dials the address the program chose when that
 *    name resolved to it outside, else the name's own addresses (a
 *    name under a wildcard never reaches a special-purpose address);
 *  - a connection with no name (ssh, a database, a client that waits
 *    for the server to speak first: nothing within CAPTURE_QUIET_MS) is
 *    decided by the name its address came from (proxy_names.c: the
 *    resolver inside, or the rules' names resolved at the start), or
 *    by an --allow-host naming the address itself.
 * TLS is never looked into past its ClientHello, which is passed on as
 * it came.  A refusal, or an upstream that cannot be reached, is a
 * reset: what a client gets from a host that will not talk.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter_ipv4.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "enforce/proxy/peek.h"
#include "enforce/proxy/proxy_int.h"

#define CAPTURE_QUIET_MS 250 /* a client silent this long: by address */
#ifndef IP6T_SO_ORIGINAL_DST
#define IP6T_SO_ORIGINAL_DST 80
#endif

/* A listener's socket and where a forward dials. */
struct lst_arg {
	struct proxy *px;
	enum proxy_sock_kind kind;
	struct sockaddr_storage to;
};

static uint16_t port_of(const struct sockaddr_storage *a)
{
	return ntohs(a->ss_family == AF_INET
			     ? ((const struct sockaddr_in *)a)->sin_port
			     : ((const struct sockaddr_in6 *)a)->sin6_port);
}

/* The target of an address and port, as an IP literal. */
static void target_ip(struct proxy_target *t, const struct sockaddr_storage *a)
{
	const void *raw =
		a->ss_family == AF_INET
			? (const void *)&((const struct sockaddr_in *)a)
				  ->sin_addr
			: (const void *)&((const struct sockaddr_in6 *)a)
				  ->sin6_addr;

	memset(t, 0, sizeof(*t));
	t->is_ip = true;
	t->addr = *a;
	t->port = port_of(a);
	if (a->ss_family == AF_INET)
		((struct sockaddr_in *)&t->addr)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&t->addr)->sin6_port = 0;
	inet_ntop(a->ss_family, raw, t->host, sizeof(t->host));
}

static void dial_orig(struct conn *c)
{
	c->addrs[0] = c->orig;
	c->naddrs = 1;
	conn_dial(c);
}

static void by_name(struct conn *c, const struct proxy_target *name);

/* After a yes to --ask: the name again (c->target holds it). */
static void redo_name(struct conn *c)
{
	struct proxy_target t = c->target;

	by_name(c, &t);
}

/* Decided by @name (the ClientHello's or the Host's). */
static void by_name(struct conn *c, const struct proxy_target *name)
{
	c->redo = redo_name;
	memset(&c->target, 0, sizeof(c->target));
	memcpy(c->target.host, name->host, sizeof(c->target.host));
	c->target.port = port_of(&c->orig);
	c->verdict =
		proxy_match(c->px->pol.rules, c->px->pol.nrules, &c->target);
	if (c->verdict == PROXY_DENY) {
		conn_refuse(c, "a host no --allow-host names");
		return;
	}
	bufferevent_disable(c->client, EV_READ);
	if (names_holds(c->px->names, c->target.host,
			(const struct sockaddr *)&c->orig)) {
		dial_orig(c);
		return;
	}
	/* an address the name did not give: the name's own */
	conn_lookup(c);
}

/* Decided by the address: the names it came from, or a rule naming
 * it. */
static void by_addr(struct conn *c)
{
	const struct sockaddr *sa = (const struct sockaddr *)&c->orig;
	const char *first = NULL, *host;
	struct proxy_target t;

	c->redo = by_addr;
	bufferevent_disable(c->client, EV_READ);
	for (size_t i = 0; (host = names_of_addr(c->px->names, sa, i)); i++) {
		memset(&t, 0, sizeof(t));
		strncpy(t.host, host, sizeof(t.host) - 1);
		t.port = port_of(&c->orig);
		c->verdict =
			proxy_match(c->px->pol.rules, c->px->pol.nrules, &t);
		if (!first)
			first = host;
		if (c->verdict != PROXY_DENY) {
			c->target = t;
			dial_orig(c);
			return;
		}
	}
	target_ip(&c->target, &c->orig);
	c->verdict =
		proxy_match(c->px->pol.rules, c->px->pol.nrules, &c->target);
	if (c->verdict != PROXY_DENY) {
		dial_orig(c);
		return;
	}
	if (first) { /* the name is the option to name */
		memset(&c->target, 0, sizeof(c->target));
		strncpy(c->target.host, first, sizeof(c->target.host) - 1);
		c->target.port = port_of(&c->orig);
		conn_refuse(c, "a host no --allow-host names (by the name "
			       "its address came from)");
		return;
	}
	conn_refuse(c, "an address no allowed name resolved to, and no "
		       "--allow-host names");
}

void capture_quiet(struct conn *c)
{
	by_addr(c);
}

static void peek_read(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t len = evbuffer_get_length(in);
	const uint8_t *buf;
	struct peek_result r;

	if (len > PEEK_MAX)
		len = PEEK_MAX;
	buf = evbuffer_pullup(in, (ssize_t)len);
	peek_classify(buf, len, &r);
	if (r.kind == PEEK_MORE) {
		conn_arm(c, c->px->pol.header_ms);
		return;
	}
	if (r.has_name && !r.target.is_ip)
		by_name(c, &r.target);
	else
		by_addr(c);
}

static void peek_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	conn_free(arg);
}

static bool orig_dst(int fd, struct sockaddr_storage *out)
{
	socklen_t len = sizeof(struct sockaddr_in);

	memset(out, 0, sizeof(*out));
	if (getsockopt(fd, SOL_IP, SO_ORIGINAL_DST, out, &len) == 0 &&
	    out->ss_family == AF_INET)
		return true;
	len = sizeof(struct sockaddr_in6);
	return getsockopt(fd, SOL_IPV6, IP6T_SO_ORIGINAL_DST, out, &len) == 0 &&
	       out->ss_family == AF_INET6;
}

static void on_capture(struct evconnlistener *l, evutil_socket_t fd,
		       struct sockaddr *sa, int salen, void *arg)
{
	struct lst_arg *la = arg;
	struct sockaddr_storage orig;
	struct conn *c;

	(void)l;
	(void)sa;
	(void)salen;
	if (la->kind == PROXY_SOCK_CAPTURE && !orig_dst(fd, &orig)) {
		close(fd);
		return;
	}
	c = conn_new(la->px, fd);
	if (!c)
		return;
	c->captured = true;
	if (la->kind == PROXY_SOCK_FORWARD_NAME)
		orig = la->to; /* then as captured: by the name it sends */
	if (la->kind == PROXY_SOCK_FORWARD) {
		/* the rule named this very port of the loopback */
		c->orig = la->to;
		target_ip(&c->target, &la->to);
		c->verdict = PROXY_EXACT;
		dial_orig(c);
		return;
	}
	c->orig = orig;
	c->phase = P_PEEK;
	bufferevent_setcb(c->client, peek_read, NULL, peek_event, c);
	bufferevent_setwatermark(c->client, EV_READ, 0, PEEK_MAX);
	bufferevent_enable(c->client, EV_READ | EV_WRITE);
	conn_arm(c, CAPTURE_QUIET_MS);
}

int capture_start(struct proxy *px)
{
	size_t n = 0;

	for (size_t i = 0; i < px->pol.nsocks; i++)
		n += px->pol.socks[i].kind == PROXY_SOCK_CAPTURE ||
		     px->pol.socks[i].kind == PROXY_SOCK_FORWARD ||
		     px->pol.socks[i].kind == PROXY_SOCK_FORWARD_NAME;
	px->lst = calloc(n + 1, sizeof(*px->lst));
	px->lst_args = calloc(n + 1, sizeof(struct lst_arg));
	if (!px->lst || !px->lst_args)
		return -ENOMEM;
	for (size_t i = 0; i < px->pol.nsocks; i++) {
		const struct proxy_socket *s = &px->pol.socks[i];
		struct lst_arg *la = (struct lst_arg *)px->lst_args + px->nlst;

		if (s->kind != PROXY_SOCK_CAPTURE &&
		    s->kind != PROXY_SOCK_FORWARD &&
		    s->kind != PROXY_SOCK_FORWARD_NAME)
			continue;
		la->px = px;
		la->kind = s->kind;
		la->to = s->to;
		evutil_make_socket_nonblocking(s->fd);
		px->lst[px->nlst] = evconnlistener_new(
			px->base, on_capture, la,
			LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0,
			s->fd);
		if (!px->lst[px->nlst])
			return -ENOMEM;
		px->nlst++;
	}
	return 0;
}

void capture_stop(struct proxy *px)
{
	for (size_t i = 0; i < px->nlst; i++)
		evconnlistener_free(px->lst[i]);
	free(px->lst);
	free(px->lst_args);
	px->lst = NULL;
	px->lst_args = NULL;
	px->nlst = 0;
}
