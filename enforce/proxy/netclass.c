/*
 * netclass.c - the special-purpose address blocks (netclass.h), in one
 * table: every entry of the IANA IPv4 and IPv6 Special-Purpose Address
 * Registries (RFC 6890 and what came after), multicast, the reserved
 * IPv4 space, and the IPv6 space outside global unicast.  Pure: no I/O.
 *
 * What a wildcard --allow-host may reach is the public Internet and
 * nothing else, so every block here is refused to one, by the longest
 * prefix that matches (the name a refusal gives), with these choices:
 *  - Blocks the registry marks globally reachable (192.0.0.9 and .10,
 *    the AS112 and AMT blocks, the IPv6 anycast and ORCHIDv2 blocks of
 *    2001::/23, 2620:4f:8000::/48) are refused all the same: anycast
 *    infrastructure, never what a name below a domain is for.  An exact
 *    rule reaches them.
 *  - 2001::/23 is refused whole (its sub-blocks are listed for the name
 *    a refusal gives); Teredo (2001::/32) hides its IPv4 server and
 *    client, so it cannot be judged by them.
 *  - IPv4-mapped (::ffff:0:0/96), NAT64's well-known prefix
 *    (64:ff9b::/96, which RFC 6052 keeps for global IPv4 addresses) and
 *    6to4 (2002::/16) reach the IPv4 address they carry: that address
 *    decides, against the IPv4 entries.
 *  - NAT64's local-use prefix (64:ff9b:1::/48, RFC 8215) is refused
 *    whole: a translator of the local network, and where the IPv4
 *    address sits depends on a prefix length only its operator knows.
 *  - IPv4-compatible (::/96, deprecated by RFC 4291) is refused whole.
 *  - IPv6 outside 2000::/3 (::/3, 4000::/2, 8000::/1) was never handed
 *    out for global unicast (IANA's IPv6 Address Space registry): it
 *    is refused, which covers what the special registry adds there
 *    later (the dummy prefix 100:0:0:1::/64, for one).
 */
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>

#include "enforce/proxy/netclass.h"

#define P(...)                                                                 \
	{                                                                      \
		__VA_ARGS__                                                    \
	}
#define V4(a, b, c, d, len, block, name, rfc)                                  \
	{                                                                      \
		AF_INET, P(a, b, c, d), len, NETCLASS_WHOLE, block, name, rfc  \
	}
#define V6(prefix, len, embed, block, name, rfc)                               \
	{                                                                      \
		AF_INET6, prefix, len, embed, block, name, rfc                 \
	}

