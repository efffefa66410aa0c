/*
 * ns.h - the mount and PID namespaces that close what Landlock leaves
 * open: metadata of read-only files, programs mapped from roots without
 * the execute right, sockets under /run, processes outside.
 */
#ifndef CORDON_NS_H
#define CORDON_NS_H

#include <stddef.h>

#include "feature.h"
#include "policy.h"

/* Describe the namespace layer on this system (one trial unshare). */
void ns_features(const struct policy *p, struct feature_set *s);

/**
 * ns_enter - move the calling process's future into new namespaces: a
 * user namespace when not root (the caller's uid and gid mapped to
 * themselves), a mount namespace where every mount is read-only and
 * noexec but the roots granting write or execute, the sockets under
 * /run outside the writable roots masked (but @keep, the launcher's
 * report socket, when not NULL), and a PID namespace with its own
 * /proc.  The caller forks twice on the way: it stays behind to relay
 * signals and the exit status, the first child is the namespace's init
 * (it reaps orphans), and only the second child returns from here, to
 * install the rest of the boundary and exec the command.
 *
 * Return: 0 in the command's process; -1 with @err set when a
 * namespace cannot be set up (nothing has run).  The processes left
 * behind never return.
 */
int ns_enter(const struct policy *p, const char *keep, char *err,
	     size_t errlen);

#endif
