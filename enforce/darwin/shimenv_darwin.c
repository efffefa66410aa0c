/*
 * shimenv_darwin.c - insert libcordon.dylib into the command on macOS
 * (shimenv.h): find it beside cordon (the build tree) or in
 * ../lib/cordon (an installed PREFIX), and put DYLD_INSERT_LIBRARIES
 * and the policy snapshot into the command's environment.
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

#include "env.h"
#include "platform.h"
#include "shimenv.h"
#include "snapshot.h"

#define INSERT_VAR "DYLD_INSERT_LIBRARIES"

int shimenv_locate(char out[PATH_BUF])
{
	static const char *const places[] = {
		"libcordon.dylib",
		"../lib/cordon/libcordon.dylib",
	};
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

		if (snprintf(cand, sizeof(cand), "%s/%s", exe, places[i]) <
			    (int)sizeof(cand) &&
		    path_resolve(AT_FDCWD, cand, 0, out) == 0 &&
		    access(out, R_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* Put @entry ("NAME=value", allocated; NULL when that failed) in place
 * of @name in @envp, or after the last; @cap counts the NULL. */
static int put(char **envp, size_t cap, const char *name, char *entry)
{
	size_t i = 0;

	if (!entry)
		return -ENOMEM;
	while (envp[i] && !env_is_name(envp[i], name))
		i++;
	if (!envp[i] && i + 2 > cap) {
		free(entry);
		return -E2BIG;
	}
	if (!envp[i])
		envp[i + 1] = NULL;
	envp[i] = entry;
	return 0;
}

/* The command's own inserted libraries stay, after the shim. */
int shimenv_apply(char **envp, size_t cap, const char *lib,
		  const char *snapshot)
{
	const char *theirs = "";
	char *entry = NULL;
	int ret;

	for (size_t i = 0; envp[i]; i++) {
		if (env_is_name(envp[i], INSERT_VAR)) {
			/* dyld reads the first */
			if (strchr(envp[i], '='))
				theirs = strchr(envp[i], '=') + 1;
			break;
		}
	}
	if (asprintf(&entry, "%s=%s%s%s", INSERT_VAR, lib, *theirs ? ":" : "",
		     theirs) < 0)
		entry = NULL;
	ret = put(envp, cap, INSERT_VAR, entry);
	if (ret)
		return ret;
	if (asprintf(&entry, "%s=%s", SNAPSHOT_VAR, snapshot) < 0)
		entry = NULL;
	return put(envp, cap, SNAPSHOT_VAR, entry);
}
