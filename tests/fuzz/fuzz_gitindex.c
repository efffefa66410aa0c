/*
 * fuzz_gitindex.c - libFuzzer target for gitindex_gitlinks(): the input
 * is a git index file, which the command may have written (gitsweep.c
 * reads it after the run), so it is untrusted.
 *
 * Invariants, abort() on violation: no read past the buffer (ASan: the
 * input is copied to an exact-size allocation); every path reported is
 * NUL-terminated within GITINDEX_NAME_MAX; the count returned matches
 * the calls made, or is -1.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/policy/gitindex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void seen(const char *path, void *arg)
{
	if (strnlen(path, GITINDEX_NAME_MAX + 1) > GITINDEX_NAME_MAX)
		abort();
	++*(int *)arg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	int calls = 0, ret;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	for (size_t hash = 20; hash <= 32; hash += 12) {
		calls = 0;
		ret = gitindex_gitlinks(buf, size, hash, seen, &calls);
		if (ret >= 0 && ret != calls)
			abort();
	}
	free(buf);
	return 0;
}
