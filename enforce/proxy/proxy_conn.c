/*
 * proxy_conn.c - one connection of the egress proxy, phase by phase:
 * sniff the first byte (5: SOCKS5, else HTTP), read the request within
 * its limits, match it against the rules, resolve, refuse a name under
 * a wildcard that resolves to a special-purpose address or one of the
 * host's own, connect to each address in turn (each checked again),
 * then splice bytes both ways with backpressure.  Runs on the proxy's
 * loop thread only.
 *
 * Never read more than a head's cap before the request is decided, and
 * never more than buffer_max ahead of what the other side took.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>

#include "enforce/proxy/netclass.h"
#include "enforce/proxy/proxy_int.h"

#define TUNNEL_IO_MAX (256 * 1024) /* bytes of one read or write */

static void tunnel_read(struct bufferevent *bev, void *arg);
static void read_head(struct bufferevent *bev, void *arg);

static void on_client_event(struct bufferevent *bev, short what, void *arg);

void conn_start(struct conn *c)
{
	c->phase = P_SNIFF;
	bufferevent_setcb(c->client, read_head, NULL, on_client_event, c);
	bufferevent_setwatermark(c->client, EV_READ, 0, PROXY_HEADER_MAX);
	bufferevent_enable(c->client, EV_READ | EV_WRITE);
	conn_arm(c, c->px->pol.header_ms);
}

static void decide(struct conn *c)
{
	c->redo = decide;

	c->verdict =
		proxy_match(c->px->pol.rules, c->px->pol.nrules, &c->target);
	if (c->verdict == PROXY_DENY) {
		conn_refuse(c, c->target.is_ip
				       ? "an IP address no --allow-host names"
				       : "a host no --allow-host names");
		return;
	}
	bufferevent_disable(c->client, EV_READ);
	conn_arm(c, c->px->pol.connect_ms);
	if (c->target.is_ip) {
		struct job ip = { .n = 1 };

		ip.addrs[0] = c->target.addr;
		if (ip.addrs[0].ss_family == AF_INET)
			((struct sockaddr_in *)&ip.addrs[0])->sin_port =
				htons(c->target.port);
		else
			((struct sockaddr_in6 *)&ip.addrs[0])->sin6_port =
				htons(c->target.port);
		conn_resolved(c, &ip);
		return;
	}
	conn_lookup(c);
}

void conn_lookup(struct conn *c)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j) {
		if (c->captured)
			conn_reset(c);
		else
			conn_http_error(c, 503, "out of memory");
		return;
	}
	conn_arm(c, c->px->pol.connect_ms);
	j->conn = c;
	memcpy(j->host, c->target.host, sizeof(j->host));
	j->port = c->target.port;
	c->job = j;
	c->phase = P_RESOLVING;
	resolver_submit(c->px->resolver, j);
}

static void http_head(struct conn *c, struct evbuffer *in)
{
	size_t len = evbuffer_get_length(in);
	size_t n = len < PROXY_HEADER_MAX ? len : PROXY_HEADER_MAX;
	const char *buf = (const char *)evbuffer_pullup(in, (ssize_t)n);
	char *out;
	long ret = proxy_request_parse(buf, n, &c->req), w;

	if (ret == 0)
		return;
	if (ret == -E2BIG) {
		conn_http_error(c, 431, "the request's head is too long");
		return;
	}
	if (ret < 0) {
		conn_http_error(c, 400,
				ret == -EPROTONOSUPPORT
					? "not a proxy request (https:// goes "
					  "through CONNECT)"
					: "a malformed request");
		return;
	}
	c->target = c->req.target;
	if (c->req.kind == PROXY_HTTP) {
		out = malloc(PROXY_HEADER_MAX + PROXY_HOST_MAX + 64);
		w = out ? proxy_request_rewrite(buf, &c->req, out,
						PROXY_HEADER_MAX +
							PROXY_HOST_MAX + 64)
			: -ENOMEM;
		if (w < 0) {
			free(out);
			conn_http_error(c, 431,
					"the request's head is too long");
			return;
		}
		c->head = out;
		c->head_len = (size_t)w;
	}
	evbuffer_drain(in, (size_t)ret);
	decide(c);
}

