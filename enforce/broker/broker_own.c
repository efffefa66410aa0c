/*
 * broker_own.c - with the network shared (--net, --connect, --bind), the
 * command lives in the host's network namespace: a socket it binds in
 * /tmp, or at an abstract name, sits beside the host's, and the broker,
 * which decides outside the command's Landlock domain, must tell them
 * apart (with the network off the command's own namespace tells).
 *
 * How: every bind() of the command is handed to the broker (the filter
 * does so only with the network shared), which notes the socket as the
 * command's own when it is an AF_UNIX socket not bound yet, by its
 * cookie (SO_COOKIE: unique while the system runs, unlike an inode
 * number), with the thread and the descriptor number that bound it; then
 * the kernel performs the bind itself (SECCOMP_USER_NOTIF_FLAG_CONTINUE),
 * under Landlock and the mounts.  At a connect or a send to a socket in
 * a shared temp dir, or to an abstract name, the socket bound there is
 * found with sock_diag (unixdiag.c: by the file's inode, or by name) and
 * reached only when its cookie is the command's.
 *
 * Why CONTINUE is safe here: the note says "the command held this
 * socket", which stays true whatever another thread does meanwhile.  A
 * dup2() of another socket over the number between the note and the
 * bind binds a socket never noted: the command's own then stays
 * unreachable (fails closed), and nothing of the host's is ever noted:
 * a socket the command holds that is already bound (one a process
 * outside passed it: a listener, a connection accepted from one) is not
 * noted, so holding a host's connection never opens its listener.
 *
 * Why no race at the use:
 *  - a socket file's inode names one socket for good: bind() always
 *    makes a new file, so the socket found bound at the inode the broker
 *    opened (broker_call.c connects through that very inode) is the one
 *    the connect reaches, or none;
 *  - an abstract name is free again once its socket is released, and
 *    another process could bind it between the check and the call: the
 *    broker holds the socket checked (a descriptor taken with
 *    pidfd_getfd() from the thread that bound it, or from a process of
 *    the command holding it, its cookie checked) until the call is made,
 *    so the name stays that socket's.  When no process the broker knows
 *    holds it any more (the binder ended, its heir elsewhere), it is
 *    refused: fails closed.  Held, the socket cannot end while the call
 *    waits on it (a full backlog or queue): so a call that waits is
 *    interrupted every HOLD_CHECK_MS (a timer's signal to the broker's
 *    thread, whose connect() or send then fails EINTR, having done
 *    nothing), the hold let go and the name checked again; when the
 *    command still holds its socket the call is made again, else it
 *    fails as the kernel's own retry would (ECONNREFUSED, nothing bound
 *    any more; EPERM, bound outside meanwhile).
 *
 * Weighed against "held by a process of the sandbox" for every check
 * (each process's /proc/PID/fd read per connect: O(descriptors of the
 * tree), milliseconds for a build) this costs one round trip per bind
 * (rare: servers, not clients; ~12 us) and one sock_diag dump of the
 * host's UNIX sockets per connect or send into a shared temp dir or to
 * an abstract name (~30 us here: the kernel walks its whole table,
 * locking each bucket; scripts/bench/unixconnect.c), nothing for the
 * rest.  A socket the command bound and then handed to a process
 * outside stays reachable: it was the command's to give.  A socket
 * autobound by the kernel without bind() (a datagram sender with
 * SO_PASSCRED) is not noted: a reply to its abstract name is refused.
 * At most OWN_MAX sockets are remembered: when the set is full those
 * closed since are dropped, and past OWN_MAX live ones a slot is reused
 * in turn (that socket refused from then on).
 *
 * This file keeps the set of the command's sockets and finds them;
 * broker_hold.c makes the calls (bind, listen, and a call held).
 *
 * Runs in the broker's worker threads.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "enforce/broker/broker_int.h"
#include "enforce/broker/unixdiag.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

#define OWN_MAX 1024
/* Descriptors looked at in one process's /proc/PID/fd, at most. */
#define SCAN_MAX 4096

struct own_entry {
	uint64_t cookie;
	pid_t tid; /* the thread that bound it, in the supervisor's pids */
	int fd;	   /* its number there */
};

struct broker_own {
	pthread_mutex_t mu;
	size_t n, next;
	struct own_entry e[OWN_MAX];
};

struct broker_own *broker_own_new(void)
{
	struct broker_own *o = calloc(1, sizeof(*o));

	if (o)
		pthread_mutex_init(&o->mu, NULL);
	return o;
}

void broker_own_free(struct broker_own *o)
{
	if (!o)
		return;
	pthread_mutex_destroy(&o->mu);
	free(o);
}

/* With o->mu held, the set full: keep only the entries whose socket
 * still exists (one dump of the namespace's sockets, a rare event). */
struct live {
	struct broker_own *o;
	bool alive[OWN_MAX];
};

static bool mark(void *arg, const struct unixdiag_sock *s)
{
	struct live *l = arg;

	for (size_t i = 0; i < l->o->n; i++)
		if (l->o->e[i].cookie == s->cookie)
			l->alive[i] = true;
	return false;
}

static void prune(struct broker_own *o)
{
	static __thread struct live l;
	size_t kept = 0;

	memset(&l, 0, sizeof(l));
	l.o = o;
	if (unixdiag_each(NULL, mark, &l) < 0)
		return;
	for (size_t i = 0; i < o->n; i++)
		if (l.alive[i])
			o->e[kept++] = o->e[i];
	o->n = kept;
	o->next = kept % OWN_MAX;
}

