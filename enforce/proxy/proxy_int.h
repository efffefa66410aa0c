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

#define PROXY_DNS_TCP_LST 16 /* the resolver's TCP listeners, at most */

struct resolver;
struct dnstcp;
struct names;
struct dnsq;

enum phase {
	P_SNIFF,      /* nothing read yet */
	P_PEEK,	      /* captured: the first bytes, for a name */
	P_ASKING,     /* refused, and the user is asked (--ask) */
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
	struct dnsq *dq; /* a resolver's query waiting for it, or NULL */
	bool warm;	 /* a rule's name, resolved at the start */
	bool ask;	 /* a question (host: the spec); n: 1 for yes */
	char host[PROXY_HOST_MAX];
	uint16_t port;
	uint16_t client_port; /* a question's asker's, or 0 */
	bool client_udp;      /* that port is a UDP one (a query's) */
	int n;		      /* addresses, or -errno */
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
	bool captured;		      /* redirected: no proxy protocol */
	struct sockaddr_storage orig; /* captured: where it was going */
	void (*redo)(struct conn *c); /* the decision, again after a yes */
	bool asked;		      /* --ask asked about it already */
	char why[256];		      /* the refusal's rule, while asked */
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
	struct resolver *asker;	     /* --ask's thread: the same queue's code */
	struct names *names;	     /* proxy_names.c */
	struct evconnlistener **lst; /* the capture's listeners */
	void *lst_args;		     /* theirs (proxy_capture.c) */
	size_t nlst;
	struct event **dns_ev; /* the resolver's UDP sockets */
	size_t ndns;
	struct dnsq *dnsqs;	/* queries waiting for a name */
	struct dnstcp *dnstcps; /* the resolver's TCP clients */
	struct evconnlistener *dns_tcp[PROXY_DNS_TCP_LST];
	size_t ndns_tcp, dns_pending;
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
/* Resolve @c->target's name (a job), then conn_resolved(). */
void conn_lookup(struct conn *c);
/* Dial @c->addrs from the first (c->naddrs set), then splice. */
void conn_dial(struct conn *c);
/* A new connection of @fd on the loop, counted; NULL when out of
 * memory (@fd closed). */
struct conn *conn_new(struct proxy *px, int fd);
/* Is @sa special-purpose (netclass.c) or one of the host's own?  Then
 * why a name under a wildcard may not reach it, into @buf. */
bool proxy_special_why(struct proxy *px, const struct sockaddr *sa, char *buf,
		       size_t cap);
/* Re-enable every listener paused at the cap. */
void proxy_listeners_enable(struct proxy *px);

/* proxy_close.c */
/* Captured @c refused or failed: a reset, as a host that refuses. */
void conn_reset(struct conn *c);
/* The host's own network failed a destination the policy allows: a
 * record ("upstream": true) for its owner to say, @why the error. */
void conn_upstream(struct conn *c, const char *why);
void proxy_upstream(struct proxy *px, const char *dest, const char *why);

/* The command's end of @c, its port on the namespace's loopback, or 0
 * (proxy_close.c). */
uint16_t conn_client_port(struct conn *c);

/* proxy_ask.c: --ask before a refusal */
/* Ask about @c's target instead of refusing it now (its redo set, not
 * asked yet, an asker there).  Return: true when asked (the answer
 * goes on with it), false to refuse now. */
bool proxy_ask_conn(struct conn *c);
/* Ask about @name for a query waiting (dq), from @client_port (@udp:
 * a UDP one; 0: unknown). */
bool proxy_ask_name(struct proxy *px, struct dnsq *dq, const char *name,
		    unsigned int client_port, bool udp);
/* An ask job came back: the rule added on a yes, then on with it. */
void proxy_asked(struct proxy *px, struct job *j);
/* Add --allow-host @spec to the rules.  Return: 0 or -errno. */
int proxy_rule_add(struct proxy *px, const char *spec);

/* proxy_capture.c: the redirected connections and the loopback
 * forwards (their listeners among pol.socks) */
int capture_start(struct proxy *px);
void capture_stop(struct proxy *px);
/* Captured @c's peek window closed (its timer): decide by address. */
void capture_quiet(struct conn *c);

/* proxy_dns.c: the resolver inside (pol.socks' DNS ones) */
int dns_start(struct proxy *px);
void dns_stop(struct proxy *px);
/* A job of a query came back (its dq set); the job is the caller's. */
void dns_resolved(struct proxy *px, struct job *j);
/* The user answered about @dq's name (--ask): on with it, or refused. */
void dns_asked(struct proxy *px, struct dnsq *dq, bool yes);

/* proxy_names.c: what names resolved to, outside: for answers (fresh
 * for NAMES_TTL seconds) and to know which name an address came from */
#define NAMES_MAX 512
#define NAMES_TTL 60
struct names *names_new(void);
void names_free(struct names *n);
/* @host's addresses resolved less than NAMES_TTL ago: how many (into
 * @out, at most PROXY_ADDRS_MAX), 0 when not known or stale, -ENOENT
 * when it resolved to nothing. */
int names_get(struct names *n, const char *host, struct sockaddr_storage *out);
void names_put(struct names *n, const char *host,
	       const struct sockaddr_storage *addrs, int count);
/* The @i-th name (from 0) whose addresses hold @sa, or NULL. */
const char *names_of_addr(struct names *n, const struct sockaddr *sa, size_t i);
/* Does @host's last resolution hold @sa? */
bool names_holds(struct names *n, const char *host, const struct sockaddr *sa);

/* proxy_splice.c */
bool tunnel_splice(struct conn *c);

/* proxy_resolve.c */
int resolver_start(struct proxy *px, struct resolver **out, int nthreads);
int resolver_submit(struct resolver *r, struct job *j);
void resolver_stop(struct resolver *r);

#endif
