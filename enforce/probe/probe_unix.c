/*
 * probe_unix.c - the probe's checks of a UNIX socket bound after the
 * start, stream and datagram: the attempt (inside, its broker served by
 * the probe as the supervisor serves a command's, where the broker is
 * installed) waits for a socket that the parent binds in the directory
 * outside the roots once the sandbox holds, and connects (sends) by the
 * system call itself; the parent sees from its socket whether anything
 * arrived.  Landlock's RESOLVE_UNIX (ABI 9) holds it where the kernel
 * has it, the broker elsewhere (the row says which).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "enforce/probe/probe_checks.h"

static struct sockaddr_un late_addr(const struct ctx *c)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t n = strnlen(c->late, sizeof(sun.sun_path) - 1);

	memcpy(sun.sun_path, c->late, n); /* c->out is short: it fits */
	return sun;
}

/* Wait for the socket, then connect to it (@type SOCK_STREAM) or send
 * it a datagram, by the system calls themselves. */
static int reach_late(struct ctx *c, int type)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct sockaddr_un sun = late_addr(c);
	struct stat st;
	int fd, ret = 0;

	/* as the exec of a command makes it: the broker takes the socket
	 * from it with pidfd_getfd() (pid 1, whose child this is, is
	 * undumpable, and a fork keeps that) */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	for (int i = 0; i < 300 && stat(c->late, &st) != 0; i++)
		nanosleep(&tick, NULL);
	fd = (int)syscall(SYS_socket, AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	if (type == SOCK_STREAM
		    ? syscall(SYS_connect, fd, &sun, sizeof(sun)) < 0
		    : syscall(SYS_sendto, fd, "x", 1, 0, &sun, sizeof(sun)) < 0)
		ret = errno;
	close(fd);
	return ret;
}

static int try_late(struct ctx *c)
{
	return reach_late(c, SOCK_STREAM);
}

static int try_late_dgram(struct ctx *c)
{
	return reach_late(c, SOCK_DGRAM);
}

/* Bound beside (listening), then renamed into place: the attempt, which
 * connects as soon as the name exists, never finds it not listening. */
static void bind_at(struct ctx *c, int type)
{
	struct sockaddr_un sun = late_addr(c);
	size_t n = strlen(sun.sun_path);
	char tmp[sizeof(sun.sun_path)];

	if (n + 5 > sizeof(sun.sun_path))
		return;
	memcpy(sun.sun_path + n, ".new", 5);
	memcpy(tmp, sun.sun_path, n + 5);
	c->late_fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->late_fd >= 0 &&
	    (bind(c->late_fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	     (type == SOCK_STREAM && listen(c->late_fd, 8) < 0) ||
	     rename(tmp, c->late) < 0)) {
		close(c->late_fd);
		c->late_fd = -1;
		unlink(tmp);
	}
}

static void bind_late(struct ctx *c)
{
	bind_at(c, SOCK_STREAM);
}

static void bind_late_dgram(struct ctx *c)
{
	bind_at(c, SOCK_DGRAM);
}

static bool late_contacted(struct ctx *c)
{
	int fd = c->late_fd >= 0 ? accept4(c->late_fd, NULL, NULL, SOCK_CLOEXEC)
				 : -1;

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool late_datagram(struct ctx *c)
{
	char ch;

	return c->late_fd >= 0 && recv(c->late_fd, &ch, 1, MSG_DONTWAIT) == 1;
}

static void unbind_late(struct ctx *c)
{
	if (c->late_fd >= 0)
		close(c->late_fd);
	c->late_fd = -1;
	unlink(c->late);
}

#define LATE "no pathname UNIX socket outside bound after the start"

const struct check probe_unix_checks[] = {
	{ "landlock", "connect to a UNIX socket bound after the start",
	  try_late, late_contacted, unbind_late, PROBE_WHOLE, bind_late, false,
	  FEATURE_RESOLVE_UNIX, LATE },
	{ "landlock", "send to a UNIX socket bound after the start",
	  try_late_dgram, late_datagram, unbind_late, PROBE_WHOLE,
	  bind_late_dgram, false, FEATURE_RESOLVE_UNIX, LATE },
};

const size_t probe_unix_nchecks =
	sizeof(probe_unix_checks) / sizeof(probe_unix_checks[0]);
