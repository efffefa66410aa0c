/*
 * fuzz_dnsmsg.c - libFuzzer target for the resolver's DNS messages
 * (enforce/proxy/dnsmsg.c).
 *
 * The input is a query.  Whatever it is, dnsmsg_parse() returns one of
 * its documented values; a name it gives is lower case, of the allowed
 * bytes, at most 253 long.  Each query it reads is then answered with
 * addresses of both families, a PTR and the header-only error, into
 * buffers of several sizes: each answer fits its buffer, parses back
 * with ns_initparse(), has the query's id and question (the name
 * byte for byte, as sent), records of the asked type owned by it, and
 * is never taken for a query.
 */
#include <errno.h>
#include <resolv.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/proxy/dnsmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NADDRS 40

static struct sockaddr_storage addrs[NADDRS];
static uint8_t out[DNSMSG_TCP_MAX];

static void addrs_init(void)
{
	for (int i = 0; i < NADDRS; i++) {
		struct sockaddr_in *v4 = (struct sockaddr_in *)&addrs[i];
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addrs[i];

		if (i % 3 == 0) {
			v4->sin_family = AF_INET;
			v4->sin_addr.s_addr = htonl(0xc0000200U + (unsigned)i);
		} else if (i % 3 == 1) {
			v6->sin6_family = AF_INET6;
			v6->sin6_addr.s6_addr[0] = 0x20;
			v6->sin6_addr.s6_addr[15] = (uint8_t)i;
		} else {
			addrs[i].ss_family = AF_UNIX; /* skipped */
		}
	}
}

static void check_name(const struct dns_query *q)
{
	size_t len = strnlen(q->name, sizeof(q->name));

	if (len > 253)
		abort();
	if (strspn(q->name, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != len)
		abort();
	if (q->qname_len == 0 || q->qname_len > NS_MAXCDNAME)
		abort();
}

/* @n bytes at @buf, an answer to @q in at most @cap bytes. */
static void check_answer(const struct dns_query *q, const uint8_t *buf, long n,
			 size_t cap)
{
	struct dns_query again;
	ns_msg h;
	ns_rr rr;

	if (n <= 0 || (size_t)n > cap || ns_initparse(buf, (int)n, &h) < 0)
		abort();
	if (ns_msg_id(h) != q->id || !ns_msg_getflag(h, ns_f_qr) ||
	    ns_msg_getflag(h, ns_f_opcode) != q->opcode ||
	    ns_msg_getflag(h, ns_f_rd) != q->rd)
		abort();
	if (ns_msg_count(h, ns_s_qd) != (q->qname_len ? 1 : 0) ||
	    ns_msg_count(h, ns_s_ar) != (q->edns ? 1 : 0))
		abort();
	if (q->qname_len) {
		if (memcmp(buf + NS_HFIXEDSZ, q->qname, q->qname_len) ||
		    ns_parserr(&h, ns_s_qd, 0, &rr) < 0 ||
		    ns_rr_type(rr) != q->qtype || ns_rr_class(rr) != q->qclass)
			abort();
	}
	for (int i = 0; i < ns_msg_count(h, ns_s_an); i++) {
		/* a pointer to the question; the root is its one byte */
		size_t olen = q->qname_len == 1 ? 1 : 2;
		uint8_t owner[NS_MAXCDNAME];

		if (ns_parserr(&h, ns_s_an, i, &rr) < 0 ||
		    ns_rr_type(rr) != q->qtype ||
		    ns_name_unpack(buf, buf + n, rr.rdata - NS_RRFIXEDSZ - olen,
				   owner, sizeof(owner)) < 0 ||
		    memcmp(owner, q->qname, q->qname_len))
			abort();
	}
	if (dnsmsg_parse(buf, (size_t)n, &again) != -EINVAL)
		abort(); /* an answer (QR) is never answered */
}

static void answer(const struct dns_query *q, int rcode)
{
	const size_t caps[] = { 0,   12,   40,	 100,	     300,
				512, 1232, 4096, sizeof(out) };
	size_t need = NS_HFIXEDSZ + (q->edns ? 11 : 0) +
		      (q->qname_len ? q->qname_len + NS_QFIXEDSZ : 0);

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		long n = dnsmsg_answer(q, rcode, addrs, NADDRS, 60, out,
				       caps[i]);

		if (n == -ENOSPC && caps[i] < need)
			continue;
		check_answer(q, out, n, caps[i]);
		if (rcode != ns_r_noerror)
			continue;
		n = dnsmsg_answer_ptr(q, "host.example", 60, out, caps[i]);
		if (n == -ENOSPC && caps[i] < need)
			continue;
		check_answer(q, out, n, caps[i]);
	}
	if (rcode == ns_r_noerror)
		check_answer(q, out,
			     dnsmsg_answer(q, rcode, addrs, NADDRS, 60, out,
					   dnsmsg_limit(q, false)),
			     dnsmsg_limit(q, false));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_storage ss;
	struct dns_query q;
	int ret;
	long n;

	if (addrs[0].ss_family == 0)
		addrs_init();
	ret = dnsmsg_parse(data, size, &q);
	if (ret == 0) {
		check_name(&q);
		if (dnsmsg_is_reverse(&q, &ss) && ss.ss_family != AF_INET &&
		    ss.ss_family != AF_INET6)
			abort();
		answer(&q, ns_r_noerror);
		answer(&q, ns_r_nxdomain);
	} else if (ret == -EOPNOTSUPP) {
		if (q.rcode != ns_r_formerr && q.rcode != ns_r_badvers &&
		    q.rcode != ns_r_notimpl && q.rcode != ns_r_nxdomain &&
		    q.rcode != ns_r_refused)
			abort();
		if (q.name[0] != '\0')
			abort();
		answer(&q, q.rcode);
	} else if (ret != -EINVAL) {
		abort();
	}
	n = dnsmsg_error(data, size, ns_r_servfail, out, sizeof(out));
	if (n != -EINVAL && n != NS_HFIXEDSZ)
		abort();
	if (n == NS_HFIXEDSZ && (ret == 0 || ret == -EOPNOTSUPP) &&
	    (out[0] << 8 | out[1]) != q.id)
		abort();
	return 0;
}
