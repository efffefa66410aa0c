/*
 * shimenv.h - how the launcher loads the shim (libcordon.so,
 * libcordon.dylib) into the command.
 */
#ifndef CORDON_SHIMENV_H
#define CORDON_SHIMENV_H

#include <stddef.h>

#include "shim/core/path.h"
#include "enforce/cli/cli.h"
#include "enforce/report/supervise.h"
#include "shim/core/policy.h"

/**
 * shimenv_locate - find the shim's file (platform_shim_file()) next to
 * the running cordon (the build tree) or in ../lib/cordon (an installed
 * PREFIX).
 * Return: 0, or -ENOENT with @out holding the last place looked at.
 */
int shimenv_locate(char out[PATH_BUF]);

/**
 * shimenv_apply - add the loader's variable (preload.h: LD_PRELOAD or
 * DYLD_INSERT_LIBRARIES, with the shim @lib first, then any the
 * command's environment already had), ASAN_OPTIONS as env_asan_entry()
 * makes it where the OS needs it, and the policy snapshot to @envp,
 * which has room for @cap entries with the NULL.
 * Return: 0, -ENOMEM, or -E2BIG.
 */
int shimenv_apply(char **envp, size_t cap, const char *lib,
		  const char *snapshot);

/* The command's environment: @from (modes_environ()) scrubbed to the
 * allowlist of @p, with room for the shim's variables (LD_PRELOAD,
 * ASAN_OPTIONS, CORDON_POLICY); *@cap its size.  NULL when out of
 * memory. */
char **shimenv_scrubbed(const struct policy *p, char *const *from, size_t *cap);

/**
 * shimenv_prepare - the shim for the command of @c: find its file and
 * grant it, bind the report socket (@sup), protect cordon's own files
 * where a writable root holds them, encode the policy and put the shim
 * and the snapshot into @envp (@cap entries).
 * Return: 0, or -errno after one line on stderr.
 */
int shimenv_prepare(struct cli *c, char **envp, size_t cap,
		    struct supervisor *sup);

#endif
