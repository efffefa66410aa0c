/*
 * net.c - the decision of the network hooks, on every OS (net.h):
 * hook_net.c on Linux, darwin/hook_net_darwin.c on macOS.
 *
 * IPv4 and IPv6 follow the network policy as the launcher's kernel
 * layers do: off refuses everything, a port list allows TCP (and UDP,
 * where UDP ports are granted) to and from the listed ports only, on
 * allows everything; with hosts allowed,
 * TCP on the loopback of the command's own network namespace (where
 * cordon's proxy listens) and nothing beyond.  A UNIX socket with a
 * path is a file: connecting or sending to it needs W on the path or a
 * --connect-unix root above it (RIGHT_U), and bind creates it (W).  Abstract
 * and unnamed UNIX sockets are not paths: the kernel layer decides (Landlock's
 * scope refuses those of processes outside, and the failure is explained).
 * Every refusal is EACCES, as the kernel layers'.
 *
 * These run in signal handlers and vfork children: the stack only, no
 * allocation, no lock.  An address is read only as far as the length
 * given.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "shim/core/path.h"
#include "shim/core/rule.h"
#include "shim/hooks.h"
#include "shim/net.h"

#define SUN_PATH_MAX sizeof(((struct sockaddr_un *)0)->sun_path)

/* Copy @len bytes of @sa into @ss; false when there is no family. */
static bool copy_addr(const struct sockaddr *sa, socklen_t len,
		      struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (!sa || len < sizeof(sa_family_t))
		return false;
	memcpy(ss, sa, len < sizeof(*ss) ? len : sizeof(*ss));
	return true;
}

/* The path of a UNIX address into @path; false when it has none
 * (unnamed, abstract, or malformed: the kernel decides). */
static bool unix_path(const struct sockaddr_storage *ss, socklen_t len,
		      char path[SUN_PATH_MAX + 1])
{
	size_t off = offsetof(struct sockaddr_un, sun_path);
	const char *sun = (const char *)ss + off;
	size_t n;

	if (len <= off || len > sizeof(struct sockaddr_un) || sun[0] == '\0')
		return false;
	n = strnlen(sun, len - off);
	memcpy(path, sun, n);
	path[n] = '\0';
	return true;
}

static bool addr_len_ok(const struct sockaddr_storage *ss, socklen_t len)
{
	if (ss->ss_family == AF_INET)
		return len >= sizeof(struct sockaddr_in);
	return len >= offsetof(struct sockaddr_in6, sin6_scope_id);
}

/* The policy's verdict on an IPv4 or IPv6 address. */
static int inet_check(const char *name, enum net_use use, int fd,
		      const struct sockaddr_storage *ss, socklen_t len)
{
	const struct policy *p = &shim.policy;
	struct net_denial d = { .name = name, .use = use, .addr = ss };
	unsigned int port = net_port(ss);
	bool bind = use == NET_USE_BIND;

	if (p->net == NET_ON || !addr_len_ok(ss, len))
		return 0;
	d.kind = net_kind(fd);
	if (d.kind == NET_KIND_UNKNOWN)
		return 0;
	/* the network namespace's own loopback; captured, anywhere: the
	 * proxy decides, and says why (enforce/linux/netcap.c) */
	if (p->net == NET_HOSTS &&
	    (bind || shim.extra.captured || report_net_local(ss)))
		return 0;
	if (p->net == NET_OFF)
		d.why = NET_WHY_OFF;
	else if (p->net == NET_HOSTS)
		d.why = NET_WHY_PROXY;
	else if (d.kind == NET_KIND_TCP && policy_tcp_allowed(p, bind, port))
		return 0;
	else if (d.kind == NET_KIND_TCP)
		d.why = NET_WHY_PORT;
	else if (d.kind == NET_KIND_UDP && policy_has_udp(p) &&
		 policy_udp_allowed(p, bind, port))
		return 0;
	else if (d.kind == NET_KIND_UDP && policy_has_udp(p))
		d.why = NET_WHY_UDP_PORT;
	else
		d.why = NET_WHY_NOT_TCP;
	report_net_denial(&d);
	return shim.extra.learn ? 0 : EACCES; /* learning: recorded */
}

/* A UNIX socket path: RIGHT_U to reach it (W or --connect-unix), W to
 * create it (bind). */
static struct op unix_op(const char *name, enum net_use use, const char *path)
{
	if (use == NET_USE_BIND)
		return OP(name, RIGHT_W, AT_FDCWD, path, PATH_NOFOLLOW);
	return OP(name, RIGHT_U, AT_FDCWD, path, 0);
}

