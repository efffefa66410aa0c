/*
 * broker_vet.c - the decision on the address a brokered call names
 * (broker_vet(), broker_int.h): a pathname UNIX socket resolved as the
 * command would resolve it, in its mount namespace, from its root (and
 * its working directory for a relative path), to an O_PATH descriptor
 * of the socket file, and decided on that descriptor's path; an
 * abstract name by whose socket it is; a TCP port by the policy.
 *
 * A path that meets no symlink is resolved with RESOLVE_NO_SYMLINKS and
 * decided on its normal form (the inode's path, when the command's root
 * is its namespace's), with no readlink; one that meets a symlink is
 * resolved again, following it, and decided on the opened inode's path.
 * The call then goes to "/proc/self/fd/N" (broker_call.c): to the
 * inode checked, whatever the names around it become meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "enforce/broker/broker_int.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/* The command's working directory, as a path in its own namespace. */
static int target_cwd(pid_t pid, char cwd[PATH_BUF])
{
	char proc[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)pid);
	n = readlink(proc, cwd, PATH_BUF - 1);
	if (n < 0)
		return -errno;
	cwd[n] = '\0';
	/* "(unreachable)/..." or a deleted directory: nothing to name. */
	return cwd[0] == '/' ? 0 : -ENOENT;
}

/* The path of the open @fd, in @out: "/..." (else -ENOENT). */
static int fd_path(int fd, char out[PATH_BUF])
{
	char proc[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, out, PATH_BUF - 1);
	if (n < 0)
		return -errno;
	out[n] = '\0';
	return out[0] == '/' ? 0 : -ENOENT;
}

/* Open the root of thread @tid into @t (unchecked yet: unix_vet), and
 * note whether it is the root of its mount namespace ("/" seen from
 * here), where a path through no symlink names its inode as given. */
static int open_root(struct broker_target *t, pid_t tid)
{
	char proc[64], path[PATH_BUF];

	snprintf(proc, sizeof(proc), "/proc/%d/root", (int)tid);
	t->root = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
	t->root_checked = false;
	if (t->root < 0)
		return -errno;
	t->root_lexical = !fd_path(t->root, path) && !strcmp(path, "/");
	return 0;
}

/* Open the socket file @path names for process @pid, from its root,
 * into *@fd, and its path in @resolved. */
static int open_unix(const struct broker_call *c, const char *path, int *fd,
		     char resolved[PATH_BUF])
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char full[PATH_BUF];
	int ret = 0;

	full[0] = '\0';
	if (path[0] != '/') {
		ret = target_cwd((pid_t)c->n->pid, full);
		if (!ret && strlen(full) + 1 + strlen(path) >= PATH_BUF)
			ret = -ENAMETOOLONG;
		if (ret)
			return ret;
		strncat(full, "/", PATH_BUF - strlen(full) - 1);
	}
	strncat(full, path, PATH_BUF - strlen(full) - 1);
	if (c->t->root < 0) {
		ret = open_root(c->t, (pid_t)c->n->pid);
		if (ret)
			return ret;
	}
	/* Through no symlink, the inode's path is the path given, made
	 * normal: no readlink needed (when the root is its namespace's). */
	if (c->t->root_lexical) {
		how.resolve |= RESOLVE_NO_SYMLINKS;
		*fd = (int)syscall(SYS_openat2, c->t->root, full, &how,
				   sizeof(how));
		if (*fd >= 0)
			return path_normalize(full, resolved) ? -ENOENT : 0;
		if (errno != ELOOP)
			return -errno;
		how.resolve &= ~(__u64)RESOLVE_NO_SYMLINKS;
	}
	*fd = (int)syscall(SYS_openat2, c->t->root, full, &how, sizeof(how));
	if (*fd < 0)
		return -errno;
	ret = fd_path(*fd, resolved);
	if (ret) {
		close(*fd);
		*fd = -1;
	}
	return ret;
}

/* A pathname AF_UNIX address: the path as given (the kernel ends it at
 * the first NUL or at the address's end). */
