/*
 * dnsmsg.c - the resolver's DNS messages (dnsmsg.h): queries read with
 * ns_initparse() and ns_parserr(), names with ns_name_unpack() and
 * ns_name_ntop(), answers written with ns_name_pack(), dn_comp() and
 * NS_PUT16/NS_PUT32, all into the caller's buffers.
 *
 * A query is sent by the program inside the sandbox and read outside it:
 * the library checks every length against the end of the message before
 * it reads, and follows compression pointers with a bound on the bytes
 * it visits (a loop fails); what it lets through is then held to a
 * narrow grammar here.  Never an I/O, an allocation, a lock.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <resolv.h>
#include <stdio.h>
#include <string.h>

#include "enforce/proxy/dnsmsg.h"

/* The header's second 16 bits (RFC 1035 4.1.1): no library names them
 * for writing. */
#define FLAG_QR	     0x8000
#define FLAG_TC	     0x0200
#define FLAG_RD	     0x0100
#define FLAG_RA	     0x0080
#define OPCODE_SHIFT 11

#define OPT_LEN 11 /* root, TYPE, CLASS, TTL, RDLENGTH 0 */
/* Each additional record's owner is expanded, through up to 8K
 * pointers; a query needs an OPT, a TSIG at most. */
#define AR_MAX	4
#define TTL_MAX 0x7fffffffU

static int refuse(struct dns_query *q, int rcode)
{
	q->rcode = rcode;
	return -EOPNOTSUPP;
}

/* The OPT records of the additional section.  Return: 0, an RCODE to
 * answer, or -EINVAL when a record does not parse. */
static int edns_parse(ns_msg *h, struct dns_query *q)
{
	int rcode = ns_r_noerror;
	ns_rr rr;

	if (ns_msg_count(*h, ns_s_ar) > AR_MAX)
		return ns_r_formerr;
	for (int i = 0; i < ns_msg_count(*h, ns_s_ar); i++) {
		if (ns_parserr(h, ns_s_ar, i, &rr) < 0)
			return -EINVAL;
		if (ns_rr_type(rr) != ns_t_opt)
			continue;
		if (q->edns || rr.name[0] != '\0') {
			q->edns = false; /* a FORMERR goes without one */
			return ns_r_formerr;
		}
		q->edns = true;
		q->edns_size = (uint16_t)ns_rr_class(rr);
		if (q->edns_size < DNSMSG_MAX)
			q->edns_size = DNSMSG_MAX;
		if (q->edns_size > DNSMSG_EDNS_MAX)
			q->edns_size = DNSMSG_EDNS_MAX;
		q->edns_do = (ns_rr_ttl(rr) & NS_OPT_DNSSEC_OK) != 0;
		if ((ns_rr_ttl(rr) >> 16 & 0xff) != 0)
			rcode = ns_r_badvers;
	}
	return rcode;
}

static bool is_name_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* @wire's length, terminator included (ns_name_unpack() made it: at
 * most NS_MAXCDNAME bytes, each label under 64); *@ok when each of its
 * bytes is a name's. */
static size_t wire_len(const uint8_t *wire, bool *ok)
{
	size_t i = 0;

	*ok = true;
	while (i < NS_MAXCDNAME && wire[i] != 0) {
		size_t n = wire[i];

		if (n > 63 || n >= NS_MAXCDNAME - i - 1) {
			*ok = false;
			return 0;
		}
		for (size_t j = i + 1; j <= i + n; j++)
			if (!is_name_byte(wire[j]))
				*ok = false;
		i += 1 + n;
	}
	if (i >= NS_MAXCDNAME) {
		*ok = false;
		return 0;
	}
	return i + 1;
}

/* The question: its type and class, its name as sent and, when that is
 * a host's, lower case into q->name (at most 253 bytes: the wire form
 * has at most 255). */
static int question_parse(ns_msg *h, const uint8_t *msg, size_t len,
			  struct dns_query *q)
{
	ns_rr rr;
	bool ok;