static void socks_phase(struct conn *c, struct evbuffer *in)
{
	size_t len = evbuffer_get_length(in);
	const uint8_t *buf = evbuffer_pullup(in, (ssize_t)len);
	bool noauth;
	long ret;

	if (c->phase == P_GREETING) {
		ret = proxy_socks_greeting(buf, len, &noauth);
		if (ret == 0)
			return;
		if (ret < 0 || !noauth) {
			conn_socks_error(c, PROXY_SOCKS_FAILURE);
			return;
		}
		evbuffer_drain(in, (size_t)ret);
		bufferevent_write(c->client, "\x05\x00", 2);
		c->phase = P_REQUEST;
		len -= (size_t)ret;
		buf = evbuffer_pullup(in, (ssize_t)len);
	}
	ret = proxy_socks_request(buf, len, &c->target);
	if (ret == 0)
		return;
	if (ret < 0) {
		conn_socks_error(c, (int)-ret);
		return;
	}
	evbuffer_drain(in, (size_t)ret);
	decide(c);
}

static void read_head(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	uint8_t first;

	if (c->phase == P_SNIFF) {
		if (evbuffer_copyout(in, &first, 1) != 1)
			return;
		c->socks = first == 5;
		c->phase = c->socks ? P_GREETING : P_HEAD;
	}
	if (c->socks)
		socks_phase(c, in);
	else
		http_head(c, in);
}

static void on_client_event(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	(void)bev;
	if (c->phase == P_TUNNEL && (what & BEV_EVENT_EOF)) {
		c->client_eof = true;
		tunnel_read(c->client, c); /* what came before the EOF */
		return;
	}
	conn_free(c);
}

/* A name under a wildcard reaches no special-purpose address
 * (netclass.c) and none of the host's own as they are now (proxy_own.c):
 * only a rule naming it exactly does.  Asked of every address resolved
 * (one of them refuses the name: an answer may mix them), and again of
 * the one dialed, just before the connect (the host's addresses may
 * have changed since). */
bool proxy_special_why(struct proxy *px, const struct sockaddr *sa, char *buf,
		       size_t cap)
{
	char addr[INET6_ADDRSTRLEN] = "?";
	const struct netclass *nc = netclass_special(sa);
	const void *a =
		sa->sa_family == AF_INET6
			? (const void *)&((const struct sockaddr_in6 *)sa)
				  ->sin6_addr
			: (const void *)&((const struct sockaddr_in *)sa)
				  ->sin_addr;

	if (!nc && !proxy_is_own(px, sa))
		return false;
	if (sa->sa_family == AF_INET || sa->sa_family == AF_INET6)
		inet_ntop(sa->sa_family, a, addr, sizeof(addr));
	if (nc && nc->family != AF_UNSPEC)
		snprintf(buf, cap,
			 "a name under a wildcard that resolves to %s, %s "
			 "(%s, %s): only a rule naming it reaches it",
			 addr, nc->name, nc->block, nc->rfc);
	else
		snprintf(buf, cap,
			 "a name under a wildcard that resolves to %s, %s: "
			 "only a rule naming it reaches it",
			 addr, nc ? nc->name : "an address of this host");
	return true;
}

static bool refuse_special(struct conn *c, const struct sockaddr *sa)
{
	char text[INET6_ADDRSTRLEN + 256];

	if (c->verdict == PROXY_EXACT ||
	    !proxy_special_why(c->px, sa, text, sizeof(text)))
		return false;
	conn_refuse(c, text);
	return true;
}

static void try_connect(struct conn *c);

void conn_resolved(struct conn *c, struct job *j)
{
	c->job = NULL;
	if (!j->dq && !j->warm && !c->target.is_ip && j->n != 0)
		names_put(c->px->names, j->host, j->addrs, j->n);
	if (j->n <= 0) {
		conn_upstream(c, j->n == -ENOENT
					 ? "the name does not resolve outside "
					   "the sandbox either"
					 : "the name could not be resolved "
					   "outside the sandbox");
		if (c->captured)
			conn_reset(c);
		else if (c->socks)
			conn_socks_error(c, PROXY_SOCKS_HOST_UNREACH);
		else
			conn_http_error(
				c, 502,
				j->n == -ENOENT
					? "no such host"
					: "the name could not be resolved");
		return;
	}
	for (int i = 0; i < j->n; i++)
		if (refuse_special(c, (const struct sockaddr *)&j->addrs[i]))
			return;
	memcpy(c->addrs, j->addrs, (size_t)j->n * sizeof(j->addrs[0]));
	c->naddrs = (size_t)j->n;
	conn_dial(c);
}

