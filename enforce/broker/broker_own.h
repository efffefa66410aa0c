/*
 * broker_own.h - with the network shared, the UNIX sockets the command
 * bound itself, told from the host's (broker_own.c); and the listen()
 * that would take an ephemeral TCP port without a bind().
 */
#ifndef CORDON_BROKER_OWN_H
#define CORDON_BROKER_OWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "enforce/broker/broker_call.h"

struct broker_own;

/* The sockets the command bound: an empty set, or NULL out of memory. */
struct broker_own *broker_own_new(void);
void broker_own_free(struct broker_own *o);

/**
 * broker_bind - a bind() of the command (handed over only with the
 * network shared): an AF_UNIX socket that is not bound yet is noted as
 * the command's own, then the kernel performs the bind as asked
 * (Landlock and the mounts decide on it).
 * Return: BROKER_CONTINUE.
 */
long broker_bind(const struct broker_call *c);

/**
 * broker_listen - a listen() of the command (handed over only with TCP
 * ports allowed): refused (EACCES, @c->denial set) on an AF_INET or
 * AF_INET6 socket whose port is not a --bind one (bound to none, which
 * listen() would bind to an ephemeral port on every address, or to one
 * a connect() took and kept when it failed), unless --bind 0 allows any
 * or it is listening already; else performed on the command's socket.
 * Return: its result, or -errno.
 */
long broker_listen(const struct broker_call *c);

/**
 * broker_own_file - is the socket bound at the socket file @dev, @ino
 * (in the caller's network namespace) one the command bound?
 * Return: 0 yes, -ECONNREFUSED none is bound there (answer so, without
 * making the call), -EPERM another's, or the kernel could not be asked.
 */
int broker_own_file(struct broker_own *o, dev_t dev, ino_t ino);

/**
 * broker_own_abstract - is the socket bound at the abstract @name (@len
 * bytes, the leading NUL included) one the command bound?  Then it is
 * held (a descriptor of it taken from a process of the command's) so
 * that its name cannot be released and bound by another until the call
 * is made.  Return: that descriptor (close it after the call),
 * -ECONNREFUSED when none is bound there (answer so, without making the
 * call), or -EPERM, as Landlock's scope refuses one bound outside.
 */
int broker_own_abstract(const struct broker_call *c, const char *name,
			size_t len);

/**
 * broker_connect_held - connect() the command's socket to @ss (@len),
 * the address broker_vet() decided on, whose socket *@pin holds when it
 * is abstract; a wait there is bounded by checks of the name (see
 * broker_own.c), after which *@pin may be another descriptor, or -1.
 * Return: 0, or -errno.
 */
long broker_connect_held(const struct broker_call *c,
			 const struct sockaddr_storage *ss, socklen_t len,
			 int *pin);

/* broker_send() of @m (its msg_name decided by broker_vet()), as
 * broker_connect_held() connects.  Return: as sendmsg(2). */
ssize_t broker_send_held(const struct broker_call *c, const struct msghdr *m,
			 int flags, int *pin);

#endif
