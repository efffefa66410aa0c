/*
 * ns.h - the mount and PID namespaces that close what Landlock leaves
 * open: metadata of read-only files, programs mapped from roots without
 * the execute right, sockets under /run, processes outside.
 */
#ifndef CORDON_NS_H
#define CORDON_NS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "shim/core/feature.h"
#include "shim/core/policy.h"

/*
 * Describe the namespace layer on this system: with @trial, from one
 * trial unshare in a thrown-away child (cordon probe, --best-effort,
 * which must know before it chooses); without, as available, and the
 * real namespaces (ns_fork(), ns_enter()) are the trial: what they
 * cannot make is refused there (ns_refused()), never run without.
 */
void ns_features(const struct policy *p, struct feature_set *s, bool trial);

/*
 * ns_refused - after ns_fork() or ns_enter() failed with @err: when
 * ns_features() made no trial and @err says the kernel refuses the
 * namespaces (EPERM, EINVAL, ENOSPC, EUSERS, EACCES), mark the layer's
 * rows of @s unavailable (the refusal then names them, as the trial's
 * would have) and return true.
 */
bool ns_refused(struct feature_set *s, int err);

/**
 * ns_fork - fork() into new mount and PID namespaces (and a user
 * namespace for a user): the child is pid 1 there, and its ns_enter()
 * makes no namespace of its own.
 * Return: as fork(), -1 with errno when the namespaces cannot be made.
 */
pid_t ns_fork(void);

/**
 * ns_enter - put the calling process into new namespaces: a user
 * namespace when not root (the caller's uid and gid mapped to
 * themselves), a mount namespace where every mount is read-only and
 * noexec but the roots granting write or execute, the sockets under
 * /run outside the writable roots masked (but @keep, the launcher's
 * report socket, when not NULL), and a PID namespace with its own
 * /proc.  Unless ns_fork() made it, the caller forks on the way and
 * stays behind to relay signals and the exit status.  The process that
 * returns is pid 1 of the new namespace (pid1_is_init(), pid1.h): it installs
 * the rest of the boundary, then forks the command and relays for it
 * (spawn_exec, pid1_relay).
 *
 * Return: 0 in pid 1; -1 with @err set when a namespace cannot be made
 * (nothing has run); -2 with errno, @err unset, when the namespaces
 * made without a trial prove unusable (for ns_refused()).  The process left
 * behind never returns.
 */
int ns_enter(const struct policy *p, const char *keep, char *err,
	     size_t errlen);

/* Did ns_enter() give this process a network namespace of its own (the
 * network off)?  Then a TCP socket reaches nothing outside, whatever
 * Landlock misses (sysfilter.c lets TCP sockets be made). */
bool ns_own_net(void);

/* The proxy's listening socket that ns_enter() made in pid 1's network
 * namespace with hosts allowed (hostgate_listen()), else -1. */
int ns_proxy_listener(void);

#endif