void conn_dial(struct conn *c)
{
	c->next_addr = 0;
	conn_arm(c, c->px->pol.connect_ms);
	try_connect(c);
}

static int socks_code(int err)
{
	switch (err) {
	case ECONNREFUSED:
		return PROXY_SOCKS_REFUSED;
	case ENETUNREACH:
		return PROXY_SOCKS_NET_UNREACH;
	case EHOSTUNREACH:
		return PROXY_SOCKS_HOST_UNREACH;
	case ETIMEDOUT:
		return PROXY_SOCKS_TTL;
	default:
		return PROXY_SOCKS_FAILURE;
	}
}

static void connect_failed(struct conn *c)
{
	char why[160];

	if (c->up) {
		bufferevent_free(c->up);
		c->up = NULL;
	}
	if (c->next_addr < c->naddrs) {
		try_connect(c);
		return;
	}
	conn_upstream(c, strerror(c->last_err ? c->last_err : EIO));
	if (c->captured) {
		conn_reset(c);
		return;
	}
	if (c->socks) {
		conn_socks_error(c, socks_code(c->last_err));
		return;
	}
	snprintf(why, sizeof(why), "cannot connect to the destination: %s",
		 strerror(c->last_err ? c->last_err : EIO));
	conn_http_error(c, c->last_err == ETIMEDOUT ? 504 : 502, why);
}

/* @len bytes at @buf to @bev's socket now when nothing is queued
 * before them (the splice takes a tunnel only once the queues are
 * empty); what does not go is queued. */
static void send_now(struct bufferevent *bev, const void *buf, size_t len)
{
	ssize_t n = 0;

	if (!evbuffer_get_length(bufferevent_get_output(bev)))
		n = send(bufferevent_getfd(bev), buf, len,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0)
		n = 0;
	if ((size_t)n < len)
		bufferevent_write(bev, (const char *)buf + n, len - (size_t)n);
}

static void socks_ok(struct conn *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	uint8_t reply[22] = { 5, 0, 0, 1 };
	size_t n = 10;

	memset(&ss, 0, sizeof(ss));
	getsockname(bufferevent_getfd(c->up), (struct sockaddr *)&ss, &len);
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;

		reply[3] = 4;
		memcpy(reply + 4, &a->sin6_addr, 16);
		memcpy(reply + 20, &a->sin6_port, 2);
		n = 22;
	} else if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;

		memcpy(reply + 4, &a->sin_addr, 4);
		memcpy(reply + 8, &a->sin_port, 2);
	}
	send_now(c->client, reply, n);
}

static void on_up_event(struct bufferevent *bev, short what, void *arg);
static void drained(struct bufferevent *bev, void *arg);

static void connected(struct conn *c)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	struct evbuffer *in = bufferevent_get_input(c->client);

	c->phase = P_TUNNEL;
	if (c->captured)
		; /* the client's bytes go as they came */
	else if (c->socks)
		socks_ok(c);
	else if (c->req.kind == PROXY_CONNECT)
		send_now(c->client, ok, sizeof(ok) - 1);
	else
		send_now(c->up, c->head, c->head_len);
	free(c->head);
	c->head = NULL;
	bufferevent_set_timeouts(c->up, NULL, NULL);
	if (tunnel_splice(c))
		return;
	bufferevent_setwatermark(c->client, EV_READ, 0, 0);
	/* libevent reads and writes 16 KB at a time by default: a tenth
	 * of loopback's speed */
	for (int i = 0; i < 2; i++) {
		struct bufferevent *b = i ? c->up : c->client;

		bufferevent_set_max_single_read(b, TUNNEL_IO_MAX);
		bufferevent_set_max_single_write(b, TUNNEL_IO_MAX);
	}
	bufferevent_setcb(c->client, tunnel_read, drained, on_client_event, c);
	bufferevent_setcb(c->up, tunnel_read, drained, on_up_event, c);
	evbuffer_add_buffer(bufferevent_get_output(c->up), in);
	bufferevent_enable(c->client, EV_READ | EV_WRITE);
	bufferevent_enable(c->up, EV_READ | EV_WRITE);
	conn_arm(c, c->px->pol.idle_ms);
}

