/*
 * hook_net.c - the connect family: connect and __connect, sendto,
 * sendmsg and sendmmsg when they name a destination, bind.
 *
 * IPv4 and IPv6 follow the network policy as the launcher's kernel
 * layers do (Landlock for TCP ports, its seccomp filter for the rest):
 * off refuses everything, a port list allows TCP to and from the listed
 * ports only, on allows everything.  A UNIX socket with a path is a
 * file: connecting or sending to it needs W on the path (a docker or
 * D-Bus socket outside the roots is a way out, and Landlock cannot see
 * it before ABI 9), and bind creates it.  Abstract UNIX sockets are not
 * paths: Landlock's scope decides.  Name resolution inside libc
 * connects through internal aliases no hook sees (catalog A.0, D-15).
 *
 * Every refusal fails with EACCES, as the kernel layers do; the
 * decision is net.c's.  socket() decides nothing: the launcher's seccomp
 * filter refuses the sockets the network policy has no use for, and
 * the hook explains a refusal it sees (shim/core/sockrule_linux.c says
 * which ones).  libc's resolver makes its sockets through an internal
 * alias, unseen: a getaddrinfo() that finds no name server, where the
 * filter refuses the UDP that DNS needs, is explained instead.  Raw
 * syscalls and the stack only: these run in signal handlers and vfork
 * children (getaddrinfo() itself is not async-signal-safe).
 */
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/hooks.h"
#include "shim/lookup.h"
#include "shim/net.h"
#include "shim/net_names.h"
#include "shim/core/sockrule.h"

#define MMSG_MAX 1024 /* UIO_MAXIOV: the kernel sends no more */

/* A public GLIBC_2.2.5 alias of connect that no header declares. */
int __connect(int fd, const struct sockaddr *sa, socklen_t len);

static REAL_SLOT int (*real_connect)(int, const struct sockaddr *, socklen_t);
static REAL_SLOT int (*real___connect)(int, const struct sockaddr *, socklen_t);
static REAL_SLOT ssize_t (*real_sendto)(int, const void *, size_t, int,
					const struct sockaddr *, socklen_t);
static REAL_SLOT ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static REAL_SLOT int (*real_sendmmsg)(int, struct mmsghdr *, unsigned int, int);
static REAL_SLOT int (*real_bind)(int, const struct sockaddr *, socklen_t);
static REAL_SLOT int (*real_socket)(int, int, int);
static REAL_SLOT int (*real_getaddrinfo)(const char *, const char *,
					 const struct addrinfo *,
					 struct addrinfo **);

REAL_FN(real_connect, "connect")
REAL_FN(real___connect, "__connect")
REAL_FN(real_sendto, "sendto")
REAL_FN(real_sendmsg, "sendmsg")
REAL_FN(real_sendmmsg, "sendmmsg")
REAL_FN(real_bind, "bind")
REAL_FN(real_socket, "socket")
REAL_FN(real_getaddrinfo, "getaddrinfo")

static long sockopt(int fd, int name, int *val, socklen_t *len)
{
	return syscall(SYS_getsockopt, fd, SOL_SOCKET, name, val, len);
}

/* Plain TCP or plain UDP, as the launcher's filter sees it: a stream
 * socket whose protocol is TCP (SCTP and MPTCP are refused with the
 * rest), a datagram one whose protocol is UDP. */
enum net_kind net_kind(int fd)
{
	int type = 0, proto = 0;
	socklen_t tl = sizeof(type), pl = sizeof(proto);

	if (sockopt(fd, SO_TYPE, &type, &tl) ||
	    sockopt(fd, SO_PROTOCOL, &proto, &pl))
		return NET_KIND_UNKNOWN;
	if (type == SOCK_STREAM && (proto == 0 || proto == IPPROTO_TCP))
		return NET_KIND_TCP;
	if (type == SOCK_DGRAM && (proto == 0 || proto == IPPROTO_UDP))
		return NET_KIND_UDP;
	return NET_KIND_OTHER;
}

/*
 * The shape of a network hook, as one expression (hooks.h's, with the
 * address for the decision): @err is net_decide()'s answer; refused:
 * -1 with errno set once; allowed: @call, then errno restored or, when
 * it failed, the kernel's denial of the UNIX address @sa reported.
 */
#define NET_RUN(name, use, err, sa, len, call)                                 \
	({                                                                     \
		int saved_ = errno, err_ = (err);                              \
		__typeof__(call) ret_ = -1;                                    \
		if (err_) {                                                    \
			errno = err_;                                          \
		} else {                                                       \
			ret_ = (call);                                         \
			if (ret_ < 0)                                          \
				net_failed(name, use, sa, len, errno);         \
			else                                                   \
				errno = saved_;                                \
		}                                                              \
		ret_;                                                          \
	})

