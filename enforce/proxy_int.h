/*
 * proxy_int.h - what the egress proxy's files share (proxy.c: the
 * thread, the listener, a connection's life and its answers;
 * proxy_conn.c: a connection's phases; proxy_resolve.c: the resolver
 * threads).  Not for use outside enforce/proxy*.c.
 */
#ifndef CORDON_PROXY_INT_H
#define CORDON_PROXY_INT_H

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <pthread.h>

#include "enforce/proxy.h"

#define OWN_ADDRS_MAX 64

struct resolver;

enum phase {
	P_SNIFF,      /* nothing read yet */
	P_HEAD,	      /* an HTTP request's head */
	P_GREETING,   /* SOCKS5 methods */
	P_REQUEST,    /* SOCKS5 request */
	P_RESOLVING,  /* a resolver thread has the name */
	P_CONNECTING, /* to addrs[next] */
	P_TUNNEL,     /* bytes both ways */
	P_CLOSING,    /* an answer is written, then close */
};

/* A name being resolved; the loop frees it, whatever became of its
 * connection (then NULL). */
struct job {
	struct job *next;
	struct conn *conn;
	char host[PROXY_HOST_MAX];
	uint16_t port;
	int n; /* addresses, or -errno */
	struct sockaddr_storage addrs[PROXY_ADDRS_MAX];
};

struct conn {
	struct proxy *px;
	struct conn *prev, *next;
	struct bufferevent *client, *up;
	struct event *timer;
	enum phase phase;
	bool socks, client_eof, up_eof;
	struct proxy_request req;
	struct proxy_target target;
	enum proxy_verdict verdict;
	char *head; /* the rewritten head of an HTTP request */
	size_t head_len;
	struct job *job;
	struct sockaddr_storage addrs[PROXY_ADDRS_MAX];
	size_t naddrs, next_addr;
	int last_err;
};

struct proxy {
	struct event_base *base;
	struct evconnlistener *listener;
	struct event *stop_ev, *done_ev;
	int stopfd[2], donefd[2]; /* proxy_stop -> loop; resolvers -> loop */
	pthread_t thread;
	struct proxy_policy pol;
	struct proxy_rule *rules;
	struct sockaddr_storage own[OWN_ADDRS_MAX];
	size_t nown;
	proxy_record_fn record;
	void *record_arg;
	struct conn *conns;
	struct resolver *resolver;
	pthread_mutex_t mu; /* the stats */
	struct proxy_stats stats;
};

/* proxy.c */
void conn_free(struct conn *c);
void conn_http_error(struct conn *c, int status, const char *why);
void conn_socks_error(struct conn *c, int code);
void conn_refuse(struct conn *c, const char *rule);
void conn_arm(struct conn *c, unsigned ms);
bool proxy_is_own(const struct proxy *px, const struct sockaddr *sa);

/* proxy_conn.c */
void conn_start(struct conn *c);
void conn_resolved(struct conn *c, struct job *j);

/* proxy_resolve.c */
int resolver_start(struct proxy *px, struct resolver **out);
int resolver_submit(struct resolver *r, struct job *j);
void resolver_stop(struct resolver *r);

#endif
