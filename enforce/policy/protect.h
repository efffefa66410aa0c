/*
 * protect.h - protected roots: what a writable (or readable) root holds
 * that the command must not change (or read).
 */
#ifndef CORDON_PROTECT_H
#define CORDON_PROTECT_H

#include <stdbool.h>

#include "shim/core/policy.h"

/**
 * protect_path - take @drop (RIGHT_*) back from @path where @p grants
 * it: a protected root keeping the rest (policy.h).  Nothing when @path
 * is not there or not granted @drop, or when a root the user gave names
 * @path itself with one of those rights (the protection is lifted); a
 * --write root below it lifts it there.
 * Return: 0, -ENOMEM or -E2BIG.
 */
int protect_path(struct policy *p, const char *path, unsigned int drop);

/* protect_path() for writing: .git/hooks, ~/.bashrc, cordon itself. */
int protect_write(struct policy *p, const char *path);

/**
 * protect_write_canon - as protect_write() for @canon, a path already
 * canonical (no symlink in it, no "." or ".."), which may not exist yet
 * (a file git would read if it were made: the shim refuses to make it):
 * a file, or with @is_dir a directory.
 * Return: 0, -ENOMEM or -E2BIG.
 */
int protect_write_canon(struct policy *p, const char *canon, bool is_dir);

#endif
