/*
 * net.h - the decision of the network hooks (hook_net.c,
 * darwin/hook_net_darwin.c), in net.c; a refused IPv4 or IPv6
 * destination is reported by report_net.c (report_net.h).
 *
 * A UNIX socket with a path is a file and goes through shim_check() and
 * report_denial() like any other path; only addresses come here.
 */
#ifndef CORDON_NET_H
#define CORDON_NET_H

#include <stdbool.h>
#include <sys/socket.h>

#include "shim/report_net.h"

/**
 * net_decide - the decision of a hook that names the address @sa (@len
 * bytes; NULL: none) on @fd, with the lazy init and the reentrancy
 * guard: a UNIX socket path needs W on it, an IPv4 or IPv6 address
 * follows the network policy (reported when refused), anything else is
 * the kernel layer's.  Async-signal-safe.
 * Return: 0 to forward the call, or the errno to fail it with (EACCES).
 */
int net_decide(const char *name, enum net_use use, int fd,
	       const struct sockaddr *sa, socklen_t len);

/* After an allowed call on @sa failed with @err: a kernel denial of a
 * UNIX socket path is reported like any path's.  errno is @err after. */
void net_failed(const char *name, enum net_use use, const struct sockaddr *sa,
		socklen_t len, int err);

/**
 * net_kind - each OS's own (in its hook file): is @fd plain TCP, plain
 * UDP, another socket, as the launcher's kernel layer sees it, or no
 * socket at all (NET_KIND_UNKNOWN: the kernel fails the call)?
 * Async-signal-safe.
 */
enum net_kind net_kind(int fd);

#endif