static int unix_vet(const struct broker_call *c, const char *op,
		    struct sockaddr_storage *ss, socklen_t *len, int *pathfd)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)ss;
	size_t max = *len - offsetof(struct sockaddr_un, sun_path);
	char given[sizeof(sun->sun_path) + 1], resolved[PATH_BUF];
	int ret;

	memcpy(given, sun->sun_path, max);
	given[max] = '\0';
	ret = open_unix(c, given, pathfd, resolved);
	if (ret)
		return ret;
	ret = broker_call_valid(c) ? 0 : -ENOENT;
	if (!ret) {
		/* The caller was waiting all along: the root is its own. */
		c->t->root_checked = true;
		ret = broker_may_unix(c->b, resolved, *pathfd);
	}
	if (ret) {
		close(*pathfd);
		*pathfd = -1;
	}
	if (ret == -ENOENT || ret == -ECONNREFUSED)
		return ret;
	if (ret) {
		c->denial->op = op;
		c->denial->shared = ret == -EEXIST;
		snprintf(c->denial->given, PATH_BUF, "%s", given);
		snprintf(c->denial->resolved, PATH_BUF, "%s", resolved);
		return -EACCES;
	}
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "/proc/self/fd/%d",
		 *pathfd);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			   strlen(sun->sun_path) + 1);
	return 0;
}

/* Does the command's socket live in another network namespace than
 * the supervisor's: the command's own?  Asked by the namespaces'
 * cookies (Linux 5.14): SIOCGSKNS needs CAP_NET_ADMIN over the socket's
 * namespace, which a root supervisor's broker threads no longer hold
 * (broker_caps.c). */
static bool own_netns(const struct broker_call *c)
{
	static uint64_t mine;
	uint64_t its = 0, here = __atomic_load_n(&mine, __ATOMIC_RELAXED);
	socklen_t len = sizeof(its);
	int s;

	if (!here) {
		s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		len = sizeof(here);
		if (s < 0 ||
		    getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, &here, &len)) {
			if (s >= 0)
				close(s);
			return false;
		}
		close(s);
		__atomic_store_n(&mine, here, __ATOMIC_RELAXED);
		len = sizeof(its);
	}
	if (getsockopt(c->sock, SOL_SOCKET, SO_NETNS_COOKIE, &its, &len))
		return false;
	return its != here;
}

/* Abstract: Landlock's scope refuses one bound outside the command's
 * domain, and the broker, outside that domain, tells them apart itself:
 * in a network namespace of the command's own (the network off) every
 * abstract name is the command's; in the host's, only a socket it bound
 * (broker_own.c), held in *@pin until the call is made.  Refused as the
 * scope refuses. */
static int abstract_vet(const struct broker_call *c,
			const struct sockaddr_storage *ss, socklen_t len,
			int *pin)
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)ss;

	if (!own_netns(c)) {
		*pin = broker_own_abstract(
			broker_own_of(c->b), (pid_t)c->n->pid, sun->sun_path,
			len - offsetof(struct sockaddr_un, sun_path));
		if (*pin < 0)
			return *pin;
	}
	if (broker_call_valid(c))
		return 0;
	if (*pin >= 0)
		close(*pin);
	*pin = -1;
	return -ENOENT;
}

int broker_vet(const struct broker_call *c, const char *op,
	       struct sockaddr_storage *ss, socklen_t *len, int *pathfd)
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)ss;
	unsigned int port = 0;

	*pathfd = -1;
	if (*len < sizeof(sa_family_t))
		return broker_call_valid(c) ? 0
					    : -ENOENT; /* the kernel answers */
	switch (ss->ss_family) {
	case AF_UNIX:
		if (*len <= offsetof(struct sockaddr_un, sun_path))
			break; /* unnamed: the kernel answers */
		if (*len > sizeof(struct sockaddr_un))
			return -EINVAL; /* as the kernel answers */
		if (sun->sun_path[0] == '\0')
			return abstract_vet(c, ss, *len, pathfd);
		return unix_vet(c, op, ss, len, pathfd);
	case AF_INET:
		if (*len >= sizeof(struct sockaddr_in))
			port = ntohs(((struct sockaddr_in *)ss)->sin_port);
		break;
	case AF_INET6:
		if (*len >= sizeof(struct sockaddr_in6))
			port = ntohs(((struct sockaddr_in6 *)ss)->sin6_port);
		break;
	default:
		break;
	}
	if (!broker_call_valid(c))
		return -ENOENT;
	/* Landlock checks the port of a TCP connect; the broker, outside the
	 * domain, checks it in its place (a UDP socket exists only with the
	 * network on, where every port is allowed). */
	if ((ss->ss_family == AF_INET || ss->ss_family == AF_INET6) &&
	    broker_sock_type(c) == SOCK_STREAM &&
	    !broker_may_tcp(c->b, false, port))
		return -EACCES;
	return 0;
}
