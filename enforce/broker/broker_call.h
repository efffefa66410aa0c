/*
 * broker_call.h - one notified call performed by the broker (broker.c's
 * workers; broker_call.c, broker_msg.c).
 */
#ifndef CORDON_BROKER_CALL_H
#define CORDON_BROKER_CALL_H

#include <limits.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "enforce/broker/broker.h"
#include "shim/core/path.h"

/* What one send copies of the command's data, at most: above the
 * largest datagram an AF_UNIX socket takes by default (its send buffer,
 * net.core.wmem_default 212992, less 32) and UDP's 65507.  A stream
 * send past it is performed in part and returns the count sent (as a
 * signal or a non-blocking socket may make the kernel do); a datagram
 * past it fails with EMSGSIZE (only one whose sender raised SO_SNDBUF
 * could have been sent). */
#define BROKER_SEND_MAX (256u << 10)
/* Control data of one message, at most (the kernel's optmem_max is
 * 128 KiB; SCM_RIGHTS carries at most 253 descriptors). */
#define BROKER_CONTROL_MAX (64u << 10)
#define BROKER_FDS_MAX	   253

/* A refusal of a pathname socket, or of a listen(), for the record. */
struct broker_denial {
	/* "connect", "sendto", "sendmsg", "listen"; NULL: none */
	const char *op;
	char given[PATH_BUF];
	char resolved[PATH_BUF];
	bool shared;   /* a socket of the host's in a shared temp dir */
	char dest[64]; /* a listen()'s unbound address ("0.0.0.0:0"), or "" */
};

/* What broker_perform() returns for a call the kernel is to make as
 * asked (SECCOMP_USER_NOTIF_FLAG_CONTINUE): a bind() (broker_own.c). */
#define BROKER_CONTINUE LONG_MIN

/* The calling thread, as the broker holds it (broker_call.c keeps the
 * last few per worker): its pidfd, and its root once opened (-1 before;
 * kept only once a check of the notification id showed it opened for
 * the calling thread). */
struct broker_target {
	pid_t tid;
	int pidfd;
	int root;
	bool root_checked;
	bool root_lexical; /* the root of its mount namespace */
	/* its process and real ids, in the supervisor's view, once read
	 * (broker_send_as()); 0: not yet */
	pid_t tgid;
	uid_t uid;
	gid_t gid;
};

/* What the broker learnt of the socket, asked only when needed. */
struct broker_sock {
	int type;     /* SO_TYPE; -1: not asked yet; -ENOTSOCK: no socket */
	int blocking; /* its file lacks O_NONBLOCK: 1, else 0; -1: not asked */
};

/* The call being performed: the command's process and its socket. */
struct broker_call {
	struct broker *b;
	int listener;
	const struct seccomp_notif *n;
	struct broker_target *t;
	int pidfd; /* t->pidfd */
	int sock;  /* the command's socket, taken with pidfd_getfd */
	struct broker_sock *s;
	struct broker_denial *denial;
};

/* The decisions, taken under the broker's lock (broker.c): false once
 * the broker is stopping. */
/* The socket file @path, opened as @fd: 0 allowed, -EACCES refused by
 * the policy, -EEXIST a socket of the host's in a temp dir shared with
 * it (policy_unix_shared(), unixdiag.h), -ECONNREFUSED none bound there
 * (the network shared: answer so without making the call). */
int broker_may_unix(struct broker *b, const char *path, int fd);
/* May TCP @port be connected to (or bound, with @bind)? */
bool broker_may_tcp(struct broker *b, bool bind, unsigned int port);
/* May a TCP socket of @port listen (policy_listen_allowed())? */
bool broker_may_listen(struct broker *b, unsigned int port, bool listening);

/* The sockets the command bound (broker_own.h), or NULL. */
struct broker_own *broker_own_of(struct broker *b);
/* The process that makes the UNIX connects and listens (broker_deputy.c). */
struct broker_deputy *broker_deputy_of(struct broker *b);

/* Before a step that may block (a blocking connect, a send that would
 * wait): the calling thread passes the lead to another, which waits for
 * the next notification meanwhile; no-op when it does not lead. */
