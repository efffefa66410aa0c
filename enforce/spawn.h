/*
 * spawn.h - run the command once the boundary is in place.
 */
#ifndef CORDON_SPAWN_H
#define CORDON_SPAWN_H

#include <stdbool.h>

#include "shim/core/path.h"
#include "shim/core/policy.h"

/* Exit statuses, as env(1) and timeout(1). */
#define EXIT_CORDON	125 /* cordon itself failed or refused */
#define EXIT_CANNOT_RUN 126 /* the command cannot be executed */
#define EXIT_NOT_FOUND	127 /* the command was not found */

/**
 * spawn_exec - replace cordon with @argv, its environment @envp, searching
 * PATH as execvp(3) does.  Returns only on failure, after one line on
 * stderr naming the command and the reason (and the option that would
 * allow it when the policy is the reason).
 *
 * Return: EXIT_NOT_FOUND or EXIT_CANNOT_RUN.
 */
int spawn_exec(char **argv, char **envp, const struct policy *p);

/* Find @cmd the way execvp(3) would, along this process's PATH, and
 * resolve it into @out; false when there is none. */
bool spawn_locate(const char *cmd, char out[PATH_BUF]);

#endif
