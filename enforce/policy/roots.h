/*
 * roots.h - the policy's roots from the mode, the defaults and the flags.
 */
#ifndef CORDON_ROOTS_H
#define CORDON_ROOTS_H

#include <stddef.h>

#include "enforce/cli/cli.h"
#include "shim/core/path.h"
#include "shim/core/policy.h"

/**
 * roots_build - add to @p the defaults of @c's mode (unless --no-defaults)
 * and every root @c requests, canonicalised.
 * Return: 0, or -errno with "<flag> '<path>': <reason>" in @err.
 */
int roots_build(const struct cli *c, struct policy *p, char *err,
		size_t errlen);

/* Add the system, device, /proc and dotfile defaults to @p. */
int roots_add_system(struct policy *p);

/* Expand a leading "~" or "~/" to the home directory into @out.
 * Return: 0, -ENOENT (no home), -ENAMETOOLONG. */
int roots_expand(const char *path, char out[PATH_BUF]);

/* cordon's state directory (the audit log's), not made here:
 * $XDG_STATE_HOME/cordon or ~/.local/state/cordon.
 * Return: 0, -ENOENT (no home), -ENAMETOOLONG. */
int roots_state_dir(char out[PATH_BUF]);

/* The shell's startup files, relative to $HOME, NULL-ended: readable
 * by default, protected from writing in a writable home. */
extern const char *const roots_dotfiles[];

/* $HOME when absolute, else the password database's; NULL if neither. */
const char *roots_home(void);

#endif
