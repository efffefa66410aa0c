/*
 * probe_hosts.c - the probe's live checks of --allow-host: the attempt
 * runs in a sandbox whose network is NET_HOSTS, allowing one address of
 * the probe's by an IP rule ("127.0.0.1:PORT" of hosts_fd), with the
 * proxy served by the probe as the supervisor serves a command's.
 * Inside, the proxy is asked for a CONNECT (as a client honouring
 * HTTPS_PROXY does); outside, the twin connects directly.  The parent
 * sees from its listeners what arrived: the allowed one must be reached
 * (the proxy works), the other never (the proxy refuses), and a direct
 * connect from inside reaches neither (the namespace holds).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce/probe/probe_checks.h"

/* CONNECT @to through the proxy: 0 when the proxy answers 200, EACCES
 * for 403, EIO otherwise. */
static int via_proxy(const struct sockaddr_in *to)
{
	struct sockaddr_in px = { .sin_family = AF_INET,
				  .sin_port = htons(POLICY_PROXY_PORT),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char req[96], reply[64] = "";
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ret = 0, n;

	if (fd < 0)
		return errno;
	n = snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\n",
		     ntohs(to->sin_port));
	if (connect(fd, (struct sockaddr *)&px, sizeof(px)) < 0 ||
	    write(fd, req, (size_t)n) != n)
		ret = errno;
	else if (read(fd, reply, sizeof(reply) - 1) <= 0)
		ret = EIO;
	else if (strncmp(reply, "HTTP/1.1 200", 12) == 0)
		ret = 0;
	else
		ret = strncmp(reply, "HTTP/1.1 403", 12) == 0 ? EACCES : EIO;
	close(fd);
	return ret;
}

static int direct(const struct sockaddr_in *to)
{
	int fd = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC,
			      0);
	int ret = 0;

	if (fd < 0)
		return errno;
	if (syscall(SYS_connect, fd, to, sizeof(*to)) < 0)
		ret = errno;
	close(fd);
	return ret;
}

/* As the exec of a command makes it: the broker takes the socket from
 * the attempt with pidfd_getfd() (pid 1, whose child this is, is
 * undumpable, and a fork keeps that). */
static void as_exec(const struct ctx *c)
{
	if (c->inside)
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

static int try_allowed(struct ctx *c)
{
	as_exec(c);
	return c->inside ? via_proxy(&c->hosts_addr) : direct(&c->hosts_addr);
}

static int try_refused(struct ctx *c)
{
	as_exec(c);
	return c->inside ? via_proxy(&c->tcp_addr) : direct(&c->tcp_addr);
}

/* A raw connect, as a static binary going round the proxy makes. */
static int try_direct(struct ctx *c)
{
	as_exec(c);
	return direct(&c->tcp_addr);
}

static bool contacted(int listener)
{
	int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool allowed_contacted(struct ctx *c)
{
	return contacted(c->hosts_fd);
}

static bool tcp_contacted(struct ctx *c)
{
	return contacted(c->tcp);
}

int probe_hosts_setup(struct ctx *c)
{
	socklen_t len = sizeof(c->hosts_addr);

	c->hosts_addr = (struct sockaddr_in){ .sin_family = AF_INET,
					      .sin_addr.s_addr =
						      htonl(INADDR_LOOPBACK) };
	c->hosts_fd =
		socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->hosts_fd < 0 ||
	    bind(c->hosts_fd, (struct sockaddr *)&c->hosts_addr, len) < 0 ||
	    listen(c->hosts_fd, 8) < 0 ||
	    getsockname(c->hosts_fd, (struct sockaddr *)&c->hosts_addr, &len) <
		    0)
		return -errno;
	snprintf(c->hosts_rule, sizeof(c->hosts_rule), "127.0.0.1:%u",
		 ntohs(c->hosts_addr.sin_port));
	return 0;
}

void probe_hosts_teardown(struct ctx *c)
{
	if (c->hosts_fd >= 0)
		close(c->hosts_fd);
	c->hosts_fd = -1;
}

const struct check probe_hosts_checks[] = {
	{ "hosts", "an allowed host, reached through the proxy", try_allowed,
	  allowed_contacted, NULL, PROBE_HOSTS, NULL, true, NULL, NULL },
	{ "hosts", "a host no --allow-host names, through the proxy",
	  try_refused, tcp_contacted, NULL, PROBE_HOSTS, NULL, false, NULL,
	  NULL },
	{ "hosts", "a direct connect, going round the proxy", try_direct,
	  tcp_contacted, NULL, PROBE_HOSTS, NULL, false, NULL, NULL },
};

const size_t probe_hosts_nchecks =
	sizeof(probe_hosts_checks) / sizeof(probe_hosts_checks[0]);
