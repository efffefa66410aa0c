/*
 * exec_interp.h - what the kernel checks when it runs a file, beside the
 * policy: whether it could run it at all, and the "#!" interpreters it
 * runs next.  Linux's exec hooks (hook_exec.c) use it, between vfork
 * and exec: async-signal-safe, no malloc, no locks.
 */
#ifndef CORDON_EXEC_INTERP_H
#define CORDON_EXEC_INTERP_H

#include <stdbool.h>

#include "shim/shim.h"

/**
 * exec_is_runnable - could the kernel run @path (from @dirfd, @pflags
 * PATH_NOFOLLOW, PATH_EMPTY_OK) at all: a regular file with an x bit
 * for us, the mount's noexec aside?  If not, the real call fails by
 * itself with the kernel's errno.  With @unseen_ok, one this process
 * cannot look up (EACCES: a directory on the way it may not search, as
 * root without its capabilities) is judged all the same: the program
 * named it, and a refusal of the policy is explained (not in a PATH
 * search, where glibc skips such an entry without a word).  Changes
 * errno.
 */
bool exec_is_runnable(int dirfd, const char *path, int pflags, bool unseen_ok);

/**
 * exec_judge_interpreter - @script (an exec the policy allows) is a "#!"
 * script whose interpreter is @interp (as the line names it): decide on
 * it as on an exec of its own (need X, operation @script->name, the
 * line marked "interpreter").  An exec_judge_fn (exec_env_follow()).
 * Return: 0, EACCES once the refusal is reported, or -1 when the
 * kernel could not run @interp at all (left to the kernel).
 */
int exec_judge_interpreter(const struct op *script, const char *interp);

#endif
