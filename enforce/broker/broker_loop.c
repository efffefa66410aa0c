/*
 * broker_loop.c - pathname UNIX sockets (and every address the command
 * connects or sends to) decided outside the sandbox: a seccomp
 * user-notification filter in the command, served by the supervisor.
 *
 * Why a broker.  Landlock (up to ABI 8) does not check connect() or a
 * send to a socket file.  The mount namespace keeps the host's paths and
 * covers the sockets that exist at the start (covers.c); a socket that a
 * process outside binds later stays reachable.  A fresh pivot_root world
 * holding only the granted roots would hide the directories the command
 * may not see, but not a socket bound later inside a root it may read (a
 * bind mount shows new entries): that case needs the broker anyway, and
 * the broker alone closes every case, with one mechanism and without
 * rebuilding the world.  It costs a round trip to the supervisor per
 * connect, per sendto with an address and per sendmsg, nothing for
 * read, write, send, or sendto without an address (the filter answers
 * those in the kernel).
 *
 * Cost (scripts/bench/unixconnect.c, 2 vCPU VM, Linux 6.18, machine
 * shared, so +-20%), per call to an allowed UNIX socket, seccomp alone
 * -> brokered: connect+close ~11 -> ~31-37 us (was ~68-77 before this
 * rework; ~45-55 us since a UNIX one goes through the deputy, broker_
 * deputy.c); sendmsg of 64 bytes with an address ~9 -> ~35-40 us (was
 * ~60-74); sendto with an address (each shim record) ~8 -> ~32-35 us
 * (was ~56-71); write, not handed over, unchanged.  Where it went:
 *  - without SYNC_WAKE_UP each wake-up crossed CPUs: ~50 us a round
 *    trip on this VM, ~6 us with it (a bare RECV/SEND loop);
 *  - the leader handed every call to a worker (condvar, one more
 *    context switch): now the thread that receives a call performs it;
 *  - per call it saves pidfd_open and its close (a pidfd per thread is
 *    kept), /proc/PID/root's open and close (kept with it), the
 *    readlink of the socket's path (a path through no symlink is its
 *    own resolution), SO_TYPE (asked on a failure only), F_GETFL (asked
 *    only when a send would wait), one process_vm_readv (the address
 *    read with the data or the iovec array).
 * What is left is ~10 system calls (poll, RECV, pidfd_getfd, 1-3
 * process_vm_readv, openat2, ID_VALID, the call, two closes, SEND),
 * measured at 2-3 us each in the broker right after the switch from
 * the command, against 0.3-1.5 us in a warm loop (why, not pinned
 * down: no IBPB or PTI here; cold caches on a VM), and the two
 * switches.  The 1.5x is out of reach for seccomp user
 * notification on this machine: the bare round trip alone is half a
 * plain connect; Landlock's RESOLVE_UNIX (ABI 9) is the way to it
 * where the kernel has it.
 *
 * The filter (broker_install) is stacked on sysfilter.c's, whose ERRNO
 * answers still win over its NOTIFY.  It hands over connect, sendto
 * with an address (arg 4 not NULL), sendmsg and sendmmsg, of every
 * family: the broker cannot check a socket's family and answer
 * "continue", since another thread of the command could dup2() a UNIX
 * socket over the same number between the check and the continued call.
 * So the broker performs every such call itself, on the command's own
 * socket (pidfd_getfd), with a copy of the address and data read once
 * (broker_call.c, broker_msg.c), and answers with the call's result:
 *  - AF_UNIX with a path: resolved in the command's root and working
 *    directory, decided with policy_unix_allowed() (a writable root or
 *    --connect-unix) on the path of the inode opened, performed through
 *    that very inode ("/proc/self/fd/N"); refused: EACCES and a record;
 *    in /tmp and /var/tmp, shared with the host, only the command's own
 *    (its network namespace's, or with the network shared one it bound:
 *    broker_own.c);
 *  - AF_UNIX abstract: the command's own (as above) performed, others
 *    EPERM, as Landlock's scope answers for a socket outside the domain
 *    (the broker, outside it, tells them apart itself);
 *  - AF_INET, AF_INET6 on a stream socket: policy_tcp_allowed() (EACCES,
 *    as Landlock), then performed in the command's network namespace
 *    (the socket's own);
 *  - anything else, or no address: performed as asked.
 * With the network shared it also takes bind() (noted, then made by the
 * kernel: broker_own.c argues why that CONTINUE is safe), and with TCP
 * ports allowed listen(), performed on the command's socket unless it
 * would bind an ephemeral port (never CONTINUE: a dup2() could put an
 * unbound TCP socket under the number checked).
 * WAIT_KILLABLE_RECV: once the broker has taken a call, only a fatal
 * signal ends the command's wait, so a signal cannot make it retry a
 * send the broker already made (a handler without SA_RESTART sees no
 * EINTR from a connect the broker performs).
 *
 * What a peer sees: a UNIX connect or listen is made by the deputy
 * (broker_deputy.c), so SO_PEERCRED names its pid (same user, no
 * capability); the credentials the kernel attaches to a send name the
 * supervisor's under a user's supervisor, the caller's own under a root
 * one; SCM_CREDENTIALS the
 * command writes are its own or refused (broker_cmsg.c; broker.h has
 * the review of what the supervisor's identity could lend).  O_NONBLOCK,
 * timeouts and the send flags act as they would: the open file
 * description is the command's own.
 * The broker resolves with RESOLVE_NO_MAGICLINKS: a socket named
 * through /proc/PID/fd/N is refused (ELOOP).
 *
 * Handing over the listener: the filter is installed in the process
 * that will become (or start) the command, which gives the listener by
 * number over a stream socket (broker_give_listener()); the supervisor
 * takes it with pidfd_getfd() from the pid SO_PASSCRED names
 * (broker_take_listener()).  SCM_RIGHTS cannot carry it: once the
 * filter is in, that sendmsg() would wait for the broker itself.
 *
 * Root: a supervisor run as root holds every capability, which the
 * command lacks; each worker clears its own thread's effective set but
 * CAP_SYS_PTRACE (broker_caps.c), so that the broker's openat2, connect
 * and sends meet the permissions and checks the command would meet.
 *
 * Threads: the leader waits for the next notification and performs it
 * itself, then waits again: no lock, no other thread woken on the way.
 * A call that may wait must not hold up the others (a connect blocked
 * on a full backlog while another thread of the command would empty
 * it): a send is first tried with MSG_DONTWAIT, and only when it would
 * wait is the lead passed to an idle worker (broker_may_block()); a
 * connect has no such per-call flag, so an idle worker watches: while
 * calls come it looks every WATCH_MS, and if the leader is still in the
 * call it was in last time, takes the lead over (the slow call goes on
 * in its thread, answered when done).  Asleep when no call comes, the
 * watcher is armed again by the next call (one wake-up per burst, not
 * per call).  Past BROKER_THREADS_MAX threads, notifications wait in
 * the kernel.  The supervisor's own loop is untouched.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "enforce/broker/broker_int.h"
#include "enforce/broker/broker_deputy.h"
#include "enforce/base/base.h"
#include "shim/core/rule.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	   SECCOMP_IOW(4, __u64)
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* How long a call may hold the lead before the watcher takes it over
 * (a connect blocked on a full backlog), in ms. */
