/*
 * sockrule.h - which sockets the launcher's seccomp filter refuses under
 * a network policy (sockrule_linux.c): one description, installed by
 * enforce/linux/sysfilter.c and explained by the shim's socket() hook
 * (shim/hook_net.c) when the kernel refuses one.
 */
#ifndef CORDON_SOCKRULE_H
#define CORDON_SOCKRULE_H

#include <stdbool.h>
#include <stddef.h>

#include "shim/core/policy.h"

/* What the filter makes of socket(domain, type, protocol). */
enum sock_verdict {
	SOCK_ALLOWED,
	SOCK_REFUSED_OFF,     /* network off: no IPv4 or IPv6 socket */
	SOCK_REFUSED_NOT_TCP, /* ports only: this one is not plain TCP (nor
			       * plain UDP, with UDP ports) */
	SOCK_REFUSED_PACKET,  /* a packet socket: only with the network on */
};

/* The bits of socket()'s type that the filter compares (no flags). */
#define SOCKRULE_TYPE_MASK 0xf

/* The families the network policy covers, and the types of theirs that
 * are not TCP (refused unless the network is on). */
extern const int sockrule_families[2];
extern const int sockrule_not_tcp[6];
/* The family refused whole unless the network is on. */
extern const int sockrule_packet;

/* The filter's verdict on socket(@domain, @type, @protocol) under @p.
 * Pure; async-signal-safe. */
enum sock_verdict sockrule_check(const struct policy *p, int domain, int type,
				 int protocol);

/* Is it an IPv4 or IPv6 socket that the filter takes for plain TCP,
 * which a port grant (--connect, --bind) lets through? */
bool sockrule_is_tcp(int domain, int type, int protocol);

/* Is it plain UDP (protocol 0 or IPPROTO_UDP), which a UDP port grant
 * (--connect udp:PORT) lets through? */
bool sockrule_is_udp(int domain, int type, int protocol);

/* Does such a socket need CAP_NET_RAW (raw and packet sockets), which a
 * sandboxed command never has, whatever the network policy? */
bool sockrule_needs_raw(int domain, int type);

/* "AF_INET SOCK_DGRAM", "AF_INET6 SOCK_STREAM IPPROTO_SCTP", "AF_PACKET
 * SOCK_RAW": the call in words, for the line and the record's
 * "destination" (no ':', so that it is never read as host:port). */
#define SOCKRULE_NAME_MAX 64
void sockrule_name(int domain, int type, int protocol,
		   char out[SOCKRULE_NAME_MAX]);

#endif
