/*
 * sysfilter.h - what Landlock leaves open, closed with a seccomp filter.
 */
#ifndef CORDON_SYSFILTER_H
#define CORDON_SYSFILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "shim/core/feature.h"
#include "shim/core/policy.h"

/* Describe what the seccomp layer enforces for @p on this kernel. */
void sysfilter_features(const struct policy *p, struct feature_set *s);

/**
 * sysfilter_apply - install the filter for @p in the calling thread.
 * Requires NO_NEW_PRIVS (landlock_apply() sets it).  With network off,
 * no IPv4 or IPv6 socket can be created; with only TCP ports allowed,
 * only TCP sockets can (Landlock then filters their ports).  With
 * @own_pidns (the command has its own PID namespace, where no process
 * outside has a pid), the limits and priority of other processes are
 * left to it: the command may renice its own children.
 *
 * Return: 0, or -errno with @err set.
 */
int sysfilter_apply(const struct policy *p, bool own_pidns, char *err,
		    size_t errlen);

#endif
