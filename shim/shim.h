/*
 * shim.h - what the parts of libcordon.so share.
 *
 * The shim lives inside other people's programs: nothing here may exit,
 * abort, print through stdio, or leave errno changed on an allowed call.
 * Everything reachable from an exec hook is async-signal-safe and
 * allocates nothing (it may run in a vfork child).
 */
#ifndef CORDON_SHIM_H
#define CORDON_SHIM_H

#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>

#include "shim/core/path.h"
#include "shim/core/policy.h"
#include "shim/core/snapshot.h"

#define SHIM_API __attribute__((visibility("default")))

#define SHIM_PRELOAD_MAX (PATH_BUF + 16) /* "LD_PRELOAD=..." */

/*
 * The policy snapshot this process loaded, and what it needs to pass on.
 * In the order a process touches them, so that the few pages in use lie
 * together: each page touched costs every process a page fault (init.o
 * is linked first, so this starts on the page of .data, which ld.so has
 * touched already).  The shim's own file name (exec_env.c), the loader
 * entry, the snapshot and the decoded strings are cut from one arena in
 * the order they are written (each within its cap; the arena is the sum
 * of the caps): one page for the four, where a buffer each took four.
 * The pointers are NULL until shim_init() has run; the policy and
 * extra are read only once shim_is_ready().
 */
struct shim_state {
	int init_state;	  /* init.c: none, running, done */
	int decode_state; /* the policy decoded: none, running, done */
	bool active;	  /* a policy was loaded: hooks decide */
	bool err_open;	  /* descriptor 2 was open when the process began: */
	dev_t err_dev;	  /* the file it was; lines go there only */
	ino_t err_ino;
	struct snapshot_extra extra;
	char *preload;	/* "LD_PRELOAD=..." as loaded (SHIM_PRELOAD_MAX) */
	char *snapshot; /* "CORDON_POLICY=..." as loaded (SNAPSHOT_MAX) */
	char *store;	/* decoded strings of the policy (SNAPSHOT_MAX) */
	size_t arena_used;
	/* before the policy: the few KB of it in use follow the pointers
	 * on the page they share with .data, the policy's fields after */
	char arena[PATH_BUF + SHIM_PRELOAD_MAX + 2 * SNAPSHOT_MAX];
	struct policy policy; /* its roots last */
};

extern struct shim_state shim;

/* Keep the snapshot (the constructor, or the first hook called before
 * it) and decode the policy (the first hook that needs it).  Safe to
 * call from any hook; cheap after the first call. */
void shim_init(void);

enum { SHIM_INIT_NONE, SHIM_INIT_RUNNING, SHIM_INIT_DONE };

/* Has shim_init() finished, the policy decoded?  Inline: every hook
 * asks, on every call.  One load: decode_state is stored done only
 * after init_state (init.c). */
static inline bool shim_is_ready(void)
{
	return __atomic_load_n(&shim.decode_state, __ATOMIC_ACQUIRE) ==
	       SHIM_INIT_DONE;
}

/* Is there a policy to pass on at an exec: loaded, or kept and being
 * decoded by another thread (whose children must not lose it)? */
static inline bool shim_has_policy(void)
{
	return __atomic_load_n(&shim.init_state, __ATOMIC_ACQUIRE) ==
		       SHIM_INIT_DONE &&
	       (shim.active || shim.snapshot);
}

/* The arena's unused part, where the next piece goes (shim_init only). */
char *shim_arena_next(void);
/* @piece, from shim_arena_next(), now holds a string: cut it off. */
void shim_arena_cut(const char *piece);
/* "NAME=value" of @name in @envp as a new piece of the arena ("" when
 * absent or longer than @cap). */
char *shim_keep(char **envp, const char *name, size_t cap);

/* Remember what descriptor 2 is as the process begins (shim_init). */
void shim_note_stderr(void);

/* Write @len bytes of @line to the process's stderr: descriptor 2, only
 * while it is the file it was when the process began (a program that
 * started with it closed and opened a file of its own as 2 gets nothing
 * written into that file).  Raw syscalls; errno untouched. */
void shim_say(const char *line, size_t len);

/*
 * The real functions behind the hooks (real.c on Linux; on macOS dyld's
 * interposing reaches libSystem by name, nothing to find).  Each
 * pointer lives in .data (REAL_SLOT), on the page ld.so has written
 * already, never on a .bss page of its own that every process would
 * fault in; NULL until its hook first needs it (hooks.h, REAL_FN),
 * REAL_ABSENT when the libraries have no such function.
 */
#define REAL_SLOT   __attribute__((section(".data.cordon_real")))
#define REAL_ABSENT ((void *)1)

/* Read the objects loaded after the shim from the link map, once (the
 * constructor; any lookup before it does).  Async-signal-safe. */
void real_init(void);

/* The file ld.so loaded the shim from, as the link map names it ("" if
 * unknown). */
const char *real_self_name(void);