#define CONNECT_HOOK(name, use, sys)                                           \
	SHIM_API int name(int fd, const struct sockaddr *sa, socklen_t len)    \
	{                                                                      \
		return NET_RUN(#name, use,                                     \
			       net_decide(#name, use, fd, sa, len), sa, len,   \
			       real_##name##_get()                             \
				       ? real_##name##_get()(fd, sa, len)      \
				       : (int)syscall(sys, fd, sa, len));      \
	}

CONNECT_HOOK(connect, NET_USE_CONNECT, SYS_connect)
CONNECT_HOOK(__connect, NET_USE_CONNECT, SYS_connect)
CONNECT_HOOK(bind, NET_USE_BIND, SYS_bind)

SHIM_API ssize_t sendto(int fd, const void *buf, size_t n, int flags,
			const struct sockaddr *sa, socklen_t len)
{
	return NET_RUN(
		"sendto", NET_USE_SEND,
		net_decide("sendto", NET_USE_SEND, fd, sa, len), sa, len,
		real_sendto_get()
			? real_sendto_get()(fd, buf, n, flags, sa, len)
			: syscall(SYS_sendto, fd, buf, n, flags, sa, len));
}

static int msg_decide(const char *name, int fd, const struct msghdr *msg)
{
	if (!msg)
		return 0; /* the kernel says EFAULT */
	return net_decide(name, NET_USE_SEND, fd, msg->msg_name,
			  msg->msg_namelen);
}

SHIM_API ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	return NET_RUN("sendmsg", NET_USE_SEND, msg_decide("sendmsg", fd, msg),
		       msg ? msg->msg_name : NULL, msg ? msg->msg_namelen : 0,
		       real_sendmsg_get()
			       ? real_sendmsg_get()(fd, msg, flags)
			       : syscall(SYS_sendmsg, fd, msg, flags));
}

/* The messages before the first refused one go out, as the kernel sends
 * those before a failing one; the refusal comes with the next call. */
SHIM_API int sendmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags)
{
	int saved = errno;
	unsigned int n = vlen < MMSG_MAX ? vlen : MMSG_MAX;
	int ret;

	for (unsigned int i = 0; vec && i < n; i++) {
		int err = msg_decide("sendmmsg", fd, &vec[i].msg_hdr);

		if (err && i == 0) {
			errno = err;
			return -1;
		}
		if (err) {
			vlen = i;
			break;
		}
	}
	if (!real_sendmmsg_get())
		return (int)syscall(SYS_sendmmsg, fd, vec, vlen, flags);
	ret = real_sendmmsg_get()(fd, vec, vlen, flags);
	if (ret >= 0)
		errno = saved;
	return ret;
}

/* socket() failed with @err: a refusal of the filter, explained. */
static void socket_failed(int domain, int type, int protocol, int err)
{
	char what[SOCKRULE_NAME_MAX];
	enum sock_verdict v;

	if (err != EACCES || !hook_begin() || shim.extra.learn)
		return;
	v = sockrule_check(&shim.policy, domain, type, protocol);
	if (v == SOCK_ALLOWED || !guard_enter())
		return;
	sockrule_name(domain, type, protocol, what);
	report_net_socket(what, v,
			  sockrule_is_tcp(domain, type, protocol) ? NET_KIND_TCP
			  : sockrule_is_udp(domain, type, protocol)
				  ? NET_KIND_UDP
				  : NET_KIND_OTHER,
			  sockrule_needs_raw(domain, type));
	guard_leave();
}

SHIM_API int socket(int domain, int type, int protocol)
{
	int fd = real_socket_get()
			 ? real_socket_get()(domain, type, protocol)
			 : (int)syscall(SYS_socket, domain, type, protocol);

	if (fd < 0) {
		int err = errno;

		socket_failed(domain, type, protocol, err);
		errno = err;
	}
	return fd;
}

/* Learning, the policy learned for must let DNS through when the name
 * needs it: recorded, whatever the answer. */
static void lookup_learned(const char *node, const struct addrinfo *hints)
{
	if (!node || (hints && (hints->ai_flags & AI_NUMERICHOST)) ||
	    !hook_begin() || !shim.extra.learn || shim.policy.net == NET_ON ||
	    !lookup_needs_dns(node, "/etc/hosts") || !guard_enter())
		return;
	report_net_lookup(node, shim.policy.net == NET_PORTS);
	guard_leave();
}

/* getaddrinfo() found no name: could it ask a server?  A UDP socket is
 * tried, as the resolver's own was (through an internal alias no hook
 * sees); refused, the lookup is explained: a name /etc/hosts lacks
 * needs DNS.  Not under learn, whose kernel layer has the network on. */
static void lookup_failed(const char *node)
{
	long fd;

	if (!node || !hook_begin() || shim.extra.learn ||
	    shim.policy.net == NET_ON)
		return;
	fd = syscall(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		syscall(SYS_close, fd);
		return;
	}
	if (errno != EACCES || !guard_enter())
		return;
	report_net_lookup(node, shim.policy.net == NET_PORTS);
	guard_leave();
}

SHIM_API int getaddrinfo(const char *node, const char *service,
			 const struct addrinfo *hints, struct addrinfo **res)
{
	int ret, err;

	if (!real_getaddrinfo_get())
		hook_begin(); /* called before the constructor */
	if (!real_getaddrinfo_get())
		return EAI_SYSTEM; /* no libc to ask: cannot happen */
	ret = real_getaddrinfo_get()(node, service, hints, res);
	err = errno;
	/* learning, or where a connect to one of its addresses would be
	 * told --allow-host NAME (report_net.c) */
	if (ret == 0 && res && !(hints && (hints->ai_flags & AI_NUMERICHOST)) &&
	    (shim.extra.learn || shim.policy.net == NET_OFF ||
	     shim.policy.net == NET_HOSTS))
		net_names_note(node, *res);
	lookup_learned(node, hints);
	errno = err;
	/* glibc says "no such name" too when no server could be asked */
	if ((ret == EAI_AGAIN || ret == EAI_SYSTEM || ret == EAI_NONAME ||
	     ret == EAI_NODATA) &&
	    !(hints && (hints->ai_flags & AI_NUMERICHOST))) {
		err = errno;
		lookup_failed(node);
		errno = err;
	}
	return ret;
}
