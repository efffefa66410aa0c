/*
 * snapshot_fixture.h - the policies, the buffers and the checks the
 * snapshot tests share (see test_snapshot.c).  Included by
 * test_snapshot.c and test_snapshot_strict.c.
 */
#ifndef CORDON_TEST_SNAPSHOT_FIXTURE_H
#define CORDON_TEST_SNAPSHOT_FIXTURE_H

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "enforce/policy/policy.h"
#include "shim/core/snapshot.h"
#include "shim/core/strbuf.h"

static struct policy in, got;
static struct snapshot_extra xin, xgot;
static char value[SNAPSHOT_MAX], store[SNAPSHOT_MAX];

static void fini(void)
{
	policy_free(&in);
	memset(&in, 0, sizeof(in));
}

TestSuite(snapshot, .fini = fini);

static void add(const char *path, unsigned int rights, enum root_origin o,
		bool dir)
{
	cr_assert_eq(policy_add_root(&in, path, rights, o, dir), 0, "%s", path);
}

static int decode(const char *v)
{
	return snapshot_decode(v, &got, &xgot, store, sizeof(store));
}

/* What was decoded from @v encodes back to @v itself: the decoder takes
 * only the encoder's own text. */
static void same_text(const char *v)
{
	static char again[SNAPSHOT_MAX];
	int n = snapshot_encode(&got, &xgot, again, sizeof(again));

	cr_assert_gt(n, 0, "re-encode: %d", n);
	cr_assert_str_eq(again, v);
}

/* The value the encoder writes for an empty policy, then @tail. */
#define EMPTY "v=1|net=0|con=|bnd=|env=0|names=|q=0"

#endif
