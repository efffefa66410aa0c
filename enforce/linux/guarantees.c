/*
 * guarantees.c - what the policy guarantees on Linux, and the rows
 * (mechanisms, feature.h) that can hold each: the one table the
 * refusal, --best-effort's banner and `cordon probe` read.
 *
 * A guarantee is held when any of its rows is available here
 * (guarantee.c): the rows of one guarantee each hold all of it for this
 * policy, never a part.  Where two mechanisms hold different parts (the
 * sockets bound before the start and those bound after; tracing and
 * seeing a process), those are two guarantees.  Some rows hold a
 * guarantee for one policy only: the network namespace and the filter
 * hold TCP with the network off (no route out; no IP socket at all
 * where the namespace cannot be made), not with ports granted, where
 * the network is the host's and only Landlock holds a port.
 */
#include "enforce/linux/linux.h"

#define BY(...)                                                                \
	{                                                                      \
		__VA_ARGS__                                                    \
	}

void guarantees_add(const struct policy *p, struct feature_set *s)
{
	bool off = p->net == NET_OFF, hosts = p->net == NET_HOSTS,
	     udp = policy_has_udp(p);
	/* the command's own network namespace, whichever row makes it */
	const char *netns = off ? FEATURE_NETNS : hosts ? FEATURE_HOSTS : NULL;
	const struct guarantee table[] = {
		{ "read only the readable roots", true,
		  BY(FEATURE_FS_RULES, FEATURE_WORLD) },
		{ "write, create or remove only under the writable roots", true,
		  BY(FEATURE_FS_RULES, FEATURE_WORLD, FEATURE_RO_MOUNTS) },
		{ "truncate only under the writable roots", true,
		  BY(FEATURE_TRUNCATE, FEATURE_RO_MOUNTS) },
		{ "change metadata only under the writable roots", true,
		  BY(FEATURE_RO_MOUNTS) },
		{ "execute only the exec roots", true,
		  BY(FEATURE_FS_RULES, FEATURE_WORLD, FEATURE_NOEXEC) },
		{ "no program mapped from a non-exec root", true,
		  BY(FEATURE_WORLD, FEATURE_NOEXEC) },
		/* with the network off, the filter refuses every IP socket
		 * where the namespace is missing (sysfilter.c) */
		{ "no TCP beyond the grant", off || p->net == NET_PORTS,
		  BY(FEATURE_TCP, netns, off ? FEATURE_NON_TCP : NULL) },
		/* a listen() on a socket bind() gave no port takes an
		 * ephemeral one, which Landlock does not check */
		{ "no TCP listener on a port not granted", p->net == NET_PORTS,
		  BY(FEATURE_BROKER_LISTEN) },
		/* with UDP ports granted, the filter lets UDP sockets be
		 * made: their ports are Landlock's alone */
		{ "no UDP beyond the grant", p->net != NET_ON,
		  BY(FEATURE_UDP, netns, udp ? NULL : FEATURE_NON_TCP) },
		{ "no raw or other socket families", p->net != NET_ON,
		  BY(FEATURE_NON_TCP, netns) },
		/* abstract names are per network namespace */
		{ "no abstract UNIX socket outside", true,
		  BY(FEATURE_ABSTRACT, FEATURE_BROKER, netns) },
		{ "no pathname UNIX socket outside the grant", true,
		  BY(FEATURE_RESOLVE_UNIX, FEATURE_SOCKETS, FEATURE_BROKER) },
		{ "no pathname UNIX socket outside bound after the start", true,
		  BY(FEATURE_RESOLVE_UNIX, FEATURE_BROKER) },
		{ "no signal to processes outside", true,
		  BY(FEATURE_SIGNALS, FEATURE_PIDNS) },
		{ "no ptrace of processes outside (their memory, environment, "
		  "fds)",
		  true, BY(FEATURE_PTRACE, FEATURE_PIDNS) },
		{ "no /proc view of processes outside (listing, command lines)",
		  true, BY(FEATURE_PIDNS) },
		/* the filesystem rules and the world open no device but the
		 * few the defaults grant */
		{ "no device ioctl outside the grant", true,
		  BY(FEATURE_IOCTL, FEATURE_FS_RULES, FEATURE_WORLD) },
		{ "no SysV IPC of the host", true,
		  BY(FEATURE_IPCNS, FEATURE_SYSV) },
		{ "no /dev/shm of the host", true, BY(FEATURE_SHM) },
		{ "no terminal of the host (other ptys)", true,
		  BY(FEATURE_PTS) },
		{ "no terminal input injection (TIOCSTI)", true,
		  BY(FEATURE_TIOCSTI) },
		{ "protected paths in writable roots stay read-only", true,
		  BY(FEATURE_PROTECTED) },
		/* without namespaces there is no pid 1 inside, and the
		 * launcher outside is out of Landlock's ptrace scope */
		{ "cordon's pid 1 holds nothing (no tracing, environment, fds)",
		  true, BY(FEATURE_INIT, FEATURE_PTRACE) },
		{ "with --allow-host, hosts only through the proxy", hosts,
		  BY(FEATURE_HOSTS) },
		{ "no capability, even as root",
		  feature_find(s, FEATURE_CAPS) &&
			  feature_find(s, FEATURE_CAPS)->needed,
		  BY(FEATURE_CAPS) },
		{ "no kernel-wide state (io_uring, keyrings, modules, new "
		  "namespaces, 32-bit calls)",
		  true, BY(FEATURE_KERNEL, FEATURE_ABI32) },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		feature_guarantee(s, table[i]);
}
