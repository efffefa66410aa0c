/*
 * fuzz_snapshot.c - libFuzzer target for snapshot_decode(), the parser of
 * CORDON_POLICY.  The shim reads it from its environment when it loads,
 * and a program exec'd outside the shim's reach (a static binary's
 * child) may hand it any text, so it is untrusted input.
 *
 * Invariants, abort() on violation:
 *  - decoding never reads or writes out of bounds (ASan) and the counts
 *    stay within the policy's arrays;
 *  - what decodes re-encodes, and the encoding decodes to the same
 *    policy, which encodes to the same text again (a fixed point).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/core/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char input[SNAPSHOT_MAX];
static char store1[SNAPSHOT_MAX], store2[SNAPSHOT_MAX];
static char enc1[SNAPSHOT_MAX], enc2[SNAPSHOT_MAX];
static struct policy p1, p2;

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_snapshot: %s\n", what);
	abort();
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
	memset(&p2, 0, sizeof(p2));
	memset(&x2, 0, sizeof(x2));
	if (snapshot_decode(enc1, &p2, &x2, store2, sizeof(store2)) != 0)
		fail("an encoding does not decode");
	n2 = snapshot_encode(&p2, &x2, enc2, sizeof(enc2));
	if (n2 != n1 || memcmp(enc1, enc2, (size_t)n1) != 0)
		fail("encode(decode(encode(p))) differs from encode(p)");
	return 0;
}
