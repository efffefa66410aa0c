/*
 * probe_landlock.c - the probe's checks of Landlock's rights past ABI 7:
 * a UDP datagram to a port the grant does not name, with the host's
 * network and another UDP port granted (ABI 10), its twin to the port
 * granted, and a thread that ran before Landlock was applied (TSYNC,
 * ABI 8: the standalone shim's case, a library loaded by dlopen() into
 * a process with threads).  Each effect is read from outside: the
 * listener's datagram, the file the thread would make.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "enforce/probe/probe_checks.h"
#include "shim/core/landlock.h"

#define THREAD_FILE "made-by-a-thread"

struct early {
	int go[2];
	int err;
	char path[160];
};

/* The thread that ran first: it waits, then makes a file outside. */
static void *early_thread(void *arg)
{
	struct early *e = arg;
	char ch;
	int fd;

	if (read(e->go[0], &ch, 1) != 1) {
		e->err = EPIPE;
		return NULL;
	}
	fd = open(e->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	e->err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int try_thread(struct ctx *c)
{
	struct landlock_opts o = { .quiet = true };
	struct early e = { .err = 0 };
	char err[256];
	pthread_t t;
	int ret = 0;

	snprintf(e.path, sizeof(e.path), "%s/" THREAD_FILE, c->out);
	if (pipe2(e.go, O_CLOEXEC) ||
	    pthread_create(&t, NULL, early_thread, &e))
		return EAGAIN;
	/* inside: Landlock applied now, the thread already running */
	if (c->inside &&
	    landlock_apply(&c->policy, c->abi, &o, err, sizeof(err)))
		ret = EPERM;
	if (write(e.go[1], "", 1) != 1)
		ret = EPIPE;
	pthread_join(t, NULL);
	close(e.go[0]);
	close(e.go[1]);
	return ret ? ret : e.err;
}

static bool thread_made(struct ctx *c)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/" THREAD_FILE, c->out);
	return access(path, F_OK) == 0;
}

static void remove_thread_file(struct ctx *c)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/" THREAD_FILE, c->out);
	unlink(path);
}

const struct check probe_landlock_checks[] = {
	{ "landlock", "UDP send to a port not granted, UDP ports granted",
	  probe_try_udp, probe_udp_contacted, NULL, PROBE_UDP_OTHER, NULL,
	  false, FEATURE_UDP, NULL },
	{ "landlock", "UDP send to a granted port", probe_try_udp,
	  probe_udp_contacted, NULL, PROBE_UDP_GRANTED, NULL, true, FEATURE_UDP,
	  NULL },
	{ "landlock", "write outside from a thread started before Landlock",
	  try_thread, thread_made, remove_thread_file, PROBE_THREADS, NULL,
	  false, FEATURE_TSYNC, NULL },
};

const size_t probe_landlock_nchecks =
	sizeof(probe_landlock_checks) / sizeof(probe_landlock_checks[0]);
