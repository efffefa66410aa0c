/*
 * profile.h - policies kept in JSON files, and the built-in ones.
 */
#ifndef CORDON_PROFILE_H
#define CORDON_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "enforce/cli/cli.h"

/**
 * profile_apply - add the policy of each --profile of @c, in order:
 * roots, ports and variables add up; "mode", "net" and "inherit_env"
 * yield to a flag.  Return: 0, or a negative errno with a one-line
 * message in @err (a missing file, bad JSON, an unknown key).
 */
int profile_apply(struct cli *c, char *err, size_t errlen);

/* Is the --profile @name a file (not a built-in profile's name)? */
bool profile_is_file(const char *name);

#endif
