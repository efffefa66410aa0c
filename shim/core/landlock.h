/*
 * landlock.h - the kernel boundary on Linux.
 */
#ifndef CORDON_LANDLOCK_H
#define CORDON_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shim/core/feature.h"
#include "shim/core/policy.h"

/**
 * landlock_abi - the Landlock ABI version of the running kernel.
 * Return: the version (>= 1), or -ENOSYS (not built in), -EOPNOTSUPP
 * (built in but disabled at boot), or another -errno.
 */
int landlock_abi(void);

/**
 * landlock_features - describe what Landlock enforces at @abi (a value
 * from landlock_abi(), possibly negative) for policy @p into @s.
 */
void landlock_features(const struct policy *p, int abi, struct feature_set *s);

/* The Landlock filesystem access mask for cordon rights @rights at
 * @abi, for a directory or (@is_dir false) a file. */
uint64_t landlock_fs_access(unsigned int rights, int abi, bool is_dir);

/* What landlock_apply() is asked besides the policy, and what it did. */
struct landlock_opts {
	/* every denial of the domain kept out of the kernel's audit (ABI
	 * 10; cordon probe's own attempts): the filesystem, these ports,
	 * the scopes */
	bool quiet;
	const uint16_t *quiet_ports;
	size_t nquiet_ports;
	/* out: the domain holds every thread of the process (TSYNC, ABI
	 * 8), not the caller's alone */
	bool all_threads;
	/* out: it holds the pathname UNIX sockets (RESOLVE_UNIX, ABI 9) */
	bool unix_sockets;
};

/**
 * landlock_apply - restrict the process to @p: create the ruleset with
 * every right @abi offers, add a rule per root and per allowed port,
 * set NO_NEW_PRIVS and restrict every thread (the calling one alone
 * before ABI 8: @o->all_threads says which).  @o may be NULL.  Nothing
 * is applied unless all of it is.  On failure, @err receives
 * "<what> '<path>': <reason>".
 *
 * Return: 0, or -errno.
 */
int landlock_apply(const struct policy *p, int abi, struct landlock_opts *o,
		   char *err, size_t errlen);

#endif