static int addr_check(const char *name, enum net_use use, int fd,
		      const struct sockaddr *sa, socklen_t len)
{
	struct sockaddr_storage ss;
	char path[SUN_PATH_MAX + 1];
	struct op op;

	if (!copy_addr(sa, len, &ss))
		return 0;
	switch (ss.ss_family) {
	case AF_UNIX:
		if (!unix_path(&ss, len, path))
			return 0;
		op = unix_op(name, use, path);
		return shim_check(&op);
	case AF_INET:
	case AF_INET6:
		return inet_check(name, use, fd, &ss, len);
	default:
		return 0; /* netlink, packet, vsock: the kernel layer's */
	}
}

/* Is it a connect or send to a UNIX socket that Landlock decides
 * (RESOLVE_UNIX), at the cost of a bare call, net_failed() explaining a
 * refusal?  Learning, the shim records what would be refused. */
static bool kernel_decides(enum net_use use, const struct sockaddr *sa,
			   socklen_t len)
{
	return shim.extra.ll_unix && use != NET_USE_BIND && !shim.extra.learn &&
	       len >= sizeof(sa_family_t) && sa->sa_family == AF_UNIX;
}

int net_decide(const char *name, enum net_use use, int fd,
	       const struct sockaddr *sa, socklen_t len)
{
	int ret;

	if (!shim_is_ready())
		shim_init();
	if (!shim.active || !sa || kernel_decides(use, sa, len) ||
	    !guard_enter())
		return 0;
	ret = addr_check(name, use, fd, sa, len);
	guard_leave();
	return ret;
}

/* A connect or send to an abstract UNIX socket failed with EPERM:
 * Landlock's scope refused a socket of a process outside. */
static void abstract_failed(const char *name, enum net_use use,
			    const struct sockaddr_storage *ss, socklen_t len)
{
	size_t off = offsetof(struct sockaddr_un, sun_path);
	const char *sun = (const char *)ss + off;

	if (len <= off + 1 || len > sizeof(struct sockaddr_un) ||
	    sun[0] != '\0')
		return; /* unnamed, or a path */
	if (!guard_enter())
		return;
	report_net_abstract(name, use, sun + 1, len - off - 1);
	guard_leave();
}

/* How a connect or send to a socket the policy refuses fails, where
 * the shim leaves it to the kernel: Landlock's EACCES; a socket bound
 * outside before the start, covered in the command's mount namespace
 * (covers.c): ECONNREFUSED, ENOENT. */
static bool unix_refusal(int err)
{
	return err == EACCES || err == ECONNREFUSED || err == ENOENT;
}

/* The connect or send to the socket at @op's path failed with @err: a
 * refusal of the policy's, or where its roots allow it and Landlock
 * refused it (EACCES), the kernel's reason (a socket of a process
 * outside in a shared temp dir; one bound at a granted file's path
 * after the start).  A socket the policy allows that is not there, or
 * not listening, is no refusal. */
static void unix_refused(struct op *op, int err)
{
	const struct policy *p = &shim.policy;
	char resolved[PATH_BUF];

	if (path_resolve(AT_FDCWD, op->path, 0, resolved) != 0)
		return;
	if (policy_allows(p, RIGHT_U, resolved)) {
		if (err != EACCES)
			return;
		op->grant_dir = !policy_unix_shared(p, resolved);
		op->why = op->grant_dir ? RULE_UNIX_REBOUND : RULE_UNIX_SHARED;
	}
	report_denial(op, resolved, "kernel");
}

void net_failed(const char *name, enum net_use use, const struct sockaddr *sa,
		socklen_t len, int err)
{
	struct sockaddr_storage ss;
	char path[SUN_PATH_MAX + 1];
	struct op op;

	if (!shim.active || !copy_addr(sa, len, &ss) || ss.ss_family != AF_UNIX)
		return;
	if (unix_path(&ss, len, path)) {
		op = unix_op(name, use, path);
		if (shim.extra.ll_unix && use != NET_USE_BIND &&
		    !shim.extra.learn && unix_refusal(err) && guard_enter()) {
			unix_refused(&op, err);
			guard_leave();
		} else {
			hook_failed(&op, err);
		}
	} else if (err == EPERM && use != NET_USE_BIND && !shim.extra.learn) {
		abstract_failed(name, use, &ss, len);
	}
	errno = err;
}
