/*
 * netclass.h - which special-purpose block of the IANA IPv4 and IPv6
 * Special-Purpose Address Registries (and of the IPv6 address space
 * outside global unicast) an address falls in.  Pure: no I/O, no state.
 * The egress proxy (proxy_conn.c) refuses a name under a wildcard
 * --allow-host that resolves into any of them.
 */
#ifndef CORDON_NETCLASS_H
#define CORDON_NETCLASS_H

#include <stdint.h>
#include <sys/socket.h>

/* How an IPv6 block carries an IPv4 address that decides for it. */
enum netclass_embed {
	NETCLASS_WHOLE,	   /* the whole block is special */
	NETCLASS_V4_AT_12, /* bytes 12-15: IPv4-mapped, NAT64 /96 */
	NETCLASS_V4_AT_2,  /* bytes 2-5: 6to4 */
};

/* One block of the table (netclass.c). */
struct netclass {
	int family;	    /* AF_INET, AF_INET6; AF_UNSPEC: not IP */
	uint8_t prefix[16]; /* network order, len bits of it */
	unsigned int len;
	enum netclass_embed embed;
	const char *block; /* "100.64.0.0/10" */
	const char *name;  /* "shared address space" */
	const char *rfc;   /* "RFC 6598" */
};

/**
 * netclass_special - the most specific special-purpose block @sa (an
 * AF_INET or AF_INET6 address) falls in.  An IPv6 form that carries an
 * IPv4 address (IPv4-mapped, NAT64's well-known prefix, 6to4) is judged
 * by that IPv4 address: the IPv4 block it falls in, or NULL.  Any other
 * family is special (an entry named so).
 * Return: the block, or NULL when @sa is an ordinary global address.
 */
const struct netclass *netclass_special(const struct sockaddr *sa);

/* The table itself, for the tests: @n entries. */
const struct netclass *netclass_table(unsigned int *n);

#endif
