/*
 * proxy_close.c - how a connection of the egress proxy ends: its timer,
 * the answer it gets when it is refused or fails (an HTTP status or a
 * SOCKS5 reply, then close), the record of a refusal, and its free
 * (with its tunnel's pipes).  The loop, the phases and the tunnel call
 * down into here; three calls go back up, each where a connection's end
 * is not yet its end: a refusal is first asked (--ask, proxy_ask.c), a
 * captured connection quiet past its timer is decided by its address
 * (proxy_capture.c), and a freed one lets the listeners accept again
 * (proxy_loop.c).  The proxy's files are one state machine, one room:
 * farm-studio sees them as one circle inside it.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "enforce/base/base.h"
#include "enforce/proxy/proxy_int.h"

void proxy_stats_add(struct proxy *px, int conns, bool refused)
{
	pthread_mutex_lock(&px->mu);
	px->stats.conns = (unsigned)((int)px->stats.conns + conns);
	if (conns > 0)
		px->stats.accepted++;
	if (px->stats.conns > px->stats.peak)
		px->stats.peak = px->stats.conns;
	if (refused)
		px->stats.refused++;
	pthread_mutex_unlock(&px->mu);
}

void tunnel_free(struct conn *c)
{
	for (int i = 0; i < 2; i++) {
		struct splice_dir *d = &c->dir[i];

		if (d->in_ev)
			event_free(d->in_ev);
		if (d->out_ev)
			event_free(d->out_ev);
		if (d->conn && d->pipe[0] >= 0) {
			close(d->pipe[0]);
			close(d->pipe[1]);
		}
		d->in_ev = d->out_ev = NULL;
		d->conn = NULL;
	}
	for (int i = 0; i < 2; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	c->fd[0] = c->fd[1] = -1;
}

void conn_free(struct conn *c)
{
	struct proxy *px = c->px;

	if (c->job)
		c->job->conn = NULL; /* the loop frees it when it comes back */
	if (c->client)
		bufferevent_free(c->client);
	if (c->up)
		bufferevent_free(c->up);
	if (c->timer)
		event_free(c->timer);
	tunnel_free(c);
	free(c->head);
	if (c->prev)
		c->prev->next = c->next;
	else
		px->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
	proxy_stats_add(px, -1, false);
	proxy_listeners_enable(px);
}

void conn_timed_out(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	(void)what;
	if (c->phase == P_PEEK) {
		capture_quiet(c);
		return;
	}
	if (c->phase == P_ASKING) {
		c->redo = NULL; /* no answer: refused, not asked again */
		conn_refuse(c, "not allowed: no answer to --ask");
		return;
	}
	if (c->captured &&
	    (c->phase == P_RESOLVING || c->phase == P_CONNECTING)) {
		conn_upstream(c, strerror(ETIMEDOUT));
		conn_reset(c);
		return;
	}
	switch (c->phase) {
	case P_HEAD:
	case P_GREETING:
	case P_REQUEST:
	case P_SNIFF:
		if (c->socks)
			conn_socks_error(c, PROXY_SOCKS_FAILURE);
		else
			conn_http_error(c, 408,
					"the request's head took too long");
		return;
	case P_RESOLVING:
	case P_CONNECTING:
		if (c->socks)
			conn_socks_error(c, PROXY_SOCKS_TTL);
		else
			conn_http_error(
				c, 504,
				"the destination did not answer in time");
		return;
	default:
		conn_free(c); /* idle, or an answer never read */
	}
}

void conn_arm(struct conn *c, unsigned ms)
{
	struct timeval tv = { .tv_sec = ms / 1000,
			      .tv_usec = (suseconds_t)(ms % 1000) * 1000 };

	event_add(c->timer, &tv);
}

static void closing_written(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_free(arg);
}

static void closing_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	conn_free(arg);
}

/* Write nothing more than what is queued, then close: the timer still
 * runs, for a client that never reads its answer. */
