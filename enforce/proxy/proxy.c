/*
 * proxy.c - the egress proxy's thread, listener and connections
 * (proxy.h): one libevent loop in a thread of the supervisor serves
 * every connection; names go to the resolver threads (proxy_resolve.c);
 * a connection's phases are proxy_conn.c's.
 *
 * Why libevent (libevent_core, linked statically like the launcher's
 * other libraries): a loop, timers and buffered sockets with
 * watermarks, which is all a proxy needs, in Debian for decades; its
 * loop is used from this one thread only, so its locking is not needed.
 *
 * Bounded: at most conns_max connections (the listener is disabled at
 * the cap and the kernel's backlog waits), a head of PROXY_HEADER_MAX
 * bytes read within header_ms, buffer_max bytes queued toward either
 * side before the other side is no longer read, an idle tunnel closed.
 * Whatever a client sends, it gets an answer (HTTP 400, 403, 431, 502,
 * 504, or a SOCKS5 reply code) and the connection closes: never a crash,
 * a hang or memory that grows with its input.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "enforce/proxy/proxy_int.h"
#include "enforce/base/record.h"

#define ACCEPT_RETRY_MS 100

static void stats_add(struct proxy *px, int conns, bool refused)
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

void proxy_stats(struct proxy *px, struct proxy_stats *st)
{
	pthread_mutex_lock(&px->mu);
	*st = px->stats;
	pthread_mutex_unlock(&px->mu);
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
	tunnel_splice_free(c);
	free(c->head);
	if (c->prev)
		c->prev->next = c->next;
	else
		px->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
	stats_add(px, -1, false);
	if (px->listener)
		evconnlistener_enable(px->listener);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	(void)what;
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
static void add_client_port(struct conn *c, json_t *more)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd = c->client ? bufferevent_getfd(c->client) : -1;
	unsigned int port = 0;

	if (!more || fd < 0 ||
	    getpeername(fd, (struct sockaddr *)&ss, &len) < 0)
		return;
	if (ss.ss_family == AF_INET)
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	else if (ss.ss_family == AF_INET6)
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	if (port)
		json_object_set_new(more, "client_port", json_integer(port));
}

void conn_refuse(struct conn *c, const char *rule)
{
	char dest[PROXY_HOST_MAX + 16], allow[PROXY_HOST_MAX + 32];
	json_t *more, *rec;

	stats_add(c->px, 0, true);
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
	if (c->socks)
		conn_socks_error(c, PROXY_SOCKS_NOT_ALLOWED);
	else
		conn_http_error(c, 403, rule);
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	struct proxy *px = arg;
	struct conn *c = calloc(1, sizeof(*c));

	(void)sa;
	(void)salen;
	if (c) {
		c->px = px;
		c->fd[0] = c->fd[1] = -1;
		c->client = bufferevent_socket_new(px->base, fd,
						   BEV_OPT_CLOSE_ON_FREE);
		c->timer = evtimer_new(px->base, on_timer, c);
	}
	if (!c || !c->client || !c->timer) {
		if (c && c->client)
			bufferevent_free(c->client);
		else
			close(fd);
		if (c && c->timer)
			event_free(c->timer);
		free(c);
		return;
	}
	c->next = px->conns;
	if (px->conns)
		px->conns->prev = c;
	px->conns = c;
	stats_add(px, 1, false);
	if (px->stats.conns >= px->pol.conns_max)
		evconnlistener_disable(l);
	conn_start(c);
}

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *px = arg;

	(void)fd;
	(void)what;
	if (px->stats.conns < px->pol.conns_max)
		evconnlistener_enable(px->listener);
}

/* accept() failed (EMFILE, ENFILE, ENOBUFS): pause rather than spin
 * or print; a connection that ends or the timer resumes. */
static void on_accept_error(struct evconnlistener *l, void *arg)
{
	struct proxy *px = arg;
	struct timeval tv = { .tv_usec = ACCEPT_RETRY_MS * 1000 };

	evconnlistener_disable(l);
	event_add(px->retry_ev, &tv);
}

static void on_done(evutil_socket_t fd, short what, void *arg)
{
	struct job *jobs[64];
	ssize_t n = read(fd, jobs, sizeof(jobs));

	(void)what;
	(void)arg;
	for (ssize_t i = 0; i < n / (ssize_t)sizeof(jobs[0]); i++) {
		if (jobs[i]->conn)
			conn_resolved(jobs[i]->conn, jobs[i]);
		free(jobs[i]);
	}
}

