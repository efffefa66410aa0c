/*
 * world.h - the command's world: a root holding only the policy's roots.
 */
#ifndef CORDON_WORLD_H
#define CORDON_WORLD_H

#include "shim/core/policy.h"

/**
 * world_enter - in a new, private mount namespace, make the root a tmpfs
 * holding only the roots of @p (bound at their own paths), @keep (the
 * report socket, or NULL), the directory @cwd and a /proc of the PID
 * namespace, and enter it.
 * Return: 0, or -1 with errno and what failed in @step.
 */
int world_enter(const struct policy *p, const char *keep, const char *cwd,
		const char **step);

#endif
