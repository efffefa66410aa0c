/*
 * proxy_loop.c - the egress proxy's thread and listener (proxy.h, the
 * proxy's whole interface): one libevent loop in a thread of the
 * supervisor serves every connection; names go to the resolver threads
 * (proxy_resolve.c); a connection's phases are proxy_conn.c's, its
 * tunnel proxy_splice.c's, its answers and its end proxy_close.c's.
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

#define ACCEPT_RETRY_MS 100

void proxy_stats(struct proxy *px, struct proxy_stats *st)
{
	pthread_mutex_lock(&px->mu);
	*st = px->stats;
	pthread_mutex_unlock(&px->mu);
}

struct conn *conn_new(struct proxy *px, int fd)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (c) {
		c->px = px;
		c->fd[0] = c->fd[1] = -1;
		c->client = bufferevent_socket_new(px->base, fd,
						   BEV_OPT_CLOSE_ON_FREE);
		c->timer = evtimer_new(px->base, conn_timed_out, c);
	}
	if (!c || !c->client || !c->timer) {
		if (c && c->client)
			bufferevent_free(c->client);
		else
			close(fd);
		if (c && c->timer)
			event_free(c->timer);
		free(c);
		return NULL;
	}
	c->next = px->conns;
	if (px->conns)
		px->conns->prev = c;
	px->conns = c;
	proxy_stats_add(px, 1, false);
	if (px->stats.conns >= px->pol.conns_max) {
		evconnlistener_disable(px->listener);
		for (size_t i = 0; i < px->nlst; i++)
			evconnlistener_disable(px->lst[i]);
	}
	return c;
}

void proxy_listeners_enable(struct proxy *px)
{
	if (px->stats.conns >= px->pol.conns_max)
		return;
	if (px->listener)
		evconnlistener_enable(px->listener);
	for (size_t i = 0; i < px->nlst; i++)
		evconnlistener_enable(px->lst[i]);
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	struct conn *c = conn_new(arg, fd);

	(void)l;
	(void)sa;
	(void)salen;
	if (c)
		conn_start(c);
}

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	proxy_listeners_enable(arg);
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
	struct proxy *px = arg;

	for (ssize_t i = 0; i < n / (ssize_t)sizeof(jobs[0]); i++) {
		struct job *j = jobs[i];

		if (j->ask)
			proxy_asked(px, j);
		else if (j->warm && j->n > 0)
			names_put(px->names, j->host, j->addrs, j->n);
		else if (j->dq)
			dns_resolved(px, j);
		else if (j->conn)
			conn_resolved(j->conn, j);
		free(j);
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

/* The rules' exact names, resolved now: a connection that carries no
 * name to an address the program found itself (in /etc/hosts, from a
 * resolver of its own) is known by the name it came from. */
static void warm(struct proxy *px)
{
	for (size_t i = 0; i < px->pol.nrules; i++) {
		const struct proxy_rule *r = &px->pol.rules[i];
		struct job *j;

		if (r->is_ip || r->wildcard)
			continue;
		j = calloc(1, sizeof(*j));
		if (!j)
			return;
		j->warm = true;
		memcpy(j->host, r->host, sizeof(j->host));
		j->port = r->port ? r->port : 443;
		resolver_submit(px->resolver, j);
	}
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
	px->names = names_new();
	if (!px->names)
		return -ENOMEM;
	ret = own_start(px);
	if (!ret)
		ret = resolver_start(px, &px->resolver, PROXY_RESOLVERS);
	if (!ret && px->pol.ask)
		ret = resolver_start(px, &px->asker, 1);
	if (!ret)
		ret = capture_start(px);
	if (!ret)
		ret = dns_start(px);
	if (!ret)
		warm(px);
	return ret;
}

static void teardown(struct proxy *px)
{
	if (px->listener)
		evconnlistener_free(px->listener);
	px->listener = NULL;
	while (px->conns)
		conn_free(px->conns);
	capture_stop(px);
	resolver_stop(px->asker);
	resolver_stop(px->resolver);
	if (px->done_ev)
		on_done(px->donefd[0], 0, px); /* the jobs done, freed */
	dns_stop(px);
	names_free(px->names);
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
