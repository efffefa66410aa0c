/*
 * proxy.h - the egress proxy of --allow-host (enforce/proxy/): its rules and
 * parsers, and the proxy itself, run by the supervisor outside the sandbox.
 *
 * One header, the folder's whole interface: the rest of cordon includes
 * this and nothing else of enforce/proxy/.  Its parts, each with the file
 * that implements it, follow.
 */
#ifndef CORDON_PROXY_H
#define CORDON_PROXY_H

#include <jansson.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

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

/* The sockets of transparent capture (enforce/linux/netcap.c), made in
 * the command's network namespace, served beside the proxy's own. */
enum proxy_sock_kind {
	PROXY_SOCK_CAPTURE,	 /* listens: redirected connections, each with
				  * its destination in SO_ORIGINAL_DST */
	PROXY_SOCK_DNS_UDP,	 /* the resolver's, bound to port 53 */
	PROXY_SOCK_DNS_TCP,	 /* the same, listening */
	PROXY_SOCK_FORWARD,	 /* listens on a loopback port an --allow-host
				  * names: dialed at @to on the host's */
	PROXY_SOCK_FORWARD_NAME, /* the same for a name's rule (/etc/hosts
				  * puts it there): a name the client
				  * sends (SNI, Host) must be allowed */
};

struct proxy_socket {
	int fd;
	enum proxy_sock_kind kind;
	struct sockaddr_storage to; /* PROXY_SOCK_FORWARD's */
};

/* What the proxy tells its owner besides refusals: a name or a host
 * the policy allows that the host's own network could not reach
 * (record_new(), RECORD_KERNEL, with "upstream": true). */

struct proxy_policy {
	const struct proxy_rule *rules; /* copied by proxy_start() */
	size_t nrules;
	const struct proxy_socket *socks; /* taken by proxy_start() */
	size_t nsocks;
	unsigned conns_max;	  /* 0: PROXY_CONNS_MAX */
	size_t buffer_max;	  /* 0: PROXY_BUFFER_MAX; unspliced tunnels */
	unsigned header_ms;	  /* 0: PROXY_HEADER_MS */
	unsigned connect_ms;	  /* 0: PROXY_CONNECT_MS */
	unsigned idle_ms;	  /* 0: PROXY_IDLE_MS */
	proxy_resolve_fn resolve; /* NULL: getaddrinfo() */
	void *resolve_arg;
	/* --ask: before a refusal, from a thread of the proxy's own, one
	 * question at a time (it blocks: PROXY_ASK_MS at most).  Return:
	 * nonzero to allow @spec (an --allow-host's text) for the run.
	 * @client_port: the asker's port inside (a session finds its call
	 * by it): its TCP connection's, or for a name looked up its
	 * query's (@udp: a UDP one); 0: unknown.  NULL: a refusal is
	 * final. */
	int (*ask)(void *arg, const char *spec, unsigned int client_port,
		   bool udp);
	void *ask_arg;
};

#define PROXY_ASK_MS 35000 /* a refused client waits for the answer */

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

/*
 * proxy_parse.c - what the egress proxy (proxy.h) reads from inside the
 * sandbox, parsed without I/O: the first line and headers of an HTTP/1.1
 * proxy request, a SOCKS5 greeting and request, a host[:port], and the
 * --allow-host rules with their matching.  Every input is hostile and
 * bounded by its caller; nothing here allocates.
 */

#define PROXY_HOST_MAX	 256   /* a DNS name is at most 253 bytes */
#define PROXY_HEADER_MAX 16384 /* bytes of a request's line and headers */
#define PROXY_PATH_MAX	 8192  /* bytes of an origin-form target */

/* One --allow-host HOST[:PORT]. */
struct proxy_rule {
	char host[PROXY_HOST_MAX]; /* lower case; after "*." if wildcard */
	bool wildcard;		   /* *.host: every subdomain, not host */
	bool is_ip;		   /* an IP literal: addr holds it */
	struct sockaddr_storage addr;
	uint16_t port; /* 0: 80 and 443 */
};

/* What a client asked to reach. */
struct proxy_target {
	char host[PROXY_HOST_MAX]; /* lower case, IPv6 without brackets */
	uint16_t port;
	bool is_ip;
	struct sockaddr_storage addr; /* when is_ip, port 0 */
};

enum proxy_kind { PROXY_HTTP, PROXY_CONNECT };

/* An HTTP request's head, as offsets into the caller's buffer. */
struct proxy_request {
	enum proxy_kind kind;
	struct proxy_target target;
	size_t method_len;	      /* buf[0..method_len) */
	size_t path_off, path_len;    /* origin form; "/" when empty */
	size_t headers_off, head_len; /* first header line; whole head */
};

/* How a target fares against the rules. */
enum proxy_verdict {
	PROXY_DENY,	/* no rule matches */
	PROXY_EXACT,	/* a rule names this very host (or IP) and port */
	PROXY_WILDCARD, /* only a wildcard rule matches */
};

