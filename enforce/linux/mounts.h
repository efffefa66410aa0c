/*
 * mounts.h - the command's mount namespace: every mount read-only and
 * noexec but the roots granting write or execute, protected paths
 * read-only again, a /proc of its own.
 */
#ifndef CORDON_MOUNTS_H
#define CORDON_MOUNTS_H

#include <stddef.h>

#include "shim/core/policy.h"

/**
 * mounts_setup - in a new mount (and PID) namespace, make the mounts of
 * @p, covering the sockets of processes outside but @keep.
 * Return: 0, or -1 with one line in @err.
 */
int mounts_setup(const struct policy *p, const char *keep, char *err,
		 size_t errlen);

#endif
