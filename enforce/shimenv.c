/*
 * shimenv.c - load the shim into the command, on every OS: find its file
 * relative to cordon itself (so the build tree and `make install
 * PREFIX=... DESTDIR=` both work without configuration), and put the
 * loader's variable (preload.h: LD_PRELOAD, DYLD_INSERT_LIBRARIES) and
 * the policy snapshot into the command's environment.  platform.h names
 * the running executable and the shim's file.
 *
 * dyld honours DYLD_INSERT_LIBRARIES only for programs that are neither
 * SIP-protected nor hardened without the allow-dyld-environment
 * entitlement; the others run under Seatbelt alone (exec_env_darwin.c
 * names them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim/core/env.h"
#include "enforce/platform.h"
#include "shim/core/preload.h"
#include "enforce/shimenv.h"
#include "shim/core/snapshot.h"

int shimenv_locate(char out[PATH_BUF])
{
	static const char *const dirs[] = { "", "../lib/cordon/" };
	const char *file = platform_shim_file();
	char exe[PATH_BUF], *slash;
	int ret = platform_self_exe(exe);

	if (ret)
		return ret;
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char cand[PATH_BUF];

		if (snprintf(cand, sizeof(cand), "%s/%s%s", exe, dirs[i],
			     file) >= (int)sizeof(cand))
			continue;
		if (path_resolve(AT_FDCWD, cand, 0, out) == 0 &&
		    access(out, R_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* Index of @name in @envp, or the count when it is absent. */
static size_t find(char **envp, const char *name)
{
	size_t i = 0;

	while (envp[i] && !env_is_name(envp[i], name))
		i++;
	return i;
}

/* Put @entry (allocated; NULL when that failed) in place of @name in
 * @envp, or after the last; @cap counts the NULL. */
static int set_take(char **envp, size_t cap, const char *name, char *entry)
{
	size_t i = find(envp, name);

	if (!entry)
		return -ENOMEM;
	if (!envp[i]) {
		if (i + 2 > cap) {
			free(entry);
			return -E2BIG;
		}
		envp[i + 1] = NULL;
	}
	envp[i] = entry;
	return 0;
}

/* The shim first, then the libraries the command's own entry loads (the
 * first entry: the one ld.so and dyld read). */
static int set_preload(char **envp, size_t cap, const char *lib)
{
	const struct preload *pl = &preload_os;
	size_t i = find(envp, pl->var);
	const char *eq = envp[i] ? strchr(envp[i], '=') : NULL;
	const char *theirs = eq ? eq + 1 : "";
	char *entry = NULL;

	if (asprintf(&entry, "%s=%s%s%s", pl->var, lib, *theirs ? pl->join : "",
		     theirs) < 0)
		entry = NULL;
	return set_take(envp, cap, pl->var, entry);
}

static int set_asan(char **envp, size_t cap)
{
	char asan[PATH_BUF];
	size_t i = find(envp, ASAN_VAR);

	return set_take(envp, cap, ASAN_VAR,
			strdup(env_asan_entry(envp[i], asan, sizeof(asan))));
}

int shimenv_apply(char **envp, size_t cap, const char *lib,
		  const char *snapshot)
{
	char *policy = NULL;
	int ret = set_preload(envp, cap, lib);

	if (!ret && preload_os.asan)
		ret = set_asan(envp, cap);
	if (ret)
		return ret;
	if (asprintf(&policy, "%s=%s", SNAPSHOT_VAR, snapshot) < 0)
		policy = NULL;
	return set_take(envp, cap, SNAPSHOT_VAR, policy);
}
