/*
 * broker_deputy.h - the process that performs the broker's UNIX
 * connect() and listen() with no capability (broker_deputy.c argues
 * why).
 */
#ifndef CORDON_BROKER_DEPUTY_H
#define CORDON_BROKER_DEPUTY_H

#include <sys/socket.h>

struct broker_deputy;

/**
 * broker_deputy_start - in the supervisor, before the command runs:
 * fork the deputy (the supervisor's uid and gids, no capability, no
 * descriptor but its channel).  Return: the deputy, or NULL with errno.
 */
struct broker_deputy *broker_deputy_start(void);

/**
 * broker_deputy_connect - have the deputy connect @sock to @ss (@len
 * bytes, checked already).  A pathname address that names the socket
 * file through "/proc/self/fd/@pathfd" is named through the deputy's
 * copy of @pathfd.  One round trip on this thread's channel.
 *
 * Return: 0, or -errno (-EACCES: no deputy, or it is gone).
 */
long broker_deputy_connect(struct broker_deputy *d, int sock,
			   const struct sockaddr_storage *ss, socklen_t len,
			   int pathfd);

/* listen(@sock, @backlog) in the deputy.  Return: 0, or -errno. */
long broker_deputy_listen(struct broker_deputy *d, int sock, int backlog);

/* The calling thread's channel closed (a broker worker ending). */
void broker_deputy_forget(void);

/* Close the channel (the deputy ends) and reap it. */
void broker_deputy_stop(struct broker_deputy *d);

#endif