#define WATCH_MS 10

/* Called with b->mu held, and releases it: the last reference frees. */
static void unref_unlock(struct broker *b)
{
	bool last = --b->refs == 0;

	pthread_mutex_unlock(&b->mu);
	if (!last)
		return;
	close(b->listener);
	if (b->stopfd >= 0)
		close(b->stopfd);
	broker_own_free(b->own);
	broker_deputy_stop(b->dep);
	pthread_cond_destroy(&b->cv);
	pthread_cond_destroy(&b->watch_cv);
	pthread_mutex_destroy(&b->mu);
	free(b);
}

/* With b->mu held: a listen() refused (broker_listen()).  --bind PORT
 * cannot allow it (the port is random); --bind 0 and --net do. */
static void note_listen(struct broker *b, const struct broker_denial *d)
{
	json_t *more = json_pack("{s:s, s:s, s:s}", "destination", d->dest,
				 "allow", "with --net", "layer", "kernel");
	json_t *rec = more ? record_new(RECORD_KERNEL, d->op, "deny",
					RULE_LISTEN, more)
			   : NULL;

	json_decref(more);
	if (rec)
		b->record(b->arg, rec);
}

static void note(struct broker *b, const struct broker_denial *d)
{
	char rule_buf[1024], allow_buf[PATH_BUF + 64];
	struct strbuf rule = STRBUF(rule_buf, sizeof(rule_buf));
	struct strbuf allow = STRBUF(allow_buf, sizeof(allow_buf));
	json_t *more, *rec;

	pthread_mutex_lock(&b->mu);
	if (b->stopped || !b->record || d->dest[0]) {
		if (!b->stopped && b->record)
			note_listen(b, d);
		pthread_mutex_unlock(&b->mu);
		return;
	}
	if (d->shared)
		sb_puts(&rule, "a socket of a process outside, in a temp dir "
			       "shared with the host");
	else
		rule_put(&rule, b->p, RIGHT_U, d->resolved);
	sb_puts(&allow, "with ");
	if (!rule_put_option(&allow, b->p, d->op, RIGHT_U, d->resolved))
		allow.len = 0;
	more = json_pack("{s:s, s:s, s:i, s:s}", "path", d->given, "resolved",
			 d->resolved, "need", RIGHT_U, "layer", "kernel");
	if (more && allow.len)
		json_object_set_new(more, "allow", json_string(allow_buf));
	rec = record_new(RECORD_KERNEL, d->op, "deny", rule_buf, more);
	json_decref(more);
	if (rec)
		b->record(b->arg, rec);
	pthread_mutex_unlock(&b->mu);
}