void broker_may_block(struct broker *b);

/**
 * broker_perform - perform @n (connect, sendto, sendmsg or sendmmsg) as
 * the command asked, on its own socket, when the policy allows it.
 * Return: the call's result, or -errno; @d->op set on a path refusal.
 */
long broker_perform(struct broker *b, int listener,
		    const struct seccomp_notif *n, struct broker_denial *d);

/* Is the notification @c answers still pending (its caller waiting)? */
bool broker_call_valid(const struct broker_call *c);

/* Copy @len bytes at @addr of the command's memory.  Return: 0 or
 * -EFAULT. */
int broker_read(const struct broker_call *c, void *dst, uint64_t addr,
		size_t len);

/* Copy two ranges at once (one system call).  Return: 0 or -EFAULT. */
int broker_read2(const struct broker_call *c, void *dst, uint64_t addr,
		 size_t len, void *dst2, uint64_t addr2, size_t len2);

/**
 * broker_vet - decide on the address @ss (@*len bytes, copied from the
 * command) of @op, and rewrite it to the one to use: a pathname UNIX
 * socket becomes "/proc/self/fd/N" of *@pathfd, the O_PATH descriptor
 * of the very inode checked (close it after the call).
 * Return: 0 (allowed), or -errno.
 */
int broker_vet(const struct broker_call *c, const char *op,
	       struct sockaddr_storage *ss, socklen_t *len, int *pathfd);

/* The broker sends with MSG_NOSIGNAL (a SIGPIPE would hit the
 * supervisor): @err EPIPE without MSG_NOSIGNAL in the command's @flags
 * sends the command SIGPIPE, as its own send would have (to the
 * process, not the thread).  Return: @err. */
int broker_epipe(const struct broker_call *c, int err, int flags);

/* The socket's SO_TYPE (asked once per call, when needed); -ENOTSOCK
 * when the descriptor is no socket. */
int broker_sock_type(const struct broker_call *c);

/* Does the socket's open file description lack O_NONBLOCK? */
bool broker_sock_blocks(const struct broker_call *c);

/* A worker starting: clear its effective capabilities but
 * CAP_SYS_PTRACE (broker_caps.c). */
void broker_caps_drop(void);
/* Did broker_caps_drop() succeed in this thread? */
bool broker_caps_dropped(void);
/* May this thread vouch for another pid's credentials (CAP_SYS_ADMIN
 * permitted)? */
bool broker_caps_can_vouch(void);
/* Raise (@on) or clear again, in this thread, what the kernel needs to
 * carry credentials broker_cmsg_vet() checked: CAP_SYS_ADMIN,
 * CAP_SETUID, CAP_SETGID, where permitted (root). */
void broker_caps_vouch(bool on);

/* A worker ending: close the pidfds and roots it kept. */
void broker_forget_targets(void);

/**
 * broker_send - sendmsg(@m) on the command's socket, with MSG_NOSIGNAL
 * added to @flags, without holding up the broker: on a blocking socket
 * the send is first tried with MSG_DONTWAIT, and only when it would wait
 * is the lead passed on (broker_may_block()) and the send (or, on a
 * stream, its rest) made as asked.  Return: as sendmsg(2).
 */
ssize_t broker_send(const struct broker_call *c, const struct msghdr *m,
		    int flags);

/**
 * broker_send_as - broker_send_held() of @m with the send flags the
 * broker keeps (not BROKER_MSG_STRIP), as the caller would send it: on
 * a UNIX socket whose message carries no SCM_CREDENTIALS, with the
 * caller's own (its pid, real uid and gid) when the supervisor may
 * vouch for them (root), so that a receiver with SO_PASSCRED sees the
 * caller, not the supervisor the kernel would name; with @vouch (its
 * credentials checked already: broker_cmsg_vet()), vouched for.
 * Return: as sendmsg(2).
 */
ssize_t broker_send_as(const struct broker_call *c, struct msghdr *m, int flags,
		       int *pin, bool vouch);

/* sendmsg and sendmmsg (broker_msg.c). */
long broker_sendmsg(const struct broker_call *c);
long broker_sendmmsg(const struct broker_call *c);

#endif
