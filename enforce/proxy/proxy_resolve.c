/*
 * proxy_resolve.c - the egress proxy's names, resolved by getaddrinfo()
 * in PROXY_RESOLVERS threads of the supervisor (outside the sandbox).
 *
 * Why getaddrinfo in threads rather than c-ares or evdns: it is the
 * host's own resolver, nsswitch and all (/etc/hosts, systemd-resolved,
 * a VPN's split DNS), so a name reaches what every other program of the
 * host reaches; c-ares and evdns read resolv.conf and hosts themselves
 * and would disagree with the host where it does not use plain DNS.
 * The cost is a blocking call: a thread each, a bounded queue (one job
 * per connection at most, so PROXY_CONNS_MAX), and the loop's own
 * timeout (PROXY_CONNECT_MS) answering a client that waits too long;
 * the late answer is then dropped.  A job goes back to the loop through
 * a pipe (a pointer, written whole), and only the loop frees it.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enforce/proxy/proxy_int.h"

struct resolver {
	struct proxy *px;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *head, **tail;
	bool stopping;
	int nthreads;
	pthread_t threads[PROXY_RESOLVERS];
};

static int lookup(const char *host, uint16_t port, struct sockaddr_storage *out,
		  size_t max)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_ADDRCONFIG };
	struct addrinfo *res, *ai;
	char service[8];
	int ret, n = 0;

	snprintf(service, sizeof(service), "%u", port);
	ret = getaddrinfo(host, service, &hints, &res);
	if (ret == EAI_NONAME || ret == EAI_NODATA || ret == EAI_FAIL)
		return -ENOENT;
	if (ret == EAI_MEMORY)
		return -ENOMEM;
	if (ret)
		return -EAGAIN;
	for (ai = res; ai && (size_t)n < max; ai = ai->ai_next) {
		if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
		    ai->ai_addrlen > sizeof(*out))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		memcpy(&out[n++], ai->ai_addr, ai->ai_addrlen);
	}
	freeaddrinfo(res);
	return n ? n : -ENOENT;
}

static int resolve(struct proxy *px, struct job *j)
{
	if (j->ask)
		return px->pol.ask(px->pol.ask_arg, j->host, j->client_port,
				   j->client_udp)
			       ? 1
			       : 0;
	if (px->pol.resolve)
		return px->pol.resolve(px->pol.resolve_arg, j->host, j->port,
				       j->addrs, PROXY_ADDRS_MAX);
	return lookup(j->host, j->port, j->addrs, PROXY_ADDRS_MAX);
}

static void *worker(void *arg)
{
	struct resolver *r = arg;
	struct job *j;
	ssize_t w;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->head && !r->stopping)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stopping)
			break;
		j = r->head;
		r->head = j->next;
		if (!r->head)
			r->tail = &r->head;
		pthread_mutex_unlock(&r->mu);
		j->n = resolve(r->px, j);
		if (j->n > PROXY_ADDRS_MAX)
			j->n = -EINVAL;
		do
			w = write(r->px->donefd[1], &j, sizeof(j));
		while (w < 0 && errno == EINTR);
		pthread_mutex_lock(&r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

int resolver_start(struct proxy *px, struct resolver **out, int nthreads)
{
	struct resolver *r = calloc(1, sizeof(*r));
	int ret = 0;

	if (!r)
		return -ENOMEM;
	r->px = px;
	r->tail = &r->head;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	for (; r->nthreads < nthreads && r->nthreads < PROXY_RESOLVERS;
	     r->nthreads++) {
		ret = -pthread_create(&r->threads[r->nthreads], NULL, worker,
				      r);
		if (ret)
			break;
	}
	if (r->nthreads == 0) {
		resolver_stop(r);
		return ret;
	}
	*out = r;
	return 0;
}

int resolver_submit(struct resolver *r, struct job *j)
{
	j->next = NULL;
	pthread_mutex_lock(&r->mu);
	*r->tail = j;
	r->tail = &j->next;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return 0;
}

/* The threads are waited for; the jobs still queued are freed, those
 * done are in the pipe (the caller's to drain). */
void resolver_stop(struct resolver *r)
{
	struct job *j;

	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	r->stopping = true;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	for (int i = 0; i < r->nthreads; i++)
		pthread_join(r->threads[i], NULL);
	while ((j = r->head)) {
		r->head = j->next;
		free(j);
	}
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
}
