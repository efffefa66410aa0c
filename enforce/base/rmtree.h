/*
 * rmtree.h - remove a directory tree outside the sandbox, on the
 * command's behalf, through descriptors only (rmtree.c): what cordon
 * removes (the ci temp dirs, the probe's fixture) may have been written
 * by a sandboxed process, which would swap a directory for a symbolic
 * link to make the launcher delete a file outside every root.
 */
#ifndef CORDON_RMTREE_H
#define CORDON_RMTREE_H

#include <stddef.h>

/* Directories deeper than this below the top are left (and counted). */
#define RMTREE_DEPTH_MAX (1u << 20)

/* What rmtree_at() could not remove. */
struct rmtree_left {
	size_t n;	/* entries left, directories holding them included */
	int err;	/* the first one's reason (an errno) */
	char name[256]; /* the first one's name (its last component) */
};

/**
 * rmtree_at - remove @name in @dirfd and everything below it, as
 * `rm -rf` would for its owner (a directory of the caller's that it
 * may not write or search is made u+rwx first): each directory opened
 * O_NOFOLLOW from its parent's descriptor and checked to be the one
 * fstatat() saw, every entry unlinked relative to its directory, no
 * symbolic link followed at any depth, no other filesystem entered
 * (st_dev), no path rebuilt from names.  A directory moved away during
 * the walk is left where it went.  Depth is bounded by the heap
 * (RMTREE_DEPTH_MAX levels), never by the stack.
 * Return: 0 when nothing is left (or @name was not there); otherwise
 * -errno of the first entry left, with what was left in *@left (which
 * may be NULL).
 */
int rmtree_at(int dirfd, const char *name, struct rmtree_left *left);

#endif