static void conn_close_after(struct conn *c)
{
	c->phase = P_CLOSING;
	if (c->up) {
		bufferevent_free(c->up);
		c->up = NULL;
	}
	bufferevent_disable(c->client, EV_READ);
	bufferevent_setcb(c->client, NULL, closing_written, closing_event, c);
	bufferevent_setwatermark(c->client, EV_WRITE, 0, 0);
	conn_arm(c, c->px->pol.header_ms);
	if (evbuffer_get_length(bufferevent_get_output(c->client)) == 0)
		conn_free(c);
}

static const char *reason(int status)
{
	switch (status) {
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 408:
		return "Request Timeout";
	case 431:
		return "Request Header Fields Too Large";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	default:
		return "Gateway Timeout";
	}
}

void conn_http_error(struct conn *c, int status, const char *why)
{
	char body[512];
	int n = snprintf(body, sizeof(body), "cordon: %s\n", why);

	if (n < 0 || (size_t)n >= sizeof(body))
		n = (int)sizeof(body) - 1;
	evbuffer_add_printf(bufferevent_get_output(c->client),
			    "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
			    "Content-Length: %d\r\nConnection: close\r\n\r\n",
			    status, reason(status), n);
	bufferevent_write(c->client, body, (size_t)n);
	conn_close_after(c);
}

void conn_socks_error(struct conn *c, int code)
{
	/* VER, REP, RSV, ATYP IPv4, 0.0.0.0:0 */
	uint8_t reply[10] = { 5, (uint8_t)code, 0, 1 };

	if (c->phase == P_GREETING || c->phase == P_SNIFF)
		bufferevent_write(c->client, "\x05\xff", 2); /* no method */
	else
		bufferevent_write(c->client, reply, sizeof(reply));
	conn_close_after(c);
}

/* The command's end of the connection, its port on the namespace's
 * loopback, as "client_port": which process asked (a session's tag
 * finds it in /proc while the connection waits for its answer). */
uint16_t conn_client_port(struct conn *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd = c->client ? bufferevent_getfd(c->client) : -1;

	if (fd < 0 || getpeername(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

static void add_client_port(struct conn *c, json_t *more)
{
	unsigned int port = more ? conn_client_port(c) : 0;

	if (port)
		json_object_set_new(more, "client_port", json_integer(port));
}

void conn_refuse(struct conn *c, const char *rule)
{
	char dest[PROXY_HOST_MAX + 16], allow[PROXY_HOST_MAX + 32];
	json_t *more, *rec;

	if (!c->asked)
		snprintf(c->why, sizeof(c->why), "%s", rule);
	if (proxy_ask_conn(c))
		return; /* --ask: on with it once answered */
	proxy_stats_add(c->px, 0, true);
	if (c->px->record) {
		proxy_target_format(&c->target, dest, sizeof(dest));
		memcpy(allow, "with --allow-host ", 18);
		proxy_allow_format(&c->target, allow + 18, sizeof(allow) - 18);
		more = json_pack("{s:s, s:s, s:s}", "destination", dest,
				 "allow", allow, "layer", "kernel");
		add_client_port(c, more);
		rec = record_new(RECORD_KERNEL, "connect", "deny", rule, more);
		json_decref(more);
		if (rec)
			c->px->record(c->px->record_arg, rec);
	}
	if (c->captured)
		conn_reset(c);
	else if (c->socks)
		conn_socks_error(c, PROXY_SOCKS_NOT_ALLOWED);
	else
		conn_http_error(c, 403, rule);
}

void conn_reset(struct conn *c)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int fd = c->client ? bufferevent_getfd(c->client) : -1;

	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	conn_free(c);
}

void proxy_upstream(struct proxy *px, const char *dest, const char *why)
{
	json_t *more, *rec;

	if (!px->record)
		return;
	more = json_pack("{s:s, s:s, s:b, s:s}", "destination", dest, "error",
			 why, "upstream", 1, "layer", "kernel");
	rec = record_new(RECORD_KERNEL, "connect", "fail",
			 "the host's own network, not the policy", more);
	json_decref(more);
	if (rec)
		px->record(px->record_arg, rec);
}

void conn_upstream(struct conn *c, const char *why)
{
	char dest[PROXY_HOST_MAX + 16];

	proxy_target_format(&c->target, dest, sizeof(dest));
	proxy_upstream(c->px, dest, why);
}
