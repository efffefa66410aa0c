/*
 * report_net.h - a refused IPv4 or IPv6 destination, and its line and
 * record (report_net.c): what net.c's decision hands to the report.
 */
#ifndef CORDON_REPORT_NET_H
#define CORDON_REPORT_NET_H

#include <stdbool.h>
#include <sys/socket.h>

/* What the call does with the address. */
enum net_use {
	NET_USE_CONNECT, /* connect(): a TCP connection or a UDP default */
	NET_USE_SEND,	 /* sendto/sendmsg/sendmmsg with a destination */
	NET_USE_BIND,	 /* bind(): a local port */
};

/* Why the policy refuses it. */
/* A socket as a port grant sees it (net_kind()). */
enum net_kind {
	NET_KIND_UNKNOWN, /* no socket */
	NET_KIND_TCP,
	NET_KIND_UDP,
	NET_KIND_OTHER,
};

enum net_why {
	NET_WHY_OFF,	  /* network off */
	NET_WHY_PORT,	  /* TCP, but the port is not listed */
	NET_WHY_UDP_PORT, /* UDP ports granted, but not this one */
	NET_WHY_NOT_TCP,  /* only TCP ports are allowed; this is not TCP */
	NET_WHY_PROXY,	  /* hosts allowed: beyond the loopback, only
			   * through cordon's proxy */
};

struct net_denial {
	const char *name; /* the hook: "connect", "sendto", "bind", ... */
	enum net_use use;
	enum net_why why;
	enum net_kind kind; /* TCP or UDP: a port grant (--connect,
			     * --bind, udp: for UDP) helps */
	const struct sockaddr_storage *addr; /* AF_INET or AF_INET6 */
};

/* "255.255.255.255:65535", "[ffff:...:ffff%4294967295]:65535" */
#define NET_ADDR_MAX 72

/* The port of an AF_INET or AF_INET6 address, in host order. */
unsigned int net_port(const struct sockaddr_storage *ss);

/* @ss as "host:port" ("[v6]:port"), RFC 5952 for IPv6. */
void net_addr_str(const struct sockaddr_storage *ss, char out[NET_ADDR_MAX]);

/**
 * report_net_denial - the line on stderr (unless quiet) and the audit
 * record of @d, each once per operation and destination in this
 * process.  Allocates nothing; does not change errno.
 */
void report_net_denial(const struct net_denial *d);

/**
 * report_net_socket - the line and the record of a socket() the kernel's
 * seccomp filter refused (EACCES): @what is sockrule_name()'s words for
 * the call, @verdict sockrule_check()'s (an enum sock_verdict, not
 * SOCK_ALLOWED), @kind whether it is plain TCP or UDP (a port grant
 * would let it through, but which port is not known before it connects), @raw
 * whether it needs CAP_NET_RAW as well, which no option gives.
 * Allocates nothing; does not change errno.
 */
void report_net_socket(const char *what, int verdict, enum net_kind kind,
		       bool raw);

/**
 * report_net_abstract - the line and the record of a connect or send to
 * the abstract UNIX socket @name (@len bytes, NULs shown as '@') that
 * the kernel refused with EPERM: Landlock's scope, a socket of a
 * process outside the sandbox, which no option allows.  Allocates
 * nothing; does not change errno.
 */
void report_net_abstract(const char *hook, enum net_use use, const char *name,
			 size_t len);

/**
 * report_net_lookup - the line and the record of a host name @node that
 * getaddrinfo() could not look up because the filter refuses the UDP
 * socket DNS needs (the network off, or @ports: TCP ports only); under
 * learn, a name that will need it.  Only --net allows it.  Allocates
 * nothing; does not change errno.
 */
void report_net_lookup(const char *node, bool ports);

/* Is @ss (AF_INET or AF_INET6) a loopback address, or the unspecified
 * one that stands for it: the command's own side of its network
 * namespace when hosts are allowed (net.c decides with it too)?
 * Async-signal-safe. */
bool report_net_local(const struct sockaddr_storage *ss);

#endif
