/*
 * fuzz_snapshot.c - libFuzzer target for snapshot_decode(), the parser of
 * CORDON_POLICY.  The shim reads it from its environment when it loads,
 * and a program exec'd outside the shim's reach (a static binary's
 * child) may hand it any text, so it is untrusted input.
 *
 * Invariants, abort() on violation:
 *  - decoding never reads or writes out of bounds (ASan) and the counts
 *    stay within the policy's arrays;
 *  - the decoder takes only what the encoder writes: what decodes
 *    encodes back to the very same text;
 *  - decode -> encode -> decode gives the same policy;
 *  - the strings need exactly the store they were decoded into: one
 *    byte less is -ENAMETOOLONG, and nothing is written past it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/core/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char input[SNAPSHOT_MAX];
static char store1[SNAPSHOT_MAX], store2[SNAPSHOT_MAX];
static char enc1[SNAPSHOT_MAX], enc2[SNAPSHOT_MAX];
static struct policy p1, p2, p3;

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_snapshot: %s\n", what);
	abort();
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_policy(const struct policy *a, const struct snapshot_extra *xa,
			const struct policy *b, const struct snapshot_extra *xb)
{
	if (a->nroots != b->nroots || a->net != b->net ||
	    a->nconnect != b->nconnect || a->nbind != b->nbind ||
	    a->env != b->env || a->nenv_names != b->nenv_names ||
	    a->quiet != b->quiet || !same_str(xa->log, xb->log) ||
	    xa->standalone != xb->standalone || xa->learn != xb->learn ||
	    memcmp(a->connect_ports, b->connect_ports,
		   a->nconnect * sizeof(a->connect_ports[0])) ||
	    memcmp(a->bind_ports, b->bind_ports,
		   a->nbind * sizeof(a->bind_ports[0])))
		return false;
	for (size_t i = 0; i < a->nenv_names; i++)
		if (!same_str(a->env_names[i], b->env_names[i]))
			return false;
	for (size_t i = 0; i < a->nroots; i++)
		if (!same_str(a->roots[i].path, b->roots[i].path) ||
		    a->roots[i].rights != b->roots[i].rights ||
		    a->roots[i].origin != b->roots[i].origin ||
		    a->roots[i].is_dir != b->roots[i].is_dir)
			return false;
	return true;
}

/* The bytes of store the decoded strings take, NULs included. */
static size_t store_used(const struct policy *p, const struct snapshot_extra *x)
{
	size_t n = x->log ? strlen(x->log) + 1 : 0;

	for (size_t i = 0; i < p->nenv_names; i++)
		n += strlen(p->env_names[i]) + 1;
	for (size_t i = 0; i < p->nroots; i++)
		n += strlen(p->roots[i].path) + 1;
	return n;
}

/* Decoding into a store of exactly @need bytes works; one byte less is
 * -ENAMETOOLONG.  Heap stores of those sizes: ASan sees any overrun. */
static void exact_store(size_t need)
{
	struct snapshot_extra x;
	char *s = malloc(need ? need : 1);

	if (!s)
		return;
	if (snapshot_decode(input, &p3, &x, s, need) != 0)
		fail("the store the strings need is not enough");
	if (need &&
	    snapshot_decode(input, &p3, &x, s, need - 1) != -ENAMETOOLONG)
		fail("a store one byte short is not -ENAMETOOLONG");
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snapshot_extra x1, x2;
	int n1, n2;

	if (size >= sizeof(input))
		return 0;
	memcpy(input, data, size);
	input[size] = '\0';
	memset(&p1, 0, sizeof(p1));
	memset(&x1, 0, sizeof(x1));
	if (snapshot_decode(input, &p1, &x1, store1, sizeof(store1)) != 0)
		return 0;
	if (p1.nroots > POLICY_MAX_ROOTS || p1.nconnect > POLICY_MAX_PORTS ||
	    p1.nbind > POLICY_MAX_PORTS || p1.nenv_names > POLICY_MAX_ENV)
		fail("a count beyond its array");
	n1 = snapshot_encode(&p1, &x1, enc1, sizeof(enc1));
	if (n1 < 0)
		fail("a decoded policy does not encode");
	if ((size_t)n1 != strlen(input) || memcmp(enc1, input, (size_t)n1))
		fail("decoded what the encoder would not write: "
		     "encode(decode(v)) differs from v");
	memset(&p2, 0, sizeof(p2));
	memset(&x2, 0, sizeof(x2));
	if (snapshot_decode(enc1, &p2, &x2, store2, sizeof(store2)) != 0)
		fail("an encoding does not decode");
	if (!same_policy(&p1, &x1, &p2, &x2))
		fail("decode(encode(decode(v))) differs from decode(v)");
	n2 = snapshot_encode(&p2, &x2, enc2, sizeof(enc2));
	if (n2 != n1 || memcmp(enc1, enc2, (size_t)n1) != 0)
		fail("encode(decode(encode(p))) differs from encode(p)");
	exact_store(store_used(&p1, &x1));
	return 0;
}