static const struct netclass table[] = {
	V4(0, 0, 0, 0, 8, "0.0.0.0/8", "\"this network\"", "RFC 791"),
	V4(0, 0, 0, 0, 32, "0.0.0.0/32", "\"this host on this network\"",
	   "RFC 1122"),
	V4(10, 0, 0, 0, 8, "10.0.0.0/8", "private-use", "RFC 1918"),
	V4(100, 64, 0, 0, 10, "100.64.0.0/10", "shared address space",
	   "RFC 6598"),
	V4(127, 0, 0, 0, 8, "127.0.0.0/8", "loopback", "RFC 1122"),
	V4(169, 254, 0, 0, 16, "169.254.0.0/16", "link-local", "RFC 3927"),
	V4(172, 16, 0, 0, 12, "172.16.0.0/12", "private-use", "RFC 1918"),
	V4(192, 0, 0, 0, 24, "192.0.0.0/24", "IETF protocol assignments",
	   "RFC 6890"),
	V4(192, 0, 0, 0, 29, "192.0.0.0/29", "IPv4 service continuity prefix",
	   "RFC 7335"),
	V4(192, 0, 0, 8, 32, "192.0.0.8/32", "IPv4 dummy address", "RFC 7600"),
	V4(192, 0, 0, 9, 32, "192.0.0.9/32", "PCP anycast", "RFC 7723"),
	V4(192, 0, 0, 10, 32, "192.0.0.10/32", "TURN anycast", "RFC 8155"),
	V4(192, 0, 0, 170, 32, "192.0.0.170/32", "NAT64/DNS64 discovery",
	   "RFC 8880"),
	V4(192, 0, 0, 171, 32, "192.0.0.171/32", "NAT64/DNS64 discovery",
	   "RFC 8880"),
	V4(192, 0, 2, 0, 24, "192.0.2.0/24", "documentation (TEST-NET-1)",
	   "RFC 5737"),
	V4(192, 31, 196, 0, 24, "192.31.196.0/24", "AS112-v4", "RFC 7535"),
	V4(192, 52, 193, 0, 24, "192.52.193.0/24", "AMT", "RFC 7450"),
	V4(192, 88, 99, 0, 24, "192.88.99.0/24",
	   "deprecated (6to4 relay anycast)", "RFC 7526"),
	V4(192, 88, 99, 2, 32, "192.88.99.2/32", "6a44-relay anycast",
	   "RFC 6751"),
	V4(192, 168, 0, 0, 16, "192.168.0.0/16", "private-use", "RFC 1918"),
	V4(192, 175, 48, 0, 24, "192.175.48.0/24",
	   "direct delegation AS112 service", "RFC 7534"),
	V4(198, 18, 0, 0, 15, "198.18.0.0/15", "benchmarking", "RFC 2544"),
	V4(198, 51, 100, 0, 24, "198.51.100.0/24", "documentation (TEST-NET-2)",
	   "RFC 5737"),
	V4(203, 0, 113, 0, 24, "203.0.113.0/24", "documentation (TEST-NET-3)",
	   "RFC 5737"),
	V4(224, 0, 0, 0, 4, "224.0.0.0/4", "multicast", "RFC 5771"),
	V4(240, 0, 0, 0, 4, "240.0.0.0/4", "reserved", "RFC 1112"),
	V4(255, 255, 255, 255, 32, "255.255.255.255/32", "limited broadcast",
	   "RFC 8190"),

	V6(P(0), 3, NETCLASS_WHOLE, "::/3", "not global unicast", "RFC 4291"),
	V6(P(0x40), 2, NETCLASS_WHOLE, "4000::/2", "not global unicast",
	   "RFC 4291"),
	V6(P(0x80), 1, NETCLASS_WHOLE, "8000::/1", "not global unicast",
	   "RFC 4291"),
	V6(P(0), 128, NETCLASS_WHOLE, "::/128", "unspecified", "RFC 4291"),
	V6(P([15] = 1), 128, NETCLASS_WHOLE, "::1/128", "loopback", "RFC 4291"),
	V6(P(0), 96, NETCLASS_WHOLE, "::/96", "IPv4-compatible (deprecated)",
	   "RFC 4291"),
	V6(P([10] = 0xff, 0xff), 96, NETCLASS_V4_AT_12, "::ffff:0:0/96",
	   "IPv4-mapped", "RFC 4291"),
	V6(P(0, 0x64, 0xff, 0x9b), 96, NETCLASS_V4_AT_12, "64:ff9b::/96",
	   "IPv4-IPv6 translation", "RFC 6052"),
	V6(P(0, 0x64, 0xff, 0x9b, 0, 1), 48, NETCLASS_WHOLE, "64:ff9b:1::/48",
	   "IPv4-IPv6 translation (local use)", "RFC 8215"),
	V6(P(1, 0), 64, NETCLASS_WHOLE, "100::/64", "discard-only", "RFC 6666"),
	V6(P(0x20, 0x01), 23, NETCLASS_WHOLE, "2001::/23",
	   "IETF protocol assignments", "RFC 2928"),
	V6(P(0x20, 0x01), 32, NETCLASS_WHOLE, "2001::/32", "Teredo",
	   "RFC 4380"),
	V6(P(0x20, 0x01, 0, 1, [15] = 1), 128, NETCLASS_WHOLE, "2001:1::1/128",
	   "PCP anycast", "RFC 7723"),
	V6(P(0x20, 0x01, 0, 1, [15] = 2), 128, NETCLASS_WHOLE, "2001:1::2/128",
	   "TURN anycast", "RFC 8155"),
	V6(P(0x20, 0x01, 0, 1, [15] = 3), 128, NETCLASS_WHOLE, "2001:1::3/128",
	   "DNS-SD service registration protocol anycast", "RFC 9665"),
	V6(P(0x20, 0x01, 0, 2, 0, 0), 48, NETCLASS_WHOLE, "2001:2::/48",
	   "benchmarking", "RFC 5180"),
	V6(P(0x20, 0x01, 0, 3), 32, NETCLASS_WHOLE, "2001:3::/32", "AMT",
	   "RFC 7450"),
	V6(P(0x20, 0x01, 0, 4, 0x01, 0x12), 48, NETCLASS_WHOLE,
	   "2001:4:112::/48", "AS112-v6", "RFC 7535"),
	V6(P(0x20, 0x01, 0, 0x10), 28, NETCLASS_WHOLE, "2001:10::/28",
	   "deprecated (ORCHID)", "RFC 4843"),
	V6(P(0x20, 0x01, 0, 0x20), 28, NETCLASS_WHOLE, "2001:20::/28",
	   "ORCHIDv2", "RFC 7343"),
	V6(P(0x20, 0x01, 0, 0x30), 28, NETCLASS_WHOLE, "2001:30::/28",
	   "drone remote ID protocol entity tags", "RFC 9374"),
	V6(P(0x20, 0x01, 0x0d, 0xb8), 32, NETCLASS_WHOLE, "2001:db8::/32",
	   "documentation", "RFC 3849"),
	V6(P(0x20, 0x02), 16, NETCLASS_V4_AT_2, "2002::/16", "6to4",
	   "RFC 3056"),
	V6(P(0x26, 0x20, 0, 0x4f, 0x80, 0), 48, NETCLASS_WHOLE,
	   "2620:4f:8000::/48", "direct delegation AS112 service", "RFC 7534"),
	V6(P(0x3f, 0xff, 0), 20, NETCLASS_WHOLE, "3fff::/20", "documentation",
	   "RFC 9637"),
	V6(P(0x5f, 0), 16, NETCLASS_WHOLE, "5f00::/16", "segment routing SIDs",
	   "RFC 9602"),
	V6(P(0xfc), 7, NETCLASS_WHOLE, "fc00::/7", "unique-local", "RFC 4193"),
	V6(P(0xfe, 0x80), 10, NETCLASS_WHOLE, "fe80::/10", "link-local unicast",
	   "RFC 4291"),
	V6(P(0xfe, 0xc0), 10, NETCLASS_WHOLE, "fec0::/10",
	   "site-local (deprecated)", "RFC 3879"),
	V6(P(0xff), 8, NETCLASS_WHOLE, "ff00::/8", "multicast", "RFC 4291"),
};

