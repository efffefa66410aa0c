/*
 * broker_gate.c - what the broker's calls may do, asked of the running
 * broker (broker_int.h): a UNIX path, a TCP port, a listen() by the
 * policy (none once broker_stop() was called), whose socket a shared
 * temp dir holds, and the lead passed on before a call that may wait.
 * The calls below the loop ask here; the loop (broker_loop.c) owns the
 * state and sets how the lead is passed.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>

#include "enforce/broker/broker_int.h"
#include "enforce/broker/unixdiag.h"

/* A socket in /tmp or /var/tmp that only a default root grants is the
 * command's if the command bound it: in its own network namespace (the
 * network off), not among the host's; where the command shares the
 * host's namespace, a socket noted when the command bound it
 * (broker_own.c).  Return: 0 the command's, -EEXIST the host's,
 * -ECONNREFUSED none bound in the host's namespace (network shared). */
static int whose(const struct broker *b, int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -EEXIST;
	if (policy_net_shared(b->p->net)) {
		int ret = broker_own_file(b->own, st.st_dev, st.st_ino);

		return ret == -EPERM ? -EEXIST : ret;
	}
	return unixdiag_bound_here(st.st_dev, st.st_ino) != 0 ? -EEXIST : 0;
}

struct broker_own *broker_own_of(struct broker *b)
{
	return b->own;
}

struct broker_deputy *broker_deputy_of(struct broker *b)
{
	return b->dep;
}

int broker_may_unix(struct broker *b, const char *path, int fd)
{
	bool ok, shared;

	pthread_mutex_lock(&b->mu);
	ok = !b->stopped && broker_caps_dropped() &&
	     policy_unix_allowed(b->p, path);
	shared = ok && policy_unix_shared(b->p, path);
	pthread_mutex_unlock(&b->mu);
	if (!ok)
		return -EACCES;
	return shared ? whose(b, fd) : 0;
}

bool broker_may_tcp(struct broker *b, bool bind, unsigned int port)
{
	bool ok;

	pthread_mutex_lock(&b->mu);
	ok = !b->stopped && policy_tcp_allowed(b->p, bind, port);
	pthread_mutex_unlock(&b->mu);
	return ok;
}

bool broker_may_listen(struct broker *b, unsigned int port, bool listening)
{
	bool ok;

	pthread_mutex_lock(&b->mu);
	ok = !b->stopped && policy_listen_allowed(b->p, port, listening);
	pthread_mutex_unlock(&b->mu);
	return ok;
}

void broker_may_block(struct broker *b)
{
	b->pass_lead(b);
}
