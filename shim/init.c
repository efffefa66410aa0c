/*
 * init.c - the shim's constructor: load the policy snapshot, keep the
 * values the exec hooks re-inject, resolve every real function.
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

static void load_policy(char **envp)
{
	const char *v = env_value(envp, SNAPSHOT_VAR);

	if (!v) {
		shim.store = shim_arena_next();
		shim.active = standalone_load(envp) == 0;
		return;
	}
	shim.snapshot = shim_keep(envp, SNAPSHOT_VAR, SNAPSHOT_MAX);
	shim.store = shim_arena_next();
	if (!shim.snapshot[0])
		shim.snapshot = too_long;
	/* fail closed: a snapshot set by hand, or too long to pass on
	 * (no launcher writes one longer than SNAPSHOT_MAX) */
	if (shim.snapshot == too_long ||
	    snapshot_decode(v, &shim.policy, &shim.extra, shim.store,
			    SNAPSHOT_MAX) != 0)
		standalone_refuse_all(envp);
	shim.active = true;
}

static void init_from(char **envp)
{
	int expected = SHIM_INIT_NONE;
	int saved = errno;

	if (!__atomic_compare_exchange_n(&shim.init_state, &expected,
					 SHIM_INIT_RUNNING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return; /* done, or under way: hooks fall back meanwhile */
	guard_enter();
	shim_note_stderr();
	exec_env_init(envp); /* the shim's file, and shim.preload */
	load_policy(envp);
	real_resolve_all();
	guard_leave();
	__atomic_store_n(&shim.init_state, SHIM_INIT_DONE, __ATOMIC_RELEASE);
	errno = saved;
}

void shim_init(void)
{
	init_from(environ);
}

__attribute__((constructor)) static void shim_ctor(int argc, char **argv,
						   char **envp)
{
	(void)argc;
	(void)argv;
	init_from(envp);
}
