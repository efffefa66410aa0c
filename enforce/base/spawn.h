/*
 * spawn.h - run the command once the boundary is in place.
 */
#ifndef CORDON_SPAWN_H
#define CORDON_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

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

/* A command of a session (session_pid1.c): its descriptors 0, 1 and 2
 * and its working directory; @terminal: one of them is its own pty
 * (session_pty.c), whose session leader it becomes. */
struct spawn_call {
	int fds[3];
	const char *cwd;
	bool terminal;
};

/**
 * spawn_child - vfork and exec @argv with @envp (searching its PATH),
 * as a child of this process; with @call, in a process group of its
 * own (a session of its own, its terminal's controlling process, when
 * @call has a terminal), with @call's descriptors and directory.
 * Return: 0 with the child in *@out, or the status (EXIT_CORDON,
 * EXIT_CANNOT_RUN, EXIT_NOT_FOUND) after one line on stderr.
 */
int spawn_child(char **argv, char **envp, const struct policy *p,
		const struct spawn_call *call, pid_t *out);

/* Wipe the strings of @old that @keep (NULL: none) does not hold: the
 * environment a process that stays beside commands started with. */
void spawn_forget_environ(char **old, char *const *keep);

/* Find @cmd the way execvp(3) would, along this process's PATH, and
 * resolve it into @out; false when there is none. */
bool spawn_locate(const char *cmd, char out[PATH_BUF]);

#endif
