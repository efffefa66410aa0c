/*
 * init.c - the shim's constructor: keep the policy snapshot and the
 * values the exec hooks re-inject (decoded by the first hook that needs
 * the policy), read the objects in which the hooks
 * find their real functions (real.c; each finds its own on first use).
 *
 * libcordon.so is linked with -z initfirst, so this runs before the
 * constructors of the program's own libraries; a hook called earlier
 * still (or from another thread during start-up) runs shim_init() itself.
 * Never exits, aborts or prints through stdio; a malformed snapshot, or
 * one longer than SNAPSHOT_MAX, makes it refuse everything
 * (standalone_refuse_all), and say so in one line.
 */
#include <errno.h>
#include <unistd.h>
#include <string.h>

#include "shim/core/env.h"
#include "shim/exec_env.h"
#include "shim/shim.h"
#include "shim/standalone.h"

/* What children get of a snapshot too long to keep: one that does not
 * decode, so that they refuse everything too. */
static char too_long[] = SNAPSHOT_VAR "=";
/* Its name, in .data: the start reads no page of .rodata. */
static char snapshot_var[] = SNAPSHOT_VAR;

/* A snapshot only a hand could have written (cordon's begin "v=1|"), or
 * too long to pass on (no launcher writes one longer than SNAPSHOT_MAX):
 * refused at the start, as a process begins (Landlock while it has one
 * thread).  Any other malformation is found when it is decoded. */
static bool plainly_malformed(const char *v)
{
	return shim.snapshot == too_long || v[0] != 'v' || v[1] != '=' ||
	       v[2] != '1' || v[3] != '|';
}

/* Keep what is needed before the program can change it: the snapshot
 * as loaded (re-injected at every exec, catalog D-2).  Decoding it waits
 * for the first hook that needs the policy (decode_policy()): most
 * processes of a build need it late or never, and the decoding is the
 * larger part of a start's cost (doc/bench/notes.md).  True when the
 * policy is settled here (none kept: standalone, or refused), with no
 * decoding left for a hook. */
static bool keep_policy(char **envp)
{
	const char *v = env_value(envp, snapshot_var);

	if (!v) {
		shim.store = shim_arena_next();
		shim.active = standalone_load(envp) == 0;
		return true;
	}
	shim.snapshot = shim_keep(envp, snapshot_var, SNAPSHOT_MAX);
	shim.store = shim_arena_next();
	if (!shim.snapshot[0])
		shim.snapshot = too_long;
	if (!plainly_malformed(v))
		return false;
	standalone_refuse_all(envp);
	shim.active = true;
	return true;
}

/* The policy decoded from the snapshot kept, once, by the first hook
 * that needs it; meanwhile (another thread decoding) hooks forward.
 * Called only once init_state is done, so that decode_state done
 * implies it. */
static void decode_policy(void)
{
	int expected = SHIM_INIT_NONE;
	int saved = errno;

	if (!__atomic_compare_exchange_n(&shim.decode_state, &expected,
					 SHIM_INIT_RUNNING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	guard_enter();
	cwd_watch(); /* the process whose memory this is, seen first here */
	if (snapshot_decode(shim.snapshot + sizeof(SNAPSHOT_VAR), &shim.policy,
			    &shim.extra, shim.store, SNAPSHOT_MAX) != 0)
		standalone_refuse_all(environ);
	shim.active = true;
	guard_leave();
	__atomic_store_n(&shim.decode_state, SHIM_INIT_DONE, __ATOMIC_RELEASE);
	errno = saved;
}

static void init_from(char **envp)
{
	int expected = SHIM_INIT_NONE;
	int saved = errno;
	bool settled;

	if (!__atomic_compare_exchange_n(&shim.init_state, &expected,
					 SHIM_INIT_RUNNING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return; /* done, or under way: hooks fall back meanwhile */
	guard_enter();
	real_init(); /* the objects after the shim, for the hooks' lookups */
	shim_note_stderr();
	exec_env_init(envp); /* the shim's file, and shim.preload */
	settled = keep_policy(envp);
	if (settled) {
		cwd_watch();
		/* no hook may claim the decoding in the moment between */
		shim.decode_state = SHIM_INIT_RUNNING;
	}
	guard_leave();
	__atomic_store_n(&shim.init_state, SHIM_INIT_DONE, __ATOMIC_RELEASE);
	/* last: decode_state done means init_state done (shim_is_ready) */
	if (settled)
		__atomic_store_n(&shim.decode_state, SHIM_INIT_DONE,
				 __ATOMIC_RELEASE);
	errno = saved;
}

void shim_init(void)
{
	init_from(environ);
	if (__atomic_load_n(&shim.init_state, __ATOMIC_ACQUIRE) ==
	    SHIM_INIT_DONE)
		decode_policy();
}

__attribute__((constructor)) static void shim_ctor(int argc, char **argv,
						   char **envp)
{
	(void)argc;
	(void)argv;
	init_from(envp);
}
