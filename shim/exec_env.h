/*
 * exec_env.h - make the shim follow a program into its children: the
 * environment a child receives (the program's own, with the shim and the
 * policy snapshot put back), and a record of the children it cannot
 * follow.  exec_env.c is the same on every OS; each OS's file
 * (exec_env_linux.c, darwin/exec_env_darwin.c) finds the shim's own file,
 * restores environ where libc needs it and says why a child runs
 * without the shim.
 *
 * Everything here runs in exec hooks, possibly between vfork and exec:
 * no malloc, no locks, no setenv, no stdio; the caller provides the
 * storage (on its stack).  Only exec_env_restore() writes shared state,
 * and only the parent calls it (system, popen, wordexp).
 */
#ifndef CORDON_EXEC_ENV_H
#define CORDON_EXEC_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "shim/shim.h"

#define EXEC_ENV_CAP	 1024	  /* variables a child can receive */
#define EXEC_PRELOAD_MAX PATH_BUF /* "LD_PRELOAD=ours theirs" */

struct exec_env {
	char *vec[EXEC_ENV_CAP]; /* the new envp, NULL-terminated */
	char **big;		 /* ...or, larger, mapped */
	size_t big_len;
	char preload[EXEC_PRELOAD_MAX]; /* a composed loader entry */
	char asan[EXEC_PRELOAD_MAX];	/* a composed ASAN_OPTIONS entry */
	char *const *envp;		/* what to pass to exec */
};

/* Remember which file the shim was loaded from (exec_env_set_self()
 * with the loader's name for it) and keep the loader entry children get
 * in shim.preload, cut from the arena (shim_init, once, before the
 * policy; each OS's own).  @envp is the environment the process
 * started with. */
void exec_env_init(char **envp);

/* Keep @name as the shim's file.  False when it is empty or too long
 * (then no list is taken to name the shim). */
bool exec_env_set_self(const char *name);

/* Does the loader's list @list (preload.h) name the shim's file? */
bool exec_env_lists_self(const char *list);

/**
 * exec_env_build - the environment for a child, from @envp (NULL means
 * empty): every variable the program passes, in its order, except that
 * the first loader variable (preload.h: LD_PRELOAD,
 * DYLD_INSERT_LIBRARIES) keeps the shim loaded (the program's value when
 * it lists the shim, else the load-time value followed by the
 * program's), the first CORDON_POLICY is the load-time snapshot, later
 * duplicates of either are dropped (ld.so honours the last LD_PRELOAD),
 * and the two are appended when missing; where the OS needs it,
 * ASAN_OPTIONS lets an ASan program start with the shim loaded first
 * (env_asan_entry).  Nothing changes when no policy is loaded.
 * Async-signal-safe; errno untouched.
 *
 * An environment of more than EXEC_ENV_CAP - 5 variables is built in a
 * mapping of its own, which exec_env_done() gives back.
 *
 * Return: 0 with @e->envp set, or -E2BIG when no memory can be mapped
 * for a large one (an exec that cannot carry the shim does not run).
 */
int exec_env_build(struct exec_env *e, char *const *envp);

/* Give back what exec_env_build() mapped, once @e->envp is no longer
 * needed (the exec failed, the spawn returned).  errno untouched. */
void exec_env_done(struct exec_env *e);

/**
 * exec_env_restore - make environ carry the shim for system(), popen()
 * and wordexp(), which hand environ to /bin/sh inside libc.  When the
 * program dropped or changed LD_PRELOAD or CORDON_POLICY, environ is
 * pointed at a rebuilt copy (static storage; the program's array and
 * strings are never written), as exec_env_build() makes it.  The
 * program then sees cordon's variables again.  For the parent only:
 * never between vfork and exec.
 *
 * Return: 0, or -E2BIG when environ is too large to copy.
 */
int exec_env_restore(void);

/**
 * exec_env_execve - run @exec (an execve, the real one) on @path and
 * @argv with the environment exec_env_build() makes from @envp, in a
 * frame of its own: the hook's frame never holds the decision and the
 * environment at once.
 * Return: what @exec returns, or -1 with errno E2BIG when the
 * environment cannot carry the shim.
 */
int exec_env_execve(int (*exec)(const char *, char *const[], char *const[]),
		    const char *path, char *const argv[], char *const envp[]);

/* Are @a and @b the same array of the same strings (NULL: empty)? */
bool exec_env_is_same(char *const *a, char *const *b);

/**
 * exec_env_shebang - the interpreter of a "#!" script.  @buf holds the
 * first @n bytes of the file, and room for one more.
 * Return: true with the interpreter's path left in @buf, NUL-terminated.
 */
bool exec_env_shebang(char *buf, long n);

/**
 * exec_env_note_unshimmed - when @op (allowed) runs a file the shim
 * cannot enter (exec_env_why_unshimmed), send the audit record
 * "exec-unshimmed" (layer "shim"; no line on stderr) so that the
 * launcher can name it; the exec still runs, under the kernel layer.
 * Raw syscalls; errno untouched.
 */
void exec_env_note_unshimmed(const struct op *op);

/* Send the "exec-unshimmed" record of @op, whose file (@resolved, or
 * "" for @op's path as given) the shim cannot enter, @why.  The caller
 * holds the guard. */
void exec_env_note(const struct op *op, const char *resolved, const char *why);

/* Decide on an interpreter the kernel runs for the script @script: 0
 * (allowed), the errno the exec fails with (reported), or < 0 when the
 * kernel cannot run @interp at all (it fails the exec by itself). */
typedef int exec_judge_fn(const struct op *script, const char *interp);

/**
 * exec_env_follow - Linux's exec hooks: the files the kernel loads for
 * @op, which the policy allows: @op's own, and when it is a "#!" script
 * its interpreter (and that one's, as deep as the kernel goes), each
 * decided by @judge as the kernel checks X on each; then, as
 * exec_env_note_unshimmed(), the record when the shim cannot enter the
 * image.  Each file is opened and read once.  Raw syscalls, the stack
 * only; errno untouched.
 * Return: 0, or what @judge refused with.
 */
int exec_env_follow(const struct op *op, exec_judge_fn *judge);

/**
 * exec_env_why_unshimmed - each OS's own: why the file @op runs will not
 * have the shim in it, written in @rule (@len bytes) when it must be
 * composed; on Linux a static binary (no PT_INTERP), another ELF class
 * or machine, on macOS a program under System Integrity Protection, or
 * a "#!" script whose interpreter is one of these.  The file's resolved
 * path is left in @resolved when the answer needed it, else "" (Linux
 * resolves only what it cannot let run: one walk fewer at every exec).
 * Return: the reason, or NULL when the shim will be there.
 */
const char *exec_env_why_unshimmed(const struct op *op, char resolved[PATH_BUF],
				   char *rule, size_t len);

/* Before the exec @op, allowed: a line for each library its run path
 * names that the policy does not let it map, when a root of its own
 * grants it (exec_libs.c).  Nothing, not even a resolution, where the
 * policy has no such root.  errno untouched. */
void exec_libs_check(const struct op *op);

#endif