/**
 * proxy_rule_parse - @spec, as given to --allow-host: "host", "host:port",
 * "*.domain[:port]", an IPv4 literal, "[v6]" or "[v6]:port" (a bare
 * IPv6 literal too, without a port).  Return: 0, or -EINVAL.
 */
int proxy_rule_parse(const char *spec, struct proxy_rule *out);

/**
 * proxy_host_parse - @len bytes at @s as a host name (letters, digits,
 * '-', '_', '.', labels of 1..63 bytes, at most 253 bytes, a trailing
 * dot dropped) or an IP literal (IPv6 in brackets when @brackets), into
 * @t (lower case).  Return: 0, or -EINVAL.
 */
int proxy_host_parse(const char *s, size_t len, bool brackets,
		     struct proxy_target *t);

/**
 * proxy_hostport_parse - "host:port" (@len bytes at @s); without a port,
 * @default_port (0: the port is required).  Return: 0, or -EINVAL.
 */
int proxy_hostport_parse(const char *s, size_t len, uint16_t default_port,
			 struct proxy_target *t);

/**
 * proxy_request_parse - the head of an HTTP/1.x proxy request in the
 * @len bytes at @buf: "CONNECT host:port HTTP/1.x" or
 * "METHOD http://host[:port][/path] HTTP/1.x", then header lines, up to
 * the empty line.
 * Return: the head's length (> 0) with @r filled; 0 when the head is
 * not complete yet; -E2BIG when it cannot end within PROXY_HEADER_MAX;
 * -EPROTONOSUPPORT for an absolute URI of another scheme (https:// is
 * reached through CONNECT); -EINVAL when malformed.
 */
long proxy_request_parse(const char *buf, size_t len, struct proxy_request *r);

/**
 * proxy_request_rewrite - @r's head (in @buf) for the origin server,
 * into @out (@outlen bytes): "METHOD /path HTTP/1.1", the client's
 * headers less the hop-by-hop and proxy ones (Connection, Keep-Alive,
 * Proxy-*, Host, TE, Upgrade), then "Host: " the target and
 * "Connection: close".  Return: the length written, or -ENOSPC.
 */
long proxy_request_rewrite(const char *buf, const struct proxy_request *r,
			   char *out, size_t outlen);

/* SOCKS5 (RFC 1928) */
#define PROXY_SOCKS_OK		 0x00
#define PROXY_SOCKS_FAILURE	 0x01 /* general failure */
#define PROXY_SOCKS_NOT_ALLOWED	 0x02 /* connection not allowed by ruleset */
#define PROXY_SOCKS_NET_UNREACH	 0x03
#define PROXY_SOCKS_HOST_UNREACH 0x04
#define PROXY_SOCKS_REFUSED	 0x05
#define PROXY_SOCKS_TTL		 0x06 /* TTL expired: used for timeouts */
#define PROXY_SOCKS_BAD_COMMAND	 0x07
#define PROXY_SOCKS_BAD_ATYP	 0x08

/**
 * proxy_socks_greeting - VER 5, NMETHODS, METHODS in @len bytes at @buf.
 * Return: its length with *@noauth set when method 0 is offered; 0 when
 * incomplete; -EINVAL when malformed.
 */
long proxy_socks_greeting(const uint8_t *buf, size_t len, bool *noauth);

/**
 * proxy_socks_request - VER 5, CMD, RSV, ATYP, DST.ADDR, DST.PORT.
 * Return: its length with @t filled; 0 when incomplete; or minus the
 * SOCKS reply code to answer (-PROXY_SOCKS_BAD_COMMAND for a command
 * other than CONNECT, -PROXY_SOCKS_BAD_ATYP, -PROXY_SOCKS_FAILURE when
 * malformed).
 */
long proxy_socks_request(const uint8_t *buf, size_t len,
			 struct proxy_target *t);

/**
 * proxy_match - @t against the @n @rules: an IP literal only against IP
 * rules (the same address), a name only against name rules (exactly, or
 * below a wildcard's domain); the port equal, or 80 and 443 for a rule
 * without one.  An exact rule wins over a wildcard.
 */
enum proxy_verdict proxy_match(const struct proxy_rule *rules, size_t n,
			       const struct proxy_target *t);

/* Do @a and @b (AF_INET or AF_INET6) hold the same address, ports
 * aside? */
bool proxy_addr_same(const struct sockaddr *a, const struct sockaddr *b);

/**
 * proxy_target_format - "host:port" ("[v6]:port") into @out (@outlen
 * bytes, at least 1).  Return: @out.
 */
char *proxy_target_format(const struct proxy_target *t, char *out,
			  size_t outlen);

/**
 * proxy_allow_format - the least --allow-host for @t: "host" for ports
 * 80 and 443, "host:port" otherwise ("[v6]:port").  Return: @out.
 */
char *proxy_allow_format(const struct proxy_target *t, char *out,
			 size_t outlen);

#endif
