/*
 * learn_check.h - what `cordon learn` takes from the records of a run,
 * checked before it reaches the profile (learn_check.c): every record
 * is the command's to forge.
 */
#ifndef CORDON_LEARN_CHECK_H
#define CORDON_LEARN_CHECK_H

#include <stdbool.h>

#include "shim/core/path.h"

/* What no learned grant may reach without --allow-broad. */
struct learn_guard {
	char home[PATH_BUF];	/* $HOME, resolved; "" if none */
	char state[PATH_BUF];	/* cordon's state directory; "" if none */
	char profile[PATH_BUF]; /* the profile being written; "" if none */
	char self[PATH_BUF];	/* cordon's own executable; "" if unknown */
};

/**
 * learn_guard_init - fill @g for a run whose home is @home (NULL: none)
 * that writes the profile @profile (NULL: none); each path resolved as
 * the kernel would, its missing tail lexically.
 */
void learn_guard_init(struct learn_guard *g, const char *home,
		      const char *profile);

/**
 * learn_path_clean - a path from a record, as learn may keep it, in
 * @out: absolute, shorter than PATH_BUF, no control character (C0, DEL,
 * C1), lexically normal (path_normalize(): no ".", "..", "//" or
 * trailing slash).  False, @out "", when it cannot be.
 */
bool learn_path_clean(const char *in, char out[PATH_BUF]);

/**
 * learn_grant_risk - why the grant of @path (clean, absolute) must not
 * be written without --allow-broad, or NULL when it may.  Any grant:
 * "/", $HOME or a directory above it.  With @writes (a write or a
 * create) also: cordon's state directory or the profile being written
 * (the path itself, inside it or above it); cordon's executable, a git
 * directory or its hooks, config, config.worktree, commondir, modules
 * or worktrees, a shell startup file of $HOME (itself or inside).  @path is
 * checked as written and as resolved (a symbolic link to "/" is "/" when the
 * profile is loaded).
 */
const char *learn_grant_risk(const struct learn_guard *g, const char *path,
			     bool writes);

/**
 * learn_port_parse - @s, from a record: a decimal port and nothing else,
 * 1..65535 (0 too when @bind: any port), into @port.
 */
bool learn_port_parse(const char *s, bool bind, unsigned int *port);

/**
 * learn_host_ok - @spec, from a record, may be learned into
 * "allow_hosts": an exact --allow-host rule (a name or an IP, with or
 * without a port), never a wildcard.
 */
bool learn_host_ok(const char *spec);

#endif
