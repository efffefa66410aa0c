/*
 * exec_env.h - make the shim follow a program into its children: the
 * environment a child receives (the program's own, with the shim and the
 * policy snapshot put back), and a record of the children it cannot
 * follow.
 *
 * Everything here runs in exec hooks, possibly between vfork and exec:
 * no malloc, no locks, no setenv, no stdio; the caller provides the
 * storage (on its stack).  Only exec_env_restore() writes shared state,
 * and only the parent calls it (system, popen, wordexp).
 */
#ifndef CORDON_EXEC_ENV_H
#define CORDON_EXEC_ENV_H

#include <stddef.h>

#include "shim.h"

#define EXEC_ENV_CAP	 1024	  /* variables a child can receive */
#define EXEC_PRELOAD_MAX PATH_BUF /* "LD_PRELOAD=ours theirs" */

struct exec_env {
	char *vec[EXEC_ENV_CAP];	/* the new envp, NULL-terminated */
	char preload[EXEC_PRELOAD_MAX]; /* a composed LD_PRELOAD entry */
	char asan[EXEC_PRELOAD_MAX];	/* a composed ASAN_OPTIONS entry */
	char *const *envp;		/* what to pass to exec */
};

/* Remember which file the shim was loaded from (shim_init, once). */
void exec_env_init(void);

/**
 * exec_env_build - the environment for a child, from @envp (NULL means
 * empty): every variable the program passes, in its order, except that
 * the first LD_PRELOAD keeps the shim loaded (the program's value when it
 * lists libcordon.so, else the load-time value followed by the
 * program's), the first CORDON_POLICY is the load-time snapshot, later
 * duplicates of either are dropped (ld.so honours the last LD_PRELOAD),
 * and the two are appended when missing; ASAN_OPTIONS lets an ASan
 * program start with the shim loaded first (env_asan_entry).  Nothing changes
 * when no policy is loaded.  Async-signal-safe; errno untouched.
 *
 * Return: 0 with @e->envp set, or -E2BIG when @envp has more than
 * EXEC_ENV_CAP - 4 variables (an exec that cannot carry the shim does
 * not run).
 */
int exec_env_build(struct exec_env *e, char *const *envp);

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
 * exec_env_note_unshimmed - @op (allowed) runs a file the shim cannot
 * enter: a static binary (no PT_INTERP), another ELF class or machine,
 * or a "#!" script whose interpreter is one.  Send the audit record
 * "exec-unshimmed" (layer "shim"; no line on stderr) so that the
 * launcher can name it; the exec still runs, under the kernel layer.
 * Raw syscalls; errno untouched.
 */
void exec_env_note_unshimmed(const struct op *op);

#endif
