/*
 * dnsmsg.h - the DNS messages of cordon's resolver: a query read, an
 * answer written, in the caller's buffers, with glibc's resolver library
 * (<arpa/nameser.h>, <resolv.h>) doing the wire format.  Pure: no I/O,
 * no allocation, no state.  The queries come from inside the sandbox:
 * every byte is hostile, every length checked before it is read.
 *
 * Links with -lresolv (ns_initparse, ns_parserr, ns_msg_getflag live in
 * libresolv, static or not; the ns_name_* and dn_* functions in libc).
 */
#ifndef CORDON_DNSMSG_H
#define CORDON_DNSMSG_H

#include <arpa/nameser.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define DNSMSG_MAX	 512   /* a UDP answer without EDNS */
#define DNSMSG_EDNS_MAX	 4096  /* a client's EDNS payload size, at most */
#define DNSMSG_EDNS_SIZE 1232  /* the payload size our OPT advertises */
#define DNSMSG_TCP_MAX	 65535 /* any message, TCP's 2-byte length aside */

/* A query, as dnsmsg_parse() read it. */
struct dns_query {
	uint16_t id;
	uint8_t opcode;	    /* echoed: ns_o_query unless refused */
	bool rd;	    /* recursion desired, echoed */
	bool edns;	    /* one OPT record: one is echoed */
	bool edns_do;	    /* its DO bit, echoed (RFC 3225) */
	uint16_t edns_size; /* its UDP payload size, 512..4096 */
	int rcode;	    /* on -EOPNOTSUPP: the one to answer */
	uint16_t qtype, qclass;
	/* The question's name as sent (its case kept: RFC 1035 4.1.1, and
	 * the 0x20 trick of some clients), uncompressed.  qname_len 0: no
	 * question was read; an answer then has the header alone. */
	uint8_t qname[NS_MAXCDNAME];
	size_t qname_len;
	/* The name to look up: lower case, no trailing dot, "" for the
	 * root; only when dnsmsg_parse() returned 0. */
	char name[256];
};

/**
 * dnsmsg_parse - the @len bytes at @msg as a standard query: QR clear,
 * opcode QUERY, exactly one question of class IN whose name is made of
 * letters, digits, '-' and '_' (labels of at most 63 bytes, 253 in all:
 * as any DNS name); at most one OPT record, of version 0.
 *
 * Return: 0 with @q filled;
 *  -EOPNOTSUPP when the header and the question (if any) were read but
 *   this is not a query to look up: answer q->rcode with dnsmsg_answer()
 *   (no address), which echoes what was read:
 *     ns_r_formerr  QDCOUNT other than 1, two OPT records, an OPT not
 *                   owned by the root (RFC 6891 6.1.1), or more than 4
 *                   additional records (each costs a name's expansion:
 *                   a 64 KB query of 4,000 would take 150 ms to read);
 *     ns_r_badvers  an OPT of a version other than 0 (RFC 6891 6.1.3);
 *     ns_r_notimpl  an opcode other than QUERY;
 *     ns_r_nxdomain a name with other bytes ('*', '.', a blank, a
 *                   control byte...): no such host can be looked up, and
 *                   NXDOMAIN ends the client's search where REFUSED or
 *                   SERVFAIL would send it to the next server;
 *     ns_r_refused  a class other than IN (CHAOS's version.bind...).
 *  -EINVAL when malformed (shorter than a header, QR set: a response,
 *   sections that overrun or leave bytes over, a compression loop or a
 *   pointer out of the message): nothing of it can be echoed; answer
 *   nothing, or FORMERR with dnsmsg_error() (which refuses a response).
 */
int dnsmsg_parse(const uint8_t *msg, size_t len, struct dns_query *q);

/**
 * dnsmsg_limit - the most bytes an answer to @q may have: 512 over UDP
 * without EDNS, its EDNS payload size with, DNSMSG_TCP_MAX over TCP
 * (@tcp).  Pass the lesser of this and the buffer's size as @cap.
 */
size_t dnsmsg_limit(const struct dns_query *q, bool tcp);

/**
 * dnsmsg_answer - the answer to @q into @out (@cap bytes): the header
 * (QR, RA, the id, the opcode and RD echoed, @rcode), the question as
 * sent, then with ns_r_noerror one record per address of @addrs (@naddrs
 * of them) that @q asks for (AF_INET for A, AF_INET6 for AAAA; the
 * others, and every address for any other type, skipped: no address
 * put is NODATA), owned by a pointer to the question, with @ttl (at
 * most 2^31 - 1, RFC 2181 8); an OPT record last when @q had one.  The
 * records that do not fit in @cap are left out and TC set.  @rcode
 * above 15 (ns_r_badvers) goes in the OPT's extended RCODE.
 * Return: the answer's length; -ENOSPC when not even the header, the
 * question and the OPT fit; -EINVAL for an @rcode that cannot be sent
 * (above 15 without EDNS, above 4095).
 */
long dnsmsg_answer(const struct dns_query *q, int rcode,
		   const struct sockaddr_storage *addrs, size_t naddrs,
		   uint32_t ttl, uint8_t *out, size_t cap);

/**
 * dnsmsg_answer_ptr - as dnsmsg_answer() with ns_r_noerror, the one
 * record a PTR to @name (in presentation form, "host.example"), put when
 * @q asks for PTR (NODATA otherwise).
 * Return: as dnsmsg_answer(); -EINVAL when @name is not a DNS name.
 */
long dnsmsg_answer_ptr(const struct dns_query *q, const char *name,
		       uint32_t ttl, uint8_t *out, size_t cap);

/**
 * dnsmsg_error - the answer with @rcode (0..15) to the @len bytes at
 * @msg when only their header can be trusted: QR, RA, the id, the opcode
 * and RD echoed, every count 0.
 * Return: its length (12); -EINVAL when @msg has no header or is a
 * response (QR set), or for @rcode above 15; -ENOSPC.
 */
long dnsmsg_error(const uint8_t *msg, size_t len, int rcode, uint8_t *out,
		  size_t cap);

/**
 * dnsmsg_is_reverse - is q->name a whole reverse name: four decimal
 * labels (0..255, no leading zero) then in-addr.arpa, or 32 one-digit
 * hexadecimal labels then ip6.arpa?  Then its address into *@out
 * (AF_INET or AF_INET6, port 0).  q->qtype is not looked at.
 */
bool dnsmsg_is_reverse(const struct dns_query *q, struct sockaddr_storage *out);

#endif