/* @name (at @version when not NULL) in the objects after the shim, as
 * dlsym(RTLD_NEXT) or dlvsym(RTLD_NEXT) finds it, or NULL.  No lock, no
 * allocation, no system call: callable from any context. */
void *real_sym(const char *name, const char *version);

/* A hook's first need of its real function: real_sym(), the default
 * version @or_default when @version is missing, stored into @slot
 * (REAL_ABSENT when there is none).  Return: what was stored. */
void *real_resolve(void **slot, const char *name, const char *version,
		   bool or_default);

/*
 * The working directory kept for relative paths (cwd.c).  cwd_watch():
 * the chdir hooks are in place (shim_init); cwd_changed(): they
 * changed it.  cwd_get() copies it into @out (the kept copy, else the
 * kernel's answer, then kept) and returns its length, 0 when there is
 * no path to give; cwd_peek() gives the kept copy, NULL when there is
 * none for the current generation.  Neither changes errno.
 */
void cwd_watch(void);
void cwd_changed(void);
size_t cwd_get(char out[PATH_BUF]);
const char *cwd_peek(size_t *len);

/* Per-thread reentrancy guard: false when the shim is already on this
 * thread's stack (its own calls must reach the real functions). */
bool guard_enter(void);
void guard_leave(void);

/* The operation a hook asks about, for the decision and the message. */
struct op {
	const char *name;  /* "open", "unlink", "execve": for the record */
	unsigned int need; /* RIGHT_* */
	int dirfd;	   /* AT_FDCWD or the *at call's dirfd */
	const char *path;  /* as the program gave it */
	int pflags;	   /* PATH_NOFOLLOW, PATH_EMPTY_OK */
	bool creat;	   /* O_CREAT: W too when the path does not exist */
	bool shim_only;	   /* no kernel rule backs it: always fully resolved */
	bool absent;	   /* it removes or renames what is not there */
	bool blind_after;  /* the hook never sees the real call fail (exec,
			    * dlopen, a spawn's open): decided on the full
			    * resolution, not the lexical path */
	const char *end;   /* "source", "destination": which end of a
			    * rename or link, for the line; else NULL */
	const char *dest;  /* a network destination, for the record */
	const char *var;   /* a variable the scrub removed, for the record */
	const char *verdict; /* for the record: NULL is "deny" */
	const char *allow;   /* for the record: "with --read /x", ... */

	/* the other end of a rename or link, and it resolved (the record's
	 * "peer", set by report_denial()) */
	const struct op *peer;
	const char *peer_resolved;
	/* why the layer below refused it, when the policy allows it (a
	 * link across two mounts); NULL: the policy's own reason */
	const char *why;
	/* the grant to name is the resolved path's directory (a socket
	 * bound again at a granted file's path) */
	bool grant_dir;
};

/**
 * shim_check - decide @op against the loaded policy.  On deny, report it
 * (one line per distinct operation and path, and an audit record).
 * Allocates nothing; does not change errno.
 *
 * Return: 0 to allow, or the errno the call must fail with.
 */
int shim_check(const struct op *op);

/*
 * A stat() that follows links, allowed by the check just made, may be
 * answered by the check's own lookup (one system call, not two):
 * shim_stat_into(@st) before the check, then shim_stat_done() is true
 * when the check filled @st with that very file, no symlink.
 */
struct stat;
void shim_stat_into(struct stat *st);
bool shim_stat_done(void);

/**
 * shim_check_failed - after an allowed call failed with @err: when it is
 * a refusal of the layers below (shim_is_refusal) and the path resolves
 * outside the policy (through a symlink the fast path did not follow,
 * or it moved between the check and the call), report the kernel's
 * denial.
 */
void shim_check_failed(const struct op *op, int err);

/* Is @err how the kernel layer refuses (EACCES, EPERM, EROFS, EXDEV)? */
bool shim_is_refusal(int err);

/**
 * report_denial - the line on stderr (unless quiet) and the audit
 * record, each once per operation and path in this process, for @op on
 * @resolved.
 * @layer is "shim" or "kernel" (the real call failed with EACCES/EPERM).
 */
void report_denial(const struct op *op, const char *resolved,
		   const char *layer);

/* The line and the record of a program asking for @name (getenv), a
 * variable the launcher's scrub removed: once per name in a process. */
void report_variable(const char *name);

/* What to say of a denial of (@name, @need, @key): both the first time
 * this process meets it (the line only unless the policy is quiet or
 * learning), nothing after: one line and one record per operation and
 * path in each process. */
#define REPORT_LINE   1u
#define REPORT_RECORD 2u
unsigned int report_once(const char *name, unsigned int need, const char *key);

/* Does the launcher stand behind this shim, with the mounts it makes
 * (enforce/linux/mounts.c: each root granting write or execute a mount of its
 * own, the rest read-only)?  Not for the shim used alone. */
bool shim_has_mounts(void);

/* The JSON Lines record of a denial, to the snapshot's log. */
void audit_record(const struct op *op, const char *resolved, const char *rule,
		  const char *layer);

#endif
