/*
 * dnsmsg_fixture.h - for test_dnsmsg*.c: queries made with glibc's
 * res_mkquery() or by hand, an OPT added to one, and the checks of an
 * answer parsed back with ns_initparse()/ns_parserr().
 */
#ifndef CORDON_DNSMSG_FIXTURE_H
#define CORDON_DNSMSG_FIXTURE_H

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <resolv.h>
#include <stdio.h>
#include <string.h>

#include "enforce/proxy/dnsmsg.h"

static inline size_t mkquery_class(const char *name, int class, int type,
				   uint8_t *buf, size_t cap)
{
	int n = res_mkquery(ns_o_query, name, class, type, NULL, 0, NULL, buf,
			    (int)cap);

	cr_assert_gt(n, 0, "res_mkquery %s", name);
	return (size_t)n;
}

static inline size_t mkquery(const char *name, int type, uint8_t *buf,
			     size_t cap)
{
	return mkquery_class(name, ns_c_in, type, buf, cap);
}

/* An OPT record (root, type 41, CLASS @size, TTL @ttl) after the @n
 * bytes at @buf, ARCOUNT raised.  Return: the new length. */
static inline size_t add_opt(uint8_t *buf, size_t n, uint16_t size,
			     uint32_t ttl)
{
	uint8_t *p = buf + n;
	unsigned int ar = (unsigned int)(buf[10] << 8 | buf[11]) + 1;

	*p++ = 0;
	NS_PUT16(ns_t_opt, p);
	NS_PUT16(size, p);
	NS_PUT32(ttl, p);
	NS_PUT16(0, p);
	buf[10] = (uint8_t)(ar >> 8);
	buf[11] = (uint8_t)ar;
	return n + 11;
}

static inline void set16(uint8_t *buf, size_t off, unsigned int v)
{
	buf[off] = (uint8_t)(v >> 8);
	buf[off + 1] = (uint8_t)v;
}

static inline unsigned int get16(const uint8_t *buf, size_t off)
{
	return (unsigned int)(buf[off] << 8 | buf[off + 1]);
}

static inline struct sockaddr_storage addr_of(const char *text)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
	} else {
		cr_assert_eq(inet_pton(AF_INET6, text, &v6->sin6_addr), 1);
		v6->sin6_family = AF_INET6;
	}
	return ss;
}

static inline ns_msg parse_back(const uint8_t *buf, long n)
{
	ns_msg h;

	cr_assert_gt(n, 0, "answer: %ld", n);
	cr_assert_eq(ns_initparse(buf, (int)n, &h), 0, "answer parses back");
	cr_assert(ns_msg_getflag(h, ns_f_qr));
	cr_assert(ns_msg_getflag(h, ns_f_ra));
	cr_assert_eq(ns_msg_getflag(h, ns_f_aa), 0);
	return h;
}

/* The question of answer @h is @name (as sent), @type, IN. */
static inline void check_question(ns_msg *h, const char *name, int type)
{
	ns_rr rr;

	cr_assert_eq(ns_msg_count(*h, ns_s_qd), 1);
	cr_assert_eq(ns_parserr(h, ns_s_qd, 0, &rr), 0);
	cr_assert_str_eq(ns_rr_name(rr), name);
	cr_assert_eq((int)ns_rr_type(rr), type);
	cr_assert_eq(ns_rr_class(rr), ns_c_in);
}

/* Answer record @i: owned by a pointer to the question, @type, IN, @ttl,
 * and its RR. */
static inline ns_rr check_rr(ns_msg *h, const uint8_t *buf, long n, int i,
			     const char *owner, int type, uint32_t ttl)
{
	char name[NS_MAXDNAME];
	ns_rr rr;

	cr_assert_eq(ns_parserr(h, ns_s_an, i, &rr), 0);
	cr_assert_eq((int)ns_rr_type(rr), type);
	cr_assert_eq(ns_rr_class(rr), ns_c_in);
	cr_assert_eq(ns_rr_ttl(rr), ttl);
	/* the owner is two bytes before TYPE..RDLENGTH: the pointer */
	cr_assert_eq(get16(rr.rdata - NS_RRFIXEDSZ - 2, 0), 0xc00c);
	cr_assert_gt(ns_name_uncompress(buf, buf + n,
					rr.rdata - NS_RRFIXEDSZ - 2, name,
					sizeof(name)),
		     0);
	cr_assert_str_eq(name, owner);
	return rr;
}

/* A query whose question's name is @wire (@wlen bytes, as sent). */
static inline size_t raw_query(const uint8_t *wire, size_t wlen, uint8_t *buf)
{
	static const uint8_t head[] = { 0xab, 0xcd, 0x01, 0x00, 0, 1,
					0,    0,    0,	  0,	0, 0 };

	memcpy(buf, head, sizeof(head));
	memcpy(buf + 12, wire, wlen);
	memcpy(buf + 12 + wlen, "\0\1\0\1", 4);
	return 12 + wlen + 4;
}

#endif