static void on_up_event(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	if (c->phase == P_CONNECTING) {
		if (what & BEV_EVENT_CONNECTED) {
			connected(c);
			return;
		}
		c->last_err = (what & BEV_EVENT_TIMEOUT)
				      ? ETIMEDOUT
				      : EVUTIL_SOCKET_ERROR();
		connect_failed(c);
		return;
	}
	if (what & BEV_EVENT_EOF) {
		c->up_eof = true;
		if (!c->socks && !c->captured && c->req.kind == PROXY_HTTP) {
			/* one request per connection: the answer is all */
			c->client_eof = true;
			bufferevent_disable(c->client, EV_READ);
			evbuffer_drain(bufferevent_get_output(c->up),
				       evbuffer_get_length(
					       bufferevent_get_output(c->up)));
		}
		tunnel_read(bev, c);
		return;
	}
	conn_free(c);
}

static void try_connect(struct conn *c)
{
	const struct sockaddr_storage *a = &c->addrs[c->next_addr++];
	unsigned ms = c->px->pol.connect_ms;
	struct timeval tv = { .tv_sec = ms / 1000,
			      .tv_usec = (suseconds_t)(ms % 1000) * 1000 };
	socklen_t len = a->ss_family == AF_INET ? sizeof(struct sockaddr_in)
						: sizeof(struct sockaddr_in6);

	c->phase = P_CONNECTING;
	if (refuse_special(c, (const struct sockaddr *)a))
		return;
	c->up = bufferevent_socket_new(c->px->base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!c->up) {
		c->last_err = ENOMEM;
		connect_failed(c);
		return;
	}
	bufferevent_setcb(c->up, NULL, NULL, on_up_event, c);
	bufferevent_set_timeouts(c->up, NULL, &tv);
	conn_arm(c, ms + 1000); /* the attempt's own timeout comes first */
	if (bufferevent_socket_connect(c->up, (const struct sockaddr *)a,
				       (int)len)) {
		c->last_err = errno ? errno : ECONNREFUSED;
		connect_failed(c);
	}
}

static void half_close(struct bufferevent *to)
{
	shutdown(bufferevent_getfd(to), SHUT_WR);
}

/* Bytes from @bev toward the other side, read no further while that
 * side holds buffer_max of them; an EOF seen is passed on once its
 * bytes are. */
static void tunnel_read(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct bufferevent *to = bev == c->client ? c->up : c->client;
	struct evbuffer *out = bufferevent_get_output(to);
	size_t cap = c->px->pol.buffer_max;

	if (!to)
		return;
	/* write at once what the other side takes (its queue empty, so in
	 * order): no round of the loop and no epoll_ctl per chunk */
	if (!evbuffer_get_length(out))
		evbuffer_write(bufferevent_get_input(bev),
			       bufferevent_getfd(to));
	evbuffer_add_buffer(out, bufferevent_get_input(bev));
	conn_arm(c, c->px->pol.idle_ms);
	if (evbuffer_get_length(out) >= cap) {
		bufferevent_disable(bev, EV_READ);
		bufferevent_setwatermark(to, EV_WRITE, cap / 2, 0);
	}
	if (c->client_eof && c->up_eof) {
		if (!evbuffer_get_length(bufferevent_get_output(c->client)) &&
		    !evbuffer_get_length(bufferevent_get_output(c->up)))
			conn_free(c);
		return;
	}
	if ((bev == c->client ? c->client_eof : c->up_eof) &&
	    !evbuffer_get_length(out))
		half_close(to);
}

/* @bev's output went under the low mark (or empty): read the other
 * side again. */
static void drained(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct bufferevent *from = bev == c->client ? c->up : c->client;
	bool from_eof = bev == c->client ? c->up_eof : c->client_eof;

	conn_arm(c, c->px->pol.idle_ms);
	if (from_eof) {
		if (evbuffer_get_length(bufferevent_get_output(bev)))
			return;
		if (!c->client_eof || !c->up_eof)
			half_close(bev);
		else if (!evbuffer_get_length(bufferevent_get_output(from)))
			conn_free(c);
		return;
	}
	bufferevent_setwatermark(bev, EV_WRITE, 0, 0);
	bufferevent_enable(from, EV_READ);
}
