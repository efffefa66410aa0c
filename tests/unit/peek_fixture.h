/*
 * peek_fixture.h - for test_peek*.c: peek_classify() as a value, and the
 * asserts on its result.
 */
#ifndef CORDON_PEEK_FIXTURE_H
#define CORDON_PEEK_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "enforce/proxy/peek.h"

#define BIG (2 * PEEK_MAX)

static struct peek_result classify(const void *buf, size_t len)
{
	struct peek_result r;

	peek_classify(buf, len, &r);
	return r;
}

static enum peek_kind kind_of(const void *buf, size_t len)
{
	return classify(buf, len).kind;
}

static void assert_name(struct peek_result r, enum peek_kind kind,
			const char *host, uint16_t port)
{
	cr_assert_eq(r.kind, kind, "kind %d, not %d", r.kind, kind);
	cr_assert(r.has_name, "no name, not %s", host);
	cr_assert_str_eq(r.target.host, host);
	cr_assert_eq(r.target.port, port);
}

static void assert_no_name(struct peek_result r, enum peek_kind kind)
{
	cr_assert_eq(r.kind, kind, "kind %d, not %d", r.kind, kind);
	cr_assert(!r.has_name);
	cr_assert_eq(r.target.host[0], '\0');
}

#endif
