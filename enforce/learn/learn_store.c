/*
 * learn_store.c - the paths `cordon learn` noted, found by a hash of
 * the path: a build notes thousands, each many times.
 *
 * Bounded: at most LEARN_MAX paths; past that, or when memory runs
 * out, a path is counted as dropped, never an error.  Lives until exit.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/learn/learn_store.h"

#define SLOTS (2 * LEARN_MAX) /* a power of two: at most half full */

static struct learn_need *needs;
static size_t nneeds, cap, dropped;
static uint32_t slots[SLOTS]; /* index + 1; 0: empty */

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The slot of @path: its own, or the empty one where it would go. */
static uint32_t *slot(const char *path)
{
	uint32_t i = hash(path) & (SLOTS - 1);

	while (slots[i] && strcmp(needs[slots[i] - 1].path, path) != 0)
		i = (i + 1) & (SLOTS - 1);
	return &slots[i];
}

struct learn_need *learn_store_find(const char *path)
{
	uint32_t *s = needs ? slot(path) : NULL;

	return s && *s ? &needs[*s - 1] : NULL;
}

static bool grow(void)
{
	size_t n = cap ? 2 * cap : 256;
	struct learn_need *p;

	if (n > LEARN_MAX)
		n = LEARN_MAX;
	p = realloc(needs, n * sizeof(*p));
	if (!p)
		return false;
	needs = p;
	cap = n;
	return true;
}

bool learn_store_add(const char *path, unsigned int rights)
{
	struct learn_need *n = learn_store_find(path);
	uint32_t *s;

	if (n) {
		n->rights |= rights;
		return true;
	}
	if (nneeds == LEARN_MAX || (nneeds == cap && !grow())) {
		dropped++;
		return false;
	}
	n = &needs[nneeds];
	*n = (struct learn_need){ .path = strdup(path), .rights = rights };
	if (!n->path) {
		dropped++;
		return false;
	}
	s = slot(path);
	*s = (uint32_t)++nneeds;
	return true;
}

size_t learn_store_count(void)
{
	return nneeds;
}

struct learn_need *learn_store_at(size_t i)
{
	return &needs[i];
}

size_t learn_store_dropped(void)
{
	return dropped;
}