/* Wait for the next notification.  Return: 1 got one, 0 none (the call
 * vanished: try again), -1 stop. */
static int next(struct broker *b, struct seccomp_notif *n)
{
	struct pollfd pfd[2] = {
		{ .fd = b->listener, .events = POLLIN },
		{ .fd = b->stopfd, .events = POLLIN },
	};

	if (poll(pfd, 2, -1) < 0)
		return errno == EINTR ? 0 : -1;
	if (pfd[1].revents)
		return -1;
	if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
		return -1; /* no process carries the filter any more */
	if (!(pfd[0].revents & POLLIN))
		return 0;
	memset(n, 0, sizeof(*n));
	if (ioctl(b->listener, SECCOMP_IOCTL_NOTIF_RECV, n))
		return errno == ENOENT || errno == EINTR ? 0 : -1;
	return 1;
}

static void answer(struct broker *b, const struct seccomp_notif *n)
{
	struct seccomp_notif_resp r = { .id = n->id };
	struct broker_denial *d = malloc(sizeof(*d));
	long ret = d ? broker_perform(b, b->listener, n, d) : -ENOMEM;

	if (ret == BROKER_CONTINUE)
		r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	else if (ret < 0)
		r.error = (int)ret;
	else
		r.val = ret;
	/* The record first: it is kept before the command hears of it. */
	if (d && d->op)
		note(b, d);
	free(d);
	/* ENOENT: the command died meanwhile; nothing to tell. */
	ioctl(b->listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
}

static void *worker(void *arg);

/* With b->mu held: one more thread, which takes a reference.  It
 * blocks every signal: the supervisor's own thread takes them (a
 * forwarded Ctrl-C), and none interrupts a call the broker performs. */
static void spawn(struct broker *b)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;

	if (b->threads >= BROKER_THREADS_MAX || pthread_attr_init(&attr))
		return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256u << 10);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!pthread_create(&t, &attr, worker, b)) {
		b->threads++;
		b->refs++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

/* The lead this thread holds (b->lead_gen when it took it), or 0. */
static _Thread_local unsigned long my_lead;

static bool is_leading(struct broker *b)
{
	return my_lead && my_lead == atomic_load(&b->lead_gen);
}

/* With b->mu held: the lead is free; an idle worker (or a new one)
 * takes it. */
static void free_lead(struct broker *b)
{
	atomic_fetch_add(&b->lead_gen, 1);
	b->led = false;
	if (b->idle) {
		pthread_cond_signal(&b->cv);
		pthread_cond_signal(&b->watch_cv);
	} else {
		spawn(b);
	}
}

static void pass_lead(struct broker *b)
{
	pthread_mutex_lock(&b->mu);
	if (is_leading(b))
		free_lead(b);
	my_lead = 0;
	pthread_mutex_unlock(&b->mu);
}

/* Wait for notifications and perform each in this thread, until another
 * took the lead (broker_may_block(), or the watcher: the call being
 * performed waited too long) or the broker ends.  No lock on the way,
 * and no other thread woken while the watcher is armed. */
static void lead(struct broker *b)
{
	unsigned long gen = my_lead, mine;
	struct seccomp_notif n;
	int got = 0;

	while (is_leading(b)) {
		got = next(b, &n);
		if (got < 0)
			break;
		if (!got)
			continue;
		atomic_fetch_add(&b->calls, 1);
		atomic_store(&b->busy, gen);
		if (!atomic_load(&b->armed)) {
			pthread_mutex_lock(&b->mu);
			atomic_store(&b->armed, true);
			pthread_cond_signal(&b->watch_cv);
			pthread_mutex_unlock(&b->mu);
		}
		answer(b, &n);
		/* Cleared only if still this lead's: a new leader's stays. */
		mine = gen;
		atomic_compare_exchange_strong(&b->busy, &mine, 0);
	}
	pthread_mutex_lock(&b->mu);
	if (got < 0)
		b->ending = true;
	if (is_leading(b)) {
		atomic_fetch_add(&b->lead_gen, 1);
		b->led = false;
	}
	my_lead = 0;
	pthread_mutex_unlock(&b->mu);
}

static void deadline(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_nsec += WATCH_MS * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* With b->mu held, as the one idle worker that watches: every WATCH_MS
 * while calls come, look whether the leader is still in the call it was
 * in last time; if so, free the lead (free_lead()), for this thread or
 * another to take.  Asleep while no call comes (the leader arms it
 * again).  Return when the lead is free or the broker ends. */
static void watch(struct broker *b)
{
	unsigned long seen = atomic_load(&b->calls), now;
	struct timespec ts;
	bool busy;

	b->watching = true;
	while (!b->ending && b->led) {
		if (atomic_load(&b->armed)) {
			deadline(&ts);
			pthread_cond_timedwait(&b->watch_cv, &b->mu, &ts);
		} else {
			pthread_cond_wait(&b->watch_cv, &b->mu);
		}
		if (b->ending || !b->led)
			break;
		now = atomic_load(&b->calls);
		busy = atomic_load(&b->busy) == atomic_load(&b->lead_gen);
		if (now == seen && busy) {
			free_lead(b); /* the same call for WATCH_MS at least */
			break;
		}
		if (now == seen) {
			/* Quiet: sleep until the next call arms the watch
			 * again (the leader sets in_call before it reads
			 * armed, so one of the two sees the other). */
			atomic_store(&b->armed, false);
			if (atomic_load(&b->busy))
				atomic_store(&b->armed, true);
		}
		seen = now;
	}
	b->watching = false;
}

static void *worker(void *arg)
{
	struct broker *b = arg;

	broker_caps_drop();
	pthread_mutex_lock(&b->mu);
	while (!b->ending) {
		if (!b->led) {
			b->led = true;
			my_lead = atomic_fetch_add(&b->lead_gen, 1) + 1;
			/* A spare worker, to watch this lead. */
			if (!b->idle)
				spawn(b);
			pthread_mutex_unlock(&b->mu);
			lead(b);
			pthread_mutex_lock(&b->mu);
			continue;
		}
		b->idle++;
		if (!b->watching)
			watch(b);
		else
			pthread_cond_wait(&b->cv, &b->mu);
		b->idle--;
	}
	pthread_cond_broadcast(&b->cv);
	pthread_cond_broadcast(&b->watch_cv);
	b->threads--;
	unref_unlock(b);
	broker_forget_targets();
	broker_deputy_forget();
	return NULL;
}

int broker_start(struct broker **bp, int listener, const struct policy *p,
		 void (*record)(void *arg, json_t *rec), void *arg)
{
	struct broker *b = calloc(1, sizeof(*b));
	pthread_condattr_t ca;

	*bp = NULL;
	if (!b) {
		close(listener);
		return -ENOMEM;
	}
	b->listener = listener;
	b->p = p;
	b->pass_lead = pass_lead;
	b->own = broker_own_new();
	/* before the command runs: forked while nothing of its is held */
	b->dep = broker_deputy_start();
	if (!b->dep) {
		int err = errno;

		broker_own_free(b->own);
		close(listener);
		free(b);
		return -err;
	}
	b->record = record;
	b->arg = arg;
	b->refs = 1;
	atomic_init(&b->lead_gen, 0);
	atomic_init(&b->calls, 0);
	atomic_init(&b->busy, 0);
	atomic_init(&b->armed, false);
	b->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	/* Linux 6.6: wake the broker on the CPU of the calling thread, and
	 * the thread on the broker's, as a synchronous call; without it each
	 * wake-up crosses CPUs (~50 us a round trip here, ~6 us with it).  An
	 * older kernel says EINVAL: the calls are only slower. */
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	      SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->watch_cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_lock(&b->mu);
	if (b->stopfd >= 0)
		spawn(b);
	if (!b->threads) {
		b->stopped = b->ending = true;
		unref_unlock(b);
		return -EAGAIN;
	}
	pthread_mutex_unlock(&b->mu);
	*bp = b;
	return 0;
}

void broker_stop(struct broker *b)
{
	uint64_t one = 1;

	if (!b)
		return;
	pthread_mutex_lock(&b->mu);
	b->stopped = b->ending = true;
	pthread_cond_broadcast(&b->cv);
	pthread_cond_broadcast(&b->watch_cv);
	/* EAGAIN: the counter is full, the leader woken already. */
	if (write(b->stopfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		b->ending = true;
	unref_unlock(b);
}
