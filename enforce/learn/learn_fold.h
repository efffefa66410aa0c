/*
 * learn_fold.h - where `cordon learn` puts the grant for a path the run
 * needed, and how the profile writes it (learn_fold.c).
 */
#ifndef CORDON_LEARN_FOLD_H
#define CORDON_LEARN_FOLD_H

#include <stdbool.h>
#include <time.h>

#include "shim/core/path.h"

/* What the fold needs to know of the run. */
struct learn_run {
	const char *home;      /* $HOME, or NULL */
	char cwd[PATH_BUF];    /* the workspace, resolved; "" if unknown */
	char tmp[PATH_BUF];    /* $TMPDIR or /tmp, resolved; "" if none */
	struct timespec start; /* when the run began: learn_fold_mark() */
};

enum learn_grant {
	GRANT_ROOT,   /* a root that existed before the run */
	GRANT_CREATE, /* a directory the run made: the profile makes it */
	GRANT_NONE,   /* nothing that can be granted short of / or $HOME */
};

/**
 * learn_fold - the grant for @rights at @path (resolved, absolute), in
 * @out: a cache's files into the cache, what was made, replaced or
 * removed into its directory, a program into its directory, what was
 * read as the path itself; then, when that did not exist before the
 * run, the nearest ancestor that did (never / nor $HOME: the directory
 * is then to be made, GRANT_CREATE).
 */
enum learn_grant learn_fold(const struct learn_run *run, const char *path,
			    unsigned int rights, char out[PATH_BUF]);

/**
 * learn_token - @path as the profile writes it, in @out: "." or "./x"
 * inside the workspace, "$TMPDIR" or "$TMPDIR/x" inside the temp
 * directory, "~" or "~/x" inside $HOME, else the path itself; so that
 * the profile moves with the workspace and the home.
 */
void learn_token(const struct learn_run *run, const char *path,
		 char out[PATH_BUF]);

/**
 * learn_fold_mark - the moment the run begins, in @start, as birth times
 * are compared with it: every file made before has a birth time at or
 * before it, every file made after one later.  Waits for the file
 * systems' clock to pass it (a tick: a few milliseconds).
 */
void learn_fold_mark(struct timespec *start);

/* Is @path a directory (following a link)? */
bool learn_is_dir(const char *path);

#endif