static const struct netclass not_ip = {
	.family = AF_UNSPEC,
	.block = "-",
	.name = "not an IP address",
	.rfc = "-",
};

const struct netclass *netclass_table(unsigned int *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

static bool has_prefix(const uint8_t *addr, const struct netclass *e)
{
	unsigned int whole = e->len / 8, rest = e->len % 8;

	if (memcmp(addr, e->prefix, whole))
		return false;
	return !rest || ((addr[whole] ^ e->prefix[whole]) & (0xff00 >> rest) &
			 0xff) == 0;
}

static const struct netclass *longest(int family, const uint8_t *addr)
{
	const struct netclass *best = NULL;

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct netclass *e = &table[i];

		if (e->family == family && (!best || e->len > best->len) &&
		    has_prefix(addr, e))
			best = e;
	}
	return best;
}

const struct netclass *netclass_special(const struct sockaddr *sa)
{
	const struct netclass *e;
	const uint8_t *b;

	if (sa->sa_family == AF_INET)
		return longest(AF_INET, (const uint8_t *)&(
						(const struct sockaddr_in *)sa)
						->sin_addr);
	if (sa->sa_family != AF_INET6)
		return &not_ip;
	b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
	e = longest(AF_INET6, b);
	if (e && e->embed == NETCLASS_V4_AT_12)
		return longest(AF_INET, b + 12);
	if (e && e->embed == NETCLASS_V4_AT_2)
		return longest(AF_INET, b + 2);
	return e;
}
