/*
 * world.h - the command's world: a root holding only the policy's roots.
 */
#ifndef CORDON_WORLD_H
#define CORDON_WORLD_H

#include <stdbool.h>

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

/**
 * world_stands_in - does the world hold only the policy's roots, with
 * stand-ins for the host's other names?  Where Landlock is absent.
 * Where it holds the reads, the host's tree stays: names and stat as
 * bare (Landlock checks no stat), so that the shim finds how far a
 * refused path exists and names the narrowest grant.
 */
bool world_stands_in(void);

#endif