static void on_stop(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(((struct proxy *)arg)->base);
}

static void *run(void *arg)
{
	struct proxy *px = arg;
	sigset_t pipe;

	/* a peer gone while we write: EPIPE here, never a SIGPIPE that
	 * would end the supervisor (the signal stays pending, harmless) */
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, NULL);
	event_base_dispatch(px->base);
	return NULL;
}

static void defaults(struct proxy_policy *p)
{
	if (!p->conns_max)
		p->conns_max = PROXY_CONNS_MAX;
	if (!p->buffer_max)
		p->buffer_max = PROXY_BUFFER_MAX;
	if (!p->header_ms)
		p->header_ms = PROXY_HEADER_MS;
	if (!p->connect_ms)
		p->connect_ms = PROXY_CONNECT_MS;
	if (!p->idle_ms)
		p->idle_ms = PROXY_IDLE_MS;
}

static int setup(struct proxy *px, int listen_fd)
{
	int ret;

	if (pipe2(px->stopfd, O_CLOEXEC | O_NONBLOCK) ||
	    pipe2(px->donefd, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	px->base = event_base_new();
	if (!px->base)
		return -ENOMEM;
	px->stop_ev = event_new(px->base, px->stopfd[0], EV_READ, on_stop, px);
	px->done_ev = event_new(px->base, px->donefd[0], EV_READ | EV_PERSIST,
				on_done, px);
	if (!px->stop_ev || !px->done_ev || event_add(px->stop_ev, NULL) ||
	    event_add(px->done_ev, NULL))
		return -ENOMEM;
	if (fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK))
		return -errno;
	px->listener = evconnlistener_new(
		px->base, on_accept, px,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, listen_fd);
	px->retry_ev = evtimer_new(px->base, on_retry, px);
	if (!px->listener || !px->retry_ev)
		return -ENOMEM;
	evconnlistener_set_error_cb(px->listener, on_accept_error);
	ret = own_start(px);
	return ret ? ret : resolver_start(px, &px->resolver);
}

static void teardown(struct proxy *px)
{
	if (px->listener)
		evconnlistener_free(px->listener);
	px->listener = NULL;
	while (px->conns)
		conn_free(px->conns);
	resolver_stop(px->resolver);
	if (px->done_ev)
		on_done(px->donefd[0], 0, px); /* the jobs done, freed */
	own_stop(px);
	if (px->retry_ev)
		event_free(px->retry_ev);
	if (px->stop_ev)
		event_free(px->stop_ev);
	if (px->done_ev)
		event_free(px->done_ev);
	if (px->base)
		event_base_free(px->base);
	for (int i = 0; i < 2; i++) {
		if (px->stopfd[i] >= 0)
			close(px->stopfd[i]);
		if (px->donefd[i] >= 0)
			close(px->donefd[i]);
	}
	pthread_mutex_destroy(&px->mu);
	free(px->rules);
	free(px);
}

int proxy_start(struct proxy **out, int listen_fd,
		const struct proxy_policy *policy, proxy_record_fn record,
		void *arg)
{
	struct proxy *px = calloc(1, sizeof(*px));
	int ret;

	if (!px) {
		close(listen_fd);
		return -ENOMEM;
	}
	px->stopfd[0] = px->stopfd[1] = px->donefd[0] = px->donefd[1] = -1;
	px->own.nl = -1;
	pthread_mutex_init(&px->mu, NULL);
	px->pol = *policy;
	defaults(&px->pol);
	px->record = record;
	px->record_arg = arg;
	px->rules = calloc(policy->nrules + 1, sizeof(*px->rules));
	if (px->rules && policy->nrules)
		memcpy(px->rules, policy->rules,
		       policy->nrules * sizeof(*px->rules));
	px->pol.rules = px->rules;
	ret = px->rules ? setup(px, listen_fd) : -ENOMEM;
	if (!px->listener)
		close(listen_fd);
	if (!ret)
		ret = -pthread_create(&px->thread, NULL, run, px);
	if (ret) {
		teardown(px);
		return ret;
	}
	*out = px;
	return 0;
}

void proxy_stop(struct proxy *px)
{
	ssize_t w;

	if (!px)
		return;
	do
		w = write(px->stopfd[1], "x", 1);
	while (w < 0 && errno == EINTR);
	pthread_join(px->thread, NULL);
	teardown(px);
}
