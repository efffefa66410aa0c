/*
 * proxy_int.h - what the egress proxy's files share (proxy_loop.c: the
 * thread and the listener; proxy_conn.c: a connection's phases;
 * proxy_splice.c: its tunnel; proxy_close.c: its answers and its end;
 * proxy_resolve.c: the resolver threads; proxy_own.c: the host's own
 * addresses).  Not for use outside enforce/proxy/; the rest of cordon
 * knows the proxy by proxy.h alone.
 */
#ifndef CORDON_PROXY_INT_H
#define CORDON_PROXY_INT_H

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <pthread.h>

#include "enforce/proxy/proxy.h"

/* The host's own addresses known at most; more, and every address is
 * taken for one (proxy_own.c: fails closed). */
#define OWN_ADDRS_MAX 4096

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

/* One way of a spliced tunnel (proxy_splice.c). */
struct splice_dir {
	struct conn *conn; /* NULL: not set up */
	int src, dst, pipe[2];
	size_t pending; /* bytes in the pipe */
	bool eof;	/* src ended: shut dst's writing once pending is 0 */
	struct event *in_ev, *out_ev;
};

/* The host's own addresses, kept current (proxy_own.c). */
struct own_addrs {
	int nl; /* netlink, subscribed to address changes */
	struct event *ev;
	struct sockaddr_storage *addrs;
	size_t n;
	bool unread; /* the last read failed: every address is own */
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
	int fd[2]; /* client, up: the splice's once it took them, else -1 */
	struct splice_dir dir[2]; /* client to up, up to client */
};

struct proxy {
	struct event_base *base;
	struct evconnlistener *listener;
	struct event *stop_ev, *done_ev, *retry_ev;
	int stopfd[2], donefd[2]; /* proxy_stop -> loop; resolvers -> loop */
	pthread_t thread;
	struct proxy_policy pol;
	struct proxy_rule *rules;
	struct own_addrs own;
	proxy_record_fn record;
	void *record_arg;
	struct conn *conns;
	struct resolver *resolver;
	pthread_mutex_t mu; /* the stats */
	struct proxy_stats stats;
};

/* proxy_close.c */
void proxy_stats_add(struct proxy *px, int conns, bool refused);
void conn_free(struct conn *c);
void conn_http_error(struct conn *c, int status, const char *why);
void conn_socks_error(struct conn *c, int code);
void conn_refuse(struct conn *c, const char *rule);
void conn_arm(struct conn *c, unsigned ms);
/* A connection's timer (arg: the conn): its head, its connect or its
 * idle tunnel took too long; answered, then freed. */
void conn_timed_out(evutil_socket_t fd, short what, void *arg);
/* Free @c's tunnel: its events, pipes and the two sockets it took. */
void tunnel_free(struct conn *c);

/* proxy_own.c */
int own_start(struct proxy *px);
void own_stop(struct proxy *px);
/* Is @sa (IPv4-mapped: its IPv4 address) one of the host's addresses as
 * they are now?  True as well while they cannot be read. */
bool proxy_is_own(struct proxy *px, const struct sockaddr *sa);

/* proxy_conn.c */
void conn_start(struct conn *c);
void conn_resolved(struct conn *c, struct job *j);

/* proxy_splice.c */
bool tunnel_splice(struct conn *c);

/* proxy_resolve.c */
int resolver_start(struct proxy *px, struct resolver **out);
int resolver_submit(struct resolver *r, struct job *j);
void resolver_stop(struct resolver *r);

#endif