	if (ns_parserr(h, ns_s_qd, 0, &rr) < 0)
		return -EINVAL;
	if (ns_name_unpack(msg, msg + len, msg + NS_HFIXEDSZ, q->qname,
			   sizeof(q->qname)) < 0)
		return -EINVAL;
	q->qname_len = wire_len(q->qname, &ok);
	if (q->qname_len == 0)
		return -EINVAL;
	q->qtype = (uint16_t)ns_rr_type(rr);
	q->qclass = (uint16_t)ns_rr_class(rr);
	if (!ok)
		return refuse(q, ns_r_nxdomain);
	if (q->qclass != ns_c_in)
		return refuse(q, ns_r_refused);
	if (ns_name_ntop(q->qname, q->name, sizeof(q->name)) < 0)
		return -EINVAL;
	if (strcmp(q->name, ".") == 0)
		q->name[0] = '\0';
	for (char *p = q->name; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return 0;
}

int dnsmsg_parse(const uint8_t *msg, size_t len, struct dns_query *q)
{
	ns_msg h;
	int ret;

	memset(q, 0, sizeof(*q));
	q->edns_size = DNSMSG_MAX;
	if (len < NS_HFIXEDSZ || len > DNSMSG_TCP_MAX ||
	    ns_initparse(msg, (int)len, &h) < 0)
		return -EINVAL;
	if (ns_msg_getflag(h, ns_f_qr))
		return -EINVAL; /* never answer an answer: two would loop */
	q->id = ns_msg_id(h);
	q->opcode = (uint8_t)ns_msg_getflag(h, ns_f_opcode);
	q->rd = ns_msg_getflag(h, ns_f_rd) != 0;
	ret = edns_parse(&h, q);
	if (ret < 0)
		return ret;
	if (ret > 0)
		return refuse(q, ret);
	if (q->opcode != ns_o_query)
		return refuse(q, ns_r_notimpl);
	if (ns_msg_count(h, ns_s_qd) != 1)
		return refuse(q, ns_r_formerr);
	return question_parse(&h, msg, len, q);
}

size_t dnsmsg_limit(const struct dns_query *q, bool tcp)
{
	if (tcp)
		return DNSMSG_TCP_MAX;
	return q->edns ? q->edns_size : DNSMSG_MAX;
}

/* An answer being written. */
struct answer {
	uint8_t *out;
	size_t end; /* where the records must end: the OPT's room kept */
	size_t len;
	unsigned int ancount;
	bool tc;
	const uint8_t *dnptrs[8]; /* ns_name_pack()'s: the question's */
};

/* Room checked, the question written (its name through ns_name_pack(),
 * so that the records' owners compress to it). */
static int answer_begin(struct answer *a, const struct dns_query *q, int rcode,
			uint8_t *out, size_t cap)
{
	size_t opt = q->edns ? OPT_LEN : 0, need = NS_HFIXEDSZ + opt;
	uint8_t *p;
	int n;

	if (rcode < 0 || rcode > 0xfff || (rcode > 0xf && !q->edns) ||
	    q->qname_len > sizeof(q->qname))
		return -EINVAL;
	if (q->qname_len)
		need += q->qname_len + NS_QFIXEDSZ;
	if (cap > DNSMSG_TCP_MAX)
		cap = DNSMSG_TCP_MAX;
	if (cap < need)
		return -ENOSPC;
	memset(a, 0, sizeof(*a));
	a->out = out;
	a->end = cap - opt;
	a->len = NS_HFIXEDSZ;
	a->dnptrs[0] = out;
	if (!q->qname_len)
		return 0;
	n = ns_name_pack(q->qname, out + a->len,
			 (int)(a->end - a->len - NS_QFIXEDSZ), a->dnptrs,
			 a->dnptrs + sizeof(a->dnptrs) / sizeof(a->dnptrs[0]));
	if (n < 0)
		return -EINVAL; /* not a name: @q was not dnsmsg_parse()'s */
	p = out + a->len + n;
	NS_PUT16(q->qtype, p);
	NS_PUT16(q->qclass, p);
	a->len = (size_t)(p - out);
	return 0;
}

/* One record owned by the question's name, or TC when it does not fit
 * (and none after it). */
static void answer_rr(struct answer *a, const struct dns_query *q,
		      uint16_t type, uint32_t ttl, const void *rdata,
		      size_t rdlen)
{
	uint8_t *p = a->out + a->len;
	int n;

	if (a->tc)
		return;
	n = ns_name_pack(q->qname, p, (int)(a->end - a->len), a->dnptrs,
			 a->dnptrs + sizeof(a->dnptrs) / sizeof(a->dnptrs[0]));
	if (n < 0 || a->end - a->len - (size_t)n < NS_RRFIXEDSZ + rdlen) {
		a->tc = true;
		return;
	}
	p += n;
	NS_PUT16(type, p);
	NS_PUT16(ns_c_in, p);
	NS_PUT32(ttl > TTL_MAX ? TTL_MAX : ttl, p);
	NS_PUT16(rdlen, p);
	memcpy(p, rdata, rdlen);
	a->len = (size_t)(p - a->out) + rdlen;
	a->ancount++;
}

/* The header, and the OPT in the room kept for it. */
static long answer_end(struct answer *a, const struct dns_query *q, int rcode)
{
	unsigned int flags = FLAG_QR | FLAG_RA | (unsigned int)(rcode & 0xf) |
			     (unsigned int)(q->opcode & 0xf) << OPCODE_SHIFT;
	uint8_t *p = a->out;

	if (q->rd)
		flags |= FLAG_RD;
	if (a->tc)
		flags |= FLAG_TC;
	NS_PUT16(q->id, p);
	NS_PUT16(flags, p);
	NS_PUT16(q->qname_len ? 1 : 0, p);
	NS_PUT16(a->ancount, p);
	NS_PUT16(0, p);
	NS_PUT16(q->edns ? 1 : 0, p);
	if (!q->edns)
		return (long)a->len;
	p = a->out + a->len;
	*p++ = 0;
	NS_PUT16(ns_t_opt, p);
	NS_PUT16(DNSMSG_EDNS_SIZE, p);
	NS_PUT32((uint32_t)(rcode >> 4) << 24 |
			 (q->edns_do ? NS_OPT_DNSSEC_OK : 0),
		 p);
	NS_PUT16(0, p);
	return (long)(a->len + OPT_LEN);
}

long dnsmsg_answer(const struct dns_query *q, int rcode,
		   const struct sockaddr_storage *addrs, size_t naddrs,
		   uint32_t ttl, uint8_t *out, size_t cap)
{
	struct answer a;
	int ret = answer_begin(&a, q, rcode, out, cap);

	if (ret)
		return ret;
	if (rcode != ns_r_noerror || !q->qname_len)
		naddrs = 0;
	for (size_t i = 0; i < naddrs && !a.tc; i++) {
		const struct sockaddr_in *v4 =
			(const struct sockaddr_in *)&addrs[i];
		const struct sockaddr_in6 *v6 =
			(const struct sockaddr_in6 *)&addrs[i];

		if (addrs[i].ss_family == AF_INET && q->qtype == ns_t_a)
			answer_rr(&a, q, ns_t_a, ttl, &v4->sin_addr,
				  NS_INADDRSZ);
		else if (addrs[i].ss_family == AF_INET6 &&
			 q->qtype == ns_t_aaaa)
			answer_rr(&a, q, ns_t_aaaa, ttl, &v6->sin6_addr,
				  NS_IN6ADDRSZ);
	}
	return answer_end(&a, q, rcode);
}

long dnsmsg_answer_ptr(const struct dns_query *q, const char *name,
		       uint32_t ttl, uint8_t *out, size_t cap)
{
	uint8_t rdata[NS_MAXCDNAME];
	struct answer a;
	int n = dn_comp(name, rdata, sizeof(rdata), NULL, NULL), ret;

	if (n <= 0)
		return -EINVAL;
	ret = answer_begin(&a, q, ns_r_noerror, out, cap);
	if (ret)
		return ret;
	if (q->qname_len && q->qtype == ns_t_ptr)
		answer_rr(&a, q, ns_t_ptr, ttl, rdata, (size_t)n);
	return answer_end(&a, q, ns_r_noerror);
}

long dnsmsg_error(const uint8_t *msg, size_t len, int rcode, uint8_t *out,
		  size_t cap)
{
	struct dns_query q;
	unsigned int flags;

	if (len < NS_HFIXEDSZ)
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	NS_GET16(q.id, msg);
	NS_GET16(flags, msg);
	if (flags & FLAG_QR)
		return -EINVAL;
	q.opcode = (uint8_t)(flags >> OPCODE_SHIFT & 0xf);
	q.rd = (flags & FLAG_RD) != 0;
	return dnsmsg_answer(&q, rcode, NULL, 0, 0, out, cap);
}

/* "d.c.b.a" (@len bytes at @s) as the IPv4 address a.b.c.d. */
static bool reverse_v4(const char *s, size_t len, struct in_addr *addr)
{
	const char *label[4];
	size_t llen[4], n = 0, start = 0;
	char text[INET_ADDRSTRLEN];

	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (n == 4 || i - start == 0 || i - start > 3)
			return false;
		label[n] = s + start;
		llen[n++] = i - start;
		start = i + 1;
	}
	if (n != 4)
		return false;
	for (size_t i = 0; i < 4; i++)
		for (size_t j = 0; j < llen[i]; j++)
			if (label[i][j] < '0' || label[i][j] > '9')
				return false;
	snprintf(text, sizeof(text), "%.*s.%.*s.%.*s.%.*s", (int)llen[3],
		 label[3], (int)llen[2], label[2], (int)llen[1], label[1],
		 (int)llen[0], label[0]);
	return inet_pton(AF_INET, text, addr) == 1; /* no 01, no 256 */
}

