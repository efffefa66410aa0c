/*
 * covers.h - what the command's mount namespace covers at the start:
 * the sockets of processes outside, and the secrets of a readable root.
 */
#ifndef CORDON_COVERS_H
#define CORDON_COVERS_H

#include "shim/core/policy.h"

/**
 * covers_sockets - cover with /dev/null every socket file of processes
 * outside that @p does not grant (but @keep, the launcher's report
 * socket, when not NULL).
 * Return: 0, or an errno when one could not be covered.
 */
int covers_sockets(const struct policy *p, const char *keep);

/**
 * covers_secret - cover @path with an empty file or directory of mode
 * 000, read-only.  A missing @path: -1 with errno ENOENT.
 * Return: 0, or -1 with errno.
 */
int covers_secret(const char *path);

/* Put away what covers_secret() needed for its files. */
void covers_done(void);

#endif
