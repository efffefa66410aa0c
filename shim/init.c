/*
 * init.c - the shim's constructor: load the policy snapshot, keep the
 * values the exec hooks re-inject, resolve every real function.
 *
 * libcordon.so is linked with -z initfirst, so this runs before the
 * constructors of the program's own libraries; a hook called earlier
 * still (or from another thread during start-up) runs shim_init() itself.
 * Never exits, aborts or prints through stdio; a malformed snapshot
 * makes it refuse everything (standalone_refuse_all), and say so in one
 * line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/env.h"
#include "shim/exec_env.h"
#include "shim/hooks.h"
#include "shim/shim.h"
#include "shim/standalone.h"
#include "shim/core/strbuf.h"

struct shim_state shim;

/* What descriptor 2 is as the process begins: its stderr (shim_say). */
static void note_stderr(void)
{
	struct stat st;

	shim.err_open = syscall(SYS_newfstatat, 2, "", &st, AT_EMPTY_PATH) == 0;
	shim.err_dev = st.st_dev;
	shim.err_ino = st.st_ino;
}

void shim_say(const char *line, size_t len)
{
	struct stat st;
	int saved = errno;

	if (shim.err_open &&
	    syscall(SYS_newfstatat, 2, "", &st, AT_EMPTY_PATH) == 0 &&
	    st.st_dev == shim.err_dev && st.st_ino == shim.err_ino)
		syscall(SYS_write, 2, line, len);
	errno = saved;
}

/* getenv() on @envp: with -z initfirst the constructor may run before
 * libc has set environ, but it is handed the process's envp. */
static const char *env_get(char **envp, const char *name)
{
	for (size_t i = 0; envp && envp[i]; i++)
		if (env_is_name(envp[i], name))
			return envp[i] + strlen(name) + 1;
	return NULL;
}

char *shim_arena_next(void)
{
	return shim.arena + shim.arena_used;
}

void shim_arena_cut(const char *piece)
{
	shim.arena_used = (size_t)(piece - shim.arena) + strlen(piece) + 1;
}

char *shim_keep(char **envp, const char *name, size_t cap)
{
	const char *v = env_get(envp, name);
	char *piece = shim_arena_next();
	struct strbuf sb = STRBUF(piece, cap);

	if (v) {
		sb_puts(&sb, name);
		sb_puts(&sb, "=");
		sb_puts(&sb, v);
	}
	if (!v || sb.full)
		piece[0] = '\0';
	shim_arena_cut(piece);
	return piece;
}

static void load_policy(char **envp)
{
	const char *v = env_get(envp, SNAPSHOT_VAR);

	if (!v) {
		shim.store = shim_arena_next();
		shim.active = standalone_load(envp) == 0;
		return;
	}
	shim.snapshot = shim_keep(envp, SNAPSHOT_VAR, SNAPSHOT_MAX);
	shim.store = shim_arena_next();
	if (snapshot_decode(v, &shim.policy, &shim.extra, shim.store,
			    SNAPSHOT_MAX) != 0) {
		/* fail closed: a snapshot set by hand, or too long */
		standalone_refuse_all(envp);
		shim.active = true;
		return;
	}
	shim.active = shim.snapshot[0] != '\0';
}

static void resolve_all(void)
{
	void (*const resolvers[])(void) = {
		hooks_open_resolve, hooks_create_resolve, hooks_change_resolve,
		hooks_stat_resolve, hooks_exec_resolve,	  hooks_net_resolve,
		hooks_walk_resolve,
	};

	for (size_t i = 0; i < sizeof(resolvers) / sizeof(resolvers[0]); i++)
		resolvers[i]();
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
	note_stderr();
	exec_env_init(envp); /* the shim's file, and shim.preload */
	load_policy(envp);
	resolve_all();
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
