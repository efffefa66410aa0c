/*
 * policy_edit.h - building a policy in the launcher (it allocates).
 */
#ifndef CORDON_POLICY_EDIT_H
#define CORDON_POLICY_EDIT_H

#include "shim/core/policy.h"

/**
 * policy_add_root - add @path with @rights, merging with an equal root.
 * @path must already be canonical.  Takes a copy of @path.
 *
 * Return: 0, -ENOMEM, or -E2BIG when POLICY_MAX_ROOTS is reached.
 */
int policy_add_root(struct policy *p, const char *path, unsigned int rights,
		    enum root_origin origin, bool is_dir);

/* Free what policy_add_root() and the option parser copied. */
void policy_free(struct policy *p);

/**
 * policy_proxy_env - with hosts allowed, the variables that send the
 * command's HTTP, HTTPS and SOCKS traffic to cordon's proxy (upper and
 * lower case: HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY), set in @p
 * so that the shim keeps them across every exec (they replace the
 * user's of the same names).  Return: 0, or -errno.
 */
int policy_proxy_env(struct policy *p);

#endif
