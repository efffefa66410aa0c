/*
 * sockrule_linux.c - the sockets the launcher's seccomp filter refuses
 * (sockrule.h), described once: enforce/linux/sysfilter.c builds its rules
 * from these tables, and the shim explains, with sockrule_check(), a
 * socket() that the kernel refused.
 *
 * With the network off, every IPv4 and IPv6 socket is refused, TCP
 * included, unless the command has a network namespace of its own:
 * Landlock alone leaves a TCP socket two ways around its port rules (a
 * listen() without bind() binds an ephemeral port on every address, and
 * a sendto() with MSG_FASTOPEN connects without the connect() that
 * Landlock checks; the filter closes the second, and with TCP ports
 * allowed the broker the first: enforce/broker/broker_own.c).  In its own
 * namespace the filter lets TCP sockets be made, as with TCP ports only: then
 * every IPv4 and IPv6 socket that is not plain TCP is refused (Landlock
 * sees TCP only); with UDP ports granted, plain UDP ones too (Landlock
 * sees their ports from ABI 10).  Packet sockets are refused unless the network
 * is on. sockrule_check() takes the strict reading (no namespace): the shim
 * explains only a socket() the kernel did refuse.
 *
 * Pure: the shim calls it in signal handlers and vfork children.
 */
#include <netinet/in.h>
#include <sys/socket.h>

#include "shim/core/sockrule.h"
#include "shim/core/strbuf.h"

const int sockrule_families[2] = { AF_INET, AF_INET6 };
const int sockrule_not_tcp[6] = { SOCK_DGRAM,	  SOCK_RAW,  SOCK_RDM,
				  SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET };
const int sockrule_packet = AF_PACKET;

static bool is_inet(int domain)
{
	return domain == sockrule_families[0] || domain == sockrule_families[1];
}

/* As the filter compares: the type's low bits, and the protocol as the
 * 64-bit register it travels in (a negative one is a huge one). */
static bool is_plain_tcp(int type, int protocol)
{
	unsigned long proto = (unsigned long)(long)protocol;

	for (size_t i = 0; i < sizeof(sockrule_not_tcp) / sizeof(int); i++)
		if ((type & SOCKRULE_TYPE_MASK) == sockrule_not_tcp[i])
			return false;
	return (type & SOCKRULE_TYPE_MASK) != SOCK_STREAM ||
	       proto <= IPPROTO_TCP;
}

/* Plain UDP: a datagram socket of protocol 0 or IPPROTO_UDP. */
static bool is_plain_udp(int type, int protocol)
{
	unsigned long proto = (unsigned long)(long)protocol;

	return (type & SOCKRULE_TYPE_MASK) == SOCK_DGRAM &&
	       (proto == 0 || proto == IPPROTO_UDP);
}

bool sockrule_is_udp(int domain, int type, int protocol)
{
	return is_inet(domain) && is_plain_udp(type, protocol);
}

bool sockrule_is_tcp(int domain, int type, int protocol)
{
	return is_inet(domain) && (type & SOCKRULE_TYPE_MASK) == SOCK_STREAM &&
	       is_plain_tcp(type, protocol);
}

enum sock_verdict sockrule_check(const struct policy *p, int domain, int type,
				 int protocol)
{
	if (p->net == NET_ON)
		return SOCK_ALLOWED;
	if (domain == sockrule_packet)
		return SOCK_REFUSED_PACKET;
	if (!is_inet(domain))
		return SOCK_ALLOWED;
	if (p->net == NET_OFF)
		return SOCK_REFUSED_OFF;
	/* NET_PORTS, or NET_HOSTS: TCP, held by Landlock's ports or by the
	 * network namespace; UDP only where UDP ports are granted (held by
	 * Landlock's UDP ports) */
	if (policy_has_udp(p) && is_plain_udp(type, protocol))
		return SOCK_ALLOWED;
	/* NET_HOSTS: UDP reaches nothing but cordon's resolver, in the
	 * namespace's own loopback (enforce/linux/netcap.c) */
	if (p->net == NET_HOSTS && is_plain_udp(type, protocol))
		return SOCK_ALLOWED;
	return is_plain_tcp(type, protocol) ? SOCK_ALLOWED
					    : SOCK_REFUSED_NOT_TCP;
}

bool sockrule_needs_raw(int domain, int type)
{
	int t = type & SOCKRULE_TYPE_MASK;

	return domain == sockrule_packet || t == SOCK_PACKET ||
	       (is_inet(domain) && t == SOCK_RAW);
}

static const char *family_name(int domain)
{
	return domain == AF_INET     ? "AF_INET"
	       : domain == AF_INET6  ? "AF_INET6"
	       : domain == AF_PACKET ? "AF_PACKET"
				     : NULL;
}

static const char *type_name(int type)
{
	static const char *const names[] = {
		[SOCK_STREAM] = "SOCK_STREAM",
		[SOCK_DGRAM] = "SOCK_DGRAM",
		[SOCK_RAW] = "SOCK_RAW",
		[SOCK_RDM] = "SOCK_RDM",
		[SOCK_SEQPACKET] = "SOCK_SEQPACKET",
		[SOCK_DCCP] = "SOCK_DCCP",
		[SOCK_PACKET] = "SOCK_PACKET",
	};
	int t = type & SOCKRULE_TYPE_MASK;

	return t < (int)(sizeof(names) / sizeof(names[0])) ? names[t] : NULL;
}

static const char *proto_name(int protocol)
{
	switch (protocol) {
	case IPPROTO_TCP:
		return "IPPROTO_TCP";
	case IPPROTO_UDP:
		return "IPPROTO_UDP";
	case IPPROTO_ICMP:
		return "IPPROTO_ICMP";
	case IPPROTO_ICMPV6:
		return "IPPROTO_ICMPV6";
	case IPPROTO_SCTP:
		return "IPPROTO_SCTP";
	case IPPROTO_UDPLITE:
		return "IPPROTO_UDPLITE";
	case IPPROTO_MPTCP:
		return "IPPROTO_MPTCP";
	case IPPROTO_RAW:
		return "IPPROTO_RAW";
	default:
		return NULL;
	}
}

/* A name, or the number when it has none (a negative one as such). */
static void put_named(struct strbuf *sb, const char *name, int v)
{
	if (name) {
		sb_puts(sb, name);
		return;
	}
	if (v < 0)
		sb_puts(sb, "-");
	sb_uint(sb, v < 0 ? -(unsigned long)(long)v : (unsigned long)v);
}

void sockrule_name(int domain, int type, int protocol,
		   char out[SOCKRULE_NAME_MAX])
{
	struct strbuf sb = STRBUF(out, SOCKRULE_NAME_MAX);

	put_named(&sb, family_name(domain), domain);
	sb_puts(&sb, " ");
	put_named(&sb, type_name(type), type & SOCKRULE_TYPE_MASK);
	/* 0 is the family's default; a packet socket's is an ethertype */
	if (protocol != 0 && domain != AF_PACKET) {
		sb_puts(&sb, " ");
		put_named(&sb, proto_name(protocol), protocol);
	}
}
