/*
 * broker.h - the broker (enforce/broker/): connect() and the sends that
 * carry an address, bind() and listen(), performed outside the sandbox by
 * the supervisor, so that a pathname UNIX socket bound after the start is
 * reached only when the policy grants it (broker_loop.c argues the
 * design; broker_int.h says how its files call each other).  The folder's
 * whole interface: the rest of cordon includes this alone.
 *
 * A deputy: the broker acts as the supervisor (its pid, its threads'
 * credentials, its namespaces, root and descriptors), and must lend the
 * command none of it.  Review of every brokered call (issue 27):
 *
 * call / part           could lend                 now
 * --------------------  -------------------------  ---------------------
 * every call            root's capabilities (DAC   worker threads clear
 *                       override, SYS_ADMIN, NET_  their effective set
 *                       ADMIN, SYS_RESOURCE...)    but SYS_PTRACE
 *                                                  (broker_caps.c)
 * arguments             the command's memory       copied once
 *                       changing between check     (process_vm_readv);
 *                       and use (TOCTOU)           checked and used from
 *                                                  the copy only
 * socket                another's socket           the calling thread's,
 *                                                  pidfd_getfd
 * UNIX path             the supervisor's root,     resolved in the
 *                       cwd and mount namespace    caller's /proc/PID/
 *                                                  root and cwd, called
 *                                                  through the inode
 * abstract name, TCP,   the supervisor's network   the socket's own
 * UDP                   namespace                  (fixed at socket())
 * SCM_CREDENTIALS       root names any pid, uid,   only the caller's own
 *                       gid (the attack)           (broker_cmsg.c),
 *                                                  vouched for that send
 *                                                  alone; a user's
 *                                                  supervisor: EPERM
 * credentials the       the supervisor's pid, to   root: the caller's own
 * kernel attaches       a receiver trusting it     attached (broker_send_
 * (SO_PASSCRED)         (a notify socket's main    as); a user's: not
 *                       pid, a journal's sender)   equal, see below
 * SCM_RIGHTS            the supervisor's fds at    each taken from the
 *                       the numbers named; its     caller; the walk is
 *                       heap, where glibc's        the kernel's (broker_
 *                       CMSG_NXTHDR walked past    cmsg_next), checked
 *                       the copy                   before any is taken
 * other control data    SO_MARK, SO_PRIORITY, IP   EPERM (a user owns
 *                       options: NET_ADMIN/RAW     the command's netns)
 * MSG_ZEROCOPY          the supervisor's heap,     dropped: copied
 *                       sent after free
 * bind (net shared)     -                          CONTINUE: the caller's
 *                                                  own context
 * listen (TCP ports)    an ephemeral port          refused unless a
 *                                                  --bind port
 * UNIX connect, UNIX     the supervisor's pid in    connect/listen
 * listen (the peer's     SO_PEERCRED/SO_PEERPIDFD:  performed by a
 * credentials, taken     a peer reading /proc/PID/  capability-less
 * from the task that     status (sd_bus, polkit)    deputy (broker_
 * calls)                 found root's capabilities  deputy.c); the peer
 *                                                  sees the deputy's
 *                                                  pid, no capability;
 *                                                  the pid is not the
 *                                                  caller's
 *
 * Not made equal (doc/security.md, "The UNIX-socket broker"): the
 * kernel takes a peer's identity from the task that calls, and seccomp user
 * notification cannot make a call in the caller's task (CONTINUE
 * re-reads the address from its memory: the races above).  So a
 * brokered UNIX connect's SO_PEERCRED and SO_PEERPIDFD, and a brokered
 * UNIX listen()'s (its clients'), name the deputy: the supervisor's uid,
 * gid and groups (the command's), no capability, but not the caller's
 * pid, and its cgroup and LSM label are the supervisor's side (which
 * also decide cgroup BPF and LSM checks of the call).  Still made by the
 * broker itself: a connect to an abstract name of the host's network
 * namespace that the broker holds while it waits (broker_hold.c: the
 * hold's timer interrupts the broker's own thread): only a socket the
 * command bound is reached so, and that peer, the command's own, sees
 * the supervisor; and, under a user's supervisor (which may not name another
 * pid), the credentials the kernel attaches to a send (receiver with
 * SO_PASSCRED) name the supervisor's pid.
 */
#ifndef CORDON_BROKER_H
#define CORDON_BROKER_H

#include <jansson.h>
#include <stddef.h>

#include "shim/core/policy.h"

struct broker;

/* The most notifications performed at once; past it they wait in the
 * kernel, in order. */
#define BROKER_THREADS_MAX 64

/**
 * broker_install - in the command's process, after sysfilter_apply()
 * (NO_NEW_PRIVS set): stack the filter that hands connect, sendto with
 * an address, sendmsg and sendmmsg to the supervisor, and with the
 * network @net shared bind(), with TCP ports allowed listen() too; with
 * @listen_only (Landlock holds the UNIX sockets), listen() alone, with
 * TCP ports allowed.  Every thread the process starts afterwards, and
 * every program it executes, carries it.
 *
 * Return: 0 with the listener (close-on-exec) in *@listener, to send
 * outside and close; or -errno with @err set.
 */
int broker_install(enum net_mode net, bool listen_only, int *listener,
		   char *err, size_t errlen);

/**
 * broker_give_listener - in the command's process (or the namespace's
 * pid 1 before it starts the command): tell the supervisor, over the
 * stream socket @sock it shares with it, the number of @listener, and
 * wait until it has taken the descriptor (broker_take_listener()).  By
 * number, not SCM_RIGHTS: once the filter is in, a sendmsg() waits for
 * the broker, which has no listener yet.  Close @listener afterwards.
 * Async-signal-safe.  Return: 0, or -errno.
 */
int broker_give_listener(int sock, int listener);

/**
 * broker_take_listener - in the supervisor: the listener the process at
 * the other end of @sock (SO_PASSCRED set on it before the fork, so the
 * kernel names the sender's pid in this PID namespace) gives, taken with
 * pidfd_getfd().  Return: 0 with *@listener, or -errno (-EPIPE: the
 * other end closed, having given none).
 */
int broker_take_listener(int sock, int *listener);

/**
 * broker_start - in the supervisor: serve @listener (taken: closed by
 * broker_stop()) with @p, which must outlive broker_stop().  A refusal
 * is answered EACCES and given as a record (record_new(), RECORD_KERNEL)
 * to @record, called from a thread of the broker's, never two at once,
 * never after broker_stop() returned; @record takes the record.
 *
 * Return: 0, or -errno (no thread could be started).
 */
int broker_start(struct broker **b, int listener, const struct policy *p,
		 void (*record)(void *arg, json_t *rec), void *arg);

/* Stop serving.  A call already being performed (a connect blocked on a
 * full backlog) finishes on its own, answered, without @record. */
void broker_stop(struct broker *b);

#endif
