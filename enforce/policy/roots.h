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

/* The shell's startup files, relative to $HOME, NULL-ended: readable
 * by default, protected from writing in a writable home. */
extern const char *const roots_dotfiles[];

#endif
