/*
 * proxy.h - the filtering egress proxy of --allow-host: run by the
 * supervisor, outside the sandbox, on a listening socket that lives
 * inside the command's network namespace.  One port serves HTTP/1.1
 * proxy requests (absolute form, forwarded with Connection: close),
 * CONNECT (bytes spliced both ways, TLS never looked into) and SOCKS5
 * (no authentication, CONNECT, names, IPv4 and IPv6).  Names are
 * resolved here, outside, and the proxy connects to the addresses it
 * resolved; the rules are proxy_rules.c's.
 */
#ifndef CORDON_PROXY_H
#define CORDON_PROXY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "enforce/proxy/proxy_parse.h"

#define PROXY_CONNS_MAX	 256	/* connections served at once */
#define PROXY_ADDRS_MAX	 8	/* addresses of a name tried in turn */
#define PROXY_BUFFER_MAX 262144 /* bytes queued toward one side */
#define PROXY_RESOLVERS	 4	/* getaddrinfo() threads */
#define PROXY_HEADER_MS	 10000	/* a request's head, from the accept */
#define PROXY_CONNECT_MS 10000	/* resolving, then each connect */
#define PROXY_IDLE_MS	 300000 /* a tunnel with no byte either way */

/**
 * typedef proxy_resolve_fn - resolve @host for @port into at most @max
 * addresses at @out.  Called from a resolver thread.
 * Return: how many (> 0), or -errno (-ENOENT: no such name).
 */
typedef int (*proxy_resolve_fn)(void *arg, const char *host, uint16_t port,
				struct sockaddr_storage *out, size_t max);

/* Gets each refusal as a record (record_new(), RECORD_KERNEL) and takes
 * it; called from the proxy's thread, never two at once. */
typedef void (*proxy_record_fn)(void *arg, json_t *rec);

struct proxy_policy {
	const struct proxy_rule *rules; /* copied by proxy_start() */
	size_t nrules;
	unsigned conns_max;	  /* 0: PROXY_CONNS_MAX */
	size_t buffer_max;	  /* 0: PROXY_BUFFER_MAX; unspliced tunnels */
	unsigned header_ms;	  /* 0: PROXY_HEADER_MS */
	unsigned connect_ms;	  /* 0: PROXY_CONNECT_MS */
	unsigned idle_ms;	  /* 0: PROXY_IDLE_MS */
	proxy_resolve_fn resolve; /* NULL: getaddrinfo() */
	void *resolve_arg;
};

struct proxy;

/**
 * proxy_start - serve @listen_fd (listening, taken: closed by
 * proxy_stop()) with @policy, from a thread of its own.  Each refusal
 * goes to @record with @arg (may be NULL: no records).
 * Return: 0 with *@out, or -errno.
 */
int proxy_start(struct proxy **out, int listen_fd,
		const struct proxy_policy *policy, proxy_record_fn record,
		void *arg);

/**
 * proxy_stop - close every connection and the listener, wait for the
 * threads (a resolver inside getaddrinfo() is waited for) and free @px
 * (NULL: nothing).  No record is given once it returns.
 */
void proxy_stop(struct proxy *px);

/* What proxy_stats() reads, for tests and the bench. */
struct proxy_stats {
	unsigned conns; /* open now */
	unsigned peak;	/* the most open at once */
	unsigned long accepted, refused;
};

/* A snapshot of @px's counters (taken under its lock). */
void proxy_stats(struct proxy *px, struct proxy_stats *st);

#endif
