/*
 * fuzz_peek.c - libFuzzer target for what the transparent egress proxy
 * reads from a captured connection's first bytes (enforce/proxy/peek.c).
 *
 * The input is those bytes.  Whatever they are, the kind is one of the
 * four; a name comes only with PEEK_TLS or PEEK_HTTP and is a NUL-ended
 * host of the allowed bytes, in lower case (an IP literal only from
 * HTTP, port 0 from TLS); without a name the target is all zero.  And a
 * verdict rests on the bytes before it: every prefix is PEEK_MORE or
 * has the very result of the whole (all of them when short, a spread
 * of them otherwise: all would be quadratic).
 */
#include <stdlib.h>
#include <string.h>

#include "enforce/proxy/peek.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ALL_PREFIXES  512 /* inputs this short: every prefix */
#define SOME_PREFIXES 64  /* longer ones: this many, and the last few */

static void check_name(const struct peek_result *r)
{
	static const struct proxy_target zero;
	const struct proxy_target *t = &r->target;
	size_t len = strnlen(t->host, sizeof(t->host));

	if (!r->has_name) {
		if (memcmp(t, &zero, sizeof(zero)))
			abort();
		return;
	}
	if (r->kind != PEEK_TLS && r->kind != PEEK_HTTP)
		abort();
	if (len == 0 || len >= sizeof(t->host))
		abort();
	if (strspn(t->host, "abcdefghijklmnopqrstuvwxyz0123456789-_.:") != len)
		abort();
	if (!t->is_ip && strchr(t->host, ':'))
		abort();
	if (r->kind == PEEK_TLS && (t->is_ip || t->port))
		abort();
	if (t->is_ip && t->addr.ss_family != AF_INET &&
	    t->addr.ss_family != AF_INET6)
		abort();
}

static void check(const struct peek_result *r)
{
	if (r->kind != PEEK_MORE && r->kind != PEEK_TLS &&
	    r->kind != PEEK_HTTP && r->kind != PEEK_OTHER)
		abort();
	check_name(r);
}

static bool is_same(const struct peek_result *a, const struct peek_result *b)
{
	return a->kind == b->kind && a->has_name == b->has_name &&
	       !strcmp(a->target.host, b->target.host) &&
	       a->target.port == b->target.port &&
	       a->target.is_ip == b->target.is_ip;
}

static void prefix(const uint8_t *data, size_t k,
		   const struct peek_result *whole)
{
	struct peek_result r;

	peek_classify(data, k, &r);
	check(&r);
	if (r.kind != PEEK_MORE && !is_same(&r, whole))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct peek_result whole;

	peek_classify(data, size, &whole);
	check(&whole);
	if (size <= ALL_PREFIXES) {
		for (size_t k = 0; k < size; k++)
			prefix(data, k, &whole);
		return 0;
	}
	/* spread by the bytes themselves, so that mutations move them */
	for (size_t i = 0, k = 0; i < SOME_PREFIXES; i++) {
		k = (k * 31 + data[k] + i * 2654435761u) % size;
		prefix(data, k, &whole);
	}
	for (size_t k = size - 8; k < size; k++)
		prefix(data, k, &whole);
	return 0;
}
