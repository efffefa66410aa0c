/*
 * shimenv.h - how the launcher loads the shim (libcordon.so,
 * libcordon.dylib) into the command.
 */
#ifndef CORDON_SHIMENV_H
#define CORDON_SHIMENV_H

#include <stddef.h>

#include "shim/core/path.h"
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

#endif
