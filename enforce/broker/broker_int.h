/*
 * broker_int.h - what the broker's files share: the running broker, one
 * notified call and the steps of performing it.  Not for use outside
 * enforce/broker/ (and its unit tests); the rest of cordon knows the
 * broker by broker.h alone.
 *
 * The files, top to bottom (each calls only those below it):
 * broker_loop.c (threads, notifications, answers, records) ->
 * broker_call.c (one call dispatched: connect, sendto) ->
 * broker_msg.c (sendmsg, sendmmsg) -> broker_hold.c (bind, listen, a
 * call to a socket the command owns, held) and broker_vet.c (the
 * address decided) -> broker_io.c (the caller's memory, its socket) ->
 * broker_gate.c (the policy asked, under the broker's lock) ->
 * broker_own.c (the command's own sockets), broker_deputy.c,
 * broker_cmsg.c, broker_caps.c, unixdiag.c.
 */
#ifndef CORDON_BROKER_INT_H
#define CORDON_BROKER_INT_H

#include <jansson.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <stdint.h>
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

/* The running broker (broker_loop.c starts and stops it). */
struct broker {
	int listener;
	int stopfd; /* an eventfd: wakes the leader */
	const struct policy *p;
	struct broker_own *own;	   /* the sockets the command bound */
	struct broker_deputy *dep; /* UNIX connect, listen (broker_deputy.c) */
	void (*record)(void *arg, json_t *rec);
	void *arg;
	pthread_mutex_t mu;
	pthread_cond_t cv;	 /* idle workers */
	pthread_cond_t watch_cv; /* the watcher */
	/* how a thread that may block passes the lead on (broker_loop.c):
	 * broker_may_block() calls it */
	void (*pass_lead)(struct broker *b);
	bool stopped;  /* broker_stop() called: no decision, no record */
	bool ending;   /* stopped, or the listener hung up: threads end */
	bool led;      /* a thread leads (waits for notifications) */
	bool watching; /* an idle worker watches the leader */
	unsigned int threads, idle, refs;
	/* Written by the leader without the lock: */
	atomic_ulong lead_gen; /* which lead is current (under mu) */
	atomic_ulong calls;    /* notifications taken, ever */
	atomic_ulong busy;     /* the lead_gen of a leader in a call, or 0 */
	atomic_bool armed;     /* the watcher looks every WATCH_MS */
};

/* What broker_perform() returns for a call the kernel is to make as
 * asked (SECCOMP_USER_NOTIF_FLAG_CONTINUE): a bind() (broker_hold.c). */
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

/* The decisions, taken under the broker's lock (broker_gate.c): false
 * once the broker is stopping. */
/* The socket file @path, opened as @fd: 0 allowed, -EACCES refused by
 * the policy, -EEXIST a socket of the host's in a temp dir shared with
 * it (policy_unix_shared(), unixdiag.h), -ECONNREFUSED none bound there
 * (the network shared: answer so without making the call). */
int broker_may_unix(struct broker *b, const char *path, int fd);
/* May TCP @port be connected to (or bound, with @bind)? */
bool broker_may_tcp(struct broker *b, bool bind, unsigned int port);
/* May a TCP socket of @port listen (policy_listen_allowed())? */
bool broker_may_listen(struct broker *b, unsigned int port, bool listening);

/* The sockets the command bound (broker_own.c), or NULL. */
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

/* The sockets the command owns (broker_own.c) and the calls made on
 * them (broker_hold.c), with the network shared. */
struct broker_own;

/* The sockets the command bound: an empty set, or NULL out of memory. */
struct broker_own *broker_own_new(void);
void broker_own_free(struct broker_own *o);

/* Note the socket of cookie @cookie, bound by thread @tid (the
 * supervisor's pid) at its descriptor @fd, as the command's. */
void broker_own_add(struct broker_own *o, uint64_t cookie, pid_t tid, int fd);

/* @fd's SO_COOKIE into *@cookie.  Return: true when the kernel said. */
bool broker_own_cookie(int fd, uint64_t *cookie);

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
 * held (a descriptor of it taken from a process of the command's: the
 * thread that bound it, else @caller, the thread calling) so
 * that its name cannot be released and bound by another until the call
 * is made.  Return: that descriptor (close it after the call),
 * -ECONNREFUSED when none is bound there (answer so, without making the
 * call), or -EPERM, as Landlock's scope refuses one bound outside.
 */
int broker_own_abstract(struct broker_own *o, pid_t caller, const char *name,
			size_t len);

/**
 * broker_connect_held - connect() the command's socket to @ss (@len),
 * the address broker_vet() decided on, whose socket *@pin holds when it
 * is abstract; a wait there is bounded by checks of the name (see
 * broker_hold.c), after which *@pin may be another descriptor, or -1.
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