/* Past OWN_MAX live ones, the oldest slot in turn is reused. */
void broker_own_add(struct broker_own *o, uint64_t cookie, pid_t tid, int fd)
{
	pthread_mutex_lock(&o->mu);
	if (o->n == OWN_MAX)
		prune(o);
	o->e[o->next] = (struct own_entry){ cookie, tid, fd };
	o->next = (o->next + 1) % OWN_MAX;
	if (o->n < OWN_MAX)
		o->n++;
	pthread_mutex_unlock(&o->mu);
}

/* The entry of @cookie, copied into @e. */
static bool own_find(struct broker_own *o, uint64_t cookie, struct own_entry *e)
{
	bool found = false;

	pthread_mutex_lock(&o->mu);
	for (size_t i = 0; i < o->n && !found; i++) {
		found = o->e[i].cookie == cookie;
		if (found)
			*e = o->e[i];
	}
	pthread_mutex_unlock(&o->mu);
	return found;
}

bool broker_own_cookie(int fd, uint64_t *cookie)
{
	socklen_t len = sizeof(*cookie);

	return getsockopt(fd, SOL_SOCKET, SO_COOKIE, cookie, &len) == 0 &&
	       len == sizeof(*cookie);
}

/* What unixdiag_each() looks for: a socket of the command's. */
struct hit {
	struct broker_own *o;
	struct own_entry e;
	struct unixdiag_sock s;
	/* a socket there that a connect or send could reach: listening, or
	 * a datagram one (the connections accepted from a listener carry
	 * its address too, and reach nothing) */
	bool bound;
};

static bool is_own(void *arg, const struct unixdiag_sock *s)
{
	struct hit *h = arg;

	h->s = *s;
	h->bound |= s->state == UNIXDIAG_LISTEN || s->type == SOCK_DGRAM;
	return own_find(h->o, s->cookie, &h->e);
}

/* Where no socket of this namespace that a call could reach is bound,
 * the call is answered ECONNREFUSED, as the kernel answers, and never
 * made: a socket bound there by a process of another network namespace
 * (a container's, in a directory it shares) is no more the command's,
 * and an abstract name bound meanwhile is not the one checked. */
static int verdict(int found, const struct hit *h)
{
	if (found == 1)
		return 0;
	return found == 0 && !h->bound ? -ECONNREFUSED : -EPERM;
}

int broker_own_file(struct broker_own *o, dev_t dev, ino_t ino)
{
	const struct unixdiag_at at = { .dev = dev, .ino = ino };
	struct hit h = { .o = o };

	return o ? verdict(unixdiag_each(&at, is_own, &h), &h) : -EPERM;
}

/* The socket of cookie @cookie, taken from descriptor @fd of @pidfd. */
static int take_if(int pidfd, int fd, uint64_t cookie)
{
	uint64_t got;
	int s = pidfd_getfd(pidfd, fd, 0);

	if (s >= 0 && broker_own_cookie(s, &got) && got == cookie)
		return s;
	if (s >= 0)
		close(s);
	return -1;
}

/* The number a /proc/PID/fd entry names, or -1. */
static int fd_number(const char *name)
{
	char *end;
	unsigned long n = strtoul(name, &end, 10);

	return *name && !*end && n <= INT_MAX ? (int)n : -1;
}

/* The socket @h found, taken from thread @tid: at @fd (-1: unknown),
 * else wherever its descriptors show "socket:[INO]". */
static int take_from(pid_t tid, int fd, const struct hit *h)
{
	char proc[64], link[64], want[32];
	int pidfd, s = -1, seen = 0;
	struct dirent *d;
	DIR *dir;

	pidfd = pidfd_open(tid, PIDFD_THREAD);
	if (pidfd < 0 && errno == EINVAL)
		pidfd = pidfd_open(tid, 0);
	if (pidfd < 0)
		return -1;
	if (fd >= 0)
		s = take_if(pidfd, fd, h->s.cookie);
	snprintf(proc, sizeof(proc), "/proc/%d/fd", (int)tid);
	snprintf(want, sizeof(want), "socket:[%u]", h->s.ino);
	dir = s < 0 ? opendir(proc) : NULL;
	while (dir && s < 0 && seen++ < SCAN_MAX && (d = readdir(dir))) {
		char path[320];
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s", proc, d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!strcmp(link, want))
			s = take_if(pidfd, fd_number(d->d_name), h->s.cookie);
	}
	if (dir)
		closedir(dir);
	close(pidfd);
	return s;
}

int broker_own_abstract(struct broker_own *o, pid_t caller, const char *name,
			size_t len)
{
	const struct unixdiag_at at = { .name = name, .len = len };
	struct hit h = { .o = o };
	int s;

	s = h.o ? verdict(unixdiag_each(&at, is_own, &h), &h) : -EPERM;
	if (s)
		return s;
	s = take_from(h.e.tid, h.e.fd, &h);
	if (s < 0 && h.e.tid != caller)
		s = take_from(caller, -1, &h);
	if (s >= 0)
		return s;
	/* Released meanwhile (ECONNREFUSED, as the kernel would say then),
	 * or held where the broker does not look (refused) */
	memset(&h.s, 0, sizeof(h.s));
	h.bound = false;
	s = unixdiag_each(&at, is_own, &h);
	return s == 0 && !h.bound ? -ECONNREFUSED : -EPERM;
}
