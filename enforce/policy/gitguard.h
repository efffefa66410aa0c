/*
 * gitguard.h - git's files that make git outside the sandbox run a
 * program, in every repository the command may write.
 */
#ifndef CORDON_GITGUARD_H
#define CORDON_GITGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "shim/core/path.h"
#include "shim/core/policy.h"

/**
 * gitguard_find - find the repositories in @p's writable roots and
 * protect what git would run or read configuration from in each
 * (gitguard.c lists it): existing files become protected roots (the
 * mounts make them read-only), absent ones protected roots the shim
 * refuses to make, and are remembered for gitguard_sweep().
 * Return: 0, -ENOMEM or -E2BIG.
 */
int gitguard_find(struct policy *p);

/* How many git directories gitguard_find() protected, and whether it
 * stopped at its limit (then the rest are not protected). */
size_t gitguard_count(bool *truncated);

#define GITGUARD_MAX 64 /* git directories protected, at most */

/* A git directory gitguard_find() protected (for the sweep). */
struct gitguard_dir {
	const char *dir;      /* canonical */
	const char *worktree; /* its working tree, or NULL */
	unsigned int absent;  /* bit i: class i was not there at the start */
};

/* The git directories found, and the .git paths that would shadow a
 * repository above a writable root (absent at the start); the time the
 * search began (a file changed since then was changed during the run). */
size_t gitguard_dirs(struct gitguard_dir *out, size_t max);
size_t gitguard_hijacks(const char **out, size_t max);
const struct timespec *gitguard_started(void);

/* What gitguard_sweep() found and did, once per path. */
struct gitguard_event {
	const char *path;  /* what the command made or changed */
	const char *moved; /* where it was moved, or NULL if it failed */
	const char *why;   /* what git would do with it */
	const char *allow; /* the --write that lifts it at the next run */
	int err;	   /* the errno of the move when it failed */
};

/**
 * gitguard_sweep - once the command and everything it started have
 * ended: every file gitguard_find() protected while it was absent that
 * now exists, and every repository added during the run where
 * `git status` outside would enter it (a gitlink in the index of a
 * protected repository), is moved aside (PATH.cordon-PID), and @fn
 * told, unless a --write of @p names it (or a path below it).  Nothing
 * runs inside any more: no race.
 * Return: the number of paths moved aside or that could not be.
 */
size_t gitguard_sweep(const struct policy *p,
		      void (*fn)(const struct gitguard_event *e, void *arg),
		      void *arg);

#endif
