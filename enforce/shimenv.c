/*
 * shimenv.c - preload libcordon.so into the command: find it relative to
 * cordon itself (so the build tree and `make install PREFIX=... DESTDIR=`
 * both work without configuration), and put LD_PRELOAD and the policy
 * snapshot into the command's environment.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "platform.h"
#include "shimenv.h"
#include "snapshot.h"

int shimenv_locate(char out[PATH_BUF])
{
	static const char *const places[] = { "libcordon.so",
					      "../lib/cordon/libcordon.so" };
	char exe[PATH_BUF], *slash;
	int ret = platform_self_exe(exe);

	if (ret)
		return ret;
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		char cand[PATH_BUF];

		if (snprintf(cand, sizeof(cand), "%s/%s", exe, places[i]) >=
		    (int)sizeof(cand))
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

static int set(char **envp, size_t cap, const char *name, char *entry)
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

int shimenv_apply(char **envp, size_t cap, const char *lib,
		  const char *snapshot)
{
	size_t i = find(envp, "LD_PRELOAD");
	const char *theirs = envp[i] ? envp[i] + strlen("LD_PRELOAD=") : "";
	char *preload = NULL, *policy = NULL;
	char asan[PATH_BUF];
	int ret;

	if (asprintf(&preload, "LD_PRELOAD=%s%s%s", lib, *theirs ? " " : "",
		     theirs) < 0)
		preload = NULL;
	ret = set(envp, cap, "LD_PRELOAD", preload);
	if (ret)
		return ret;
	i = find(envp, ASAN_VAR);
	ret = set(envp, cap, ASAN_VAR,
		  strdup(env_asan_entry(envp[i], asan, sizeof(asan))));
	if (ret)
		return ret;
	if (asprintf(&policy, "%s=%s", SNAPSHOT_VAR, snapshot) < 0)
		policy = NULL;
	return set(envp, cap, SNAPSHOT_VAR, policy);
}