/* 32 nibbles "f.e.d..." (@len bytes at @s), lowest first, as an IPv6
 * address. */
static bool reverse_v6(const char *s, size_t len, struct in6_addr *addr)
{
	char text[INET6_ADDRSTRLEN];
	size_t at = 0;

	if (len != 63)
		return false;
	for (size_t i = 0; i < 32; i++) {
		char c = s[2 * (31 - i)];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
		if (i < 31 && s[2 * i + 1] != '.')
			return false;
		text[at++] = c;
		if (i % 4 == 3 && i < 31)
			text[at++] = ':';
	}
	text[at] = '\0';
	return inet_pton(AF_INET6, text, addr) == 1;
}

static bool has_suffix(const char *s, size_t len, const char *suffix,
		       size_t *rest)
{
	size_t n = strlen(suffix);

	if (len <= n || memcmp(s + len - n, suffix, n) != 0)
		return false;
	*rest = len - n;
	return true;
}

bool dnsmsg_is_reverse(const struct dns_query *q, struct sockaddr_storage *out)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)out;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)out;
	size_t len = strnlen(q->name, sizeof(q->name)), rest;

	memset(out, 0, sizeof(*out));
	if (len == sizeof(q->name))
		return false;
	if (has_suffix(q->name, len, ".in-addr.arpa", &rest) &&
	    reverse_v4(q->name, rest, &v4->sin_addr)) {
		v4->sin_family = AF_INET;
		return true;
	}
	if (has_suffix(q->name, len, ".ip6.arpa", &rest) &&
	    reverse_v6(q->name, rest, &v6->sin6_addr)) {
		v6->sin6_family = AF_INET6;
		return true;
	}
	memset(out, 0, sizeof(*out));
	return false;
}
