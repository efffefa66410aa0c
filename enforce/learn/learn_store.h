/*
 * learn_store.h - what `cordon learn` noted: one entry per path, with
 * the rights the run needed there (learn_store.c).
 */
#ifndef CORDON_LEARN_STORE_H
#define CORDON_LEARN_STORE_H

#include <stdbool.h>
#include <stddef.h>

#define LEARN_MAX 65536 /* paths kept; past this, counted */

struct learn_need {
	char *path;	     /* resolved, absolute */
	unsigned int rights; /* RIGHT_*; 0: only seen */
	bool leads;	     /* on the way to a path with rights */
	int grant;	     /* enum learn_grant, or -1: none needed */
	char *where;	     /* the grant's path, once folded */
};

/* Add @rights at @path (merged with what it holds); false when full. */
bool learn_store_add(const char *path, unsigned int rights);

/* The entry for @path, or NULL. */
struct learn_need *learn_store_find(const char *path);

/* The entries, in the order first noted. */
size_t learn_store_count(void);
struct learn_need *learn_store_at(size_t i);

/* How many paths were not kept (the store was full). */
size_t learn_store_dropped(void);

#endif
