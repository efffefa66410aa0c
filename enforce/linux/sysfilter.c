/*
 * sysfilter.c - the seccomp filter that closes what Landlock leaves open.
 *
 * Sockets: Landlock controls TCP ports (ABI 4) and UDP ports (ABI 10)
 * only: raw, SCTP, MPTCP, ICMP and UDP-Lite sockets pass it, and UDP
 * before ABI 10.  With network off, this filter refuses every IPv4 and
 * IPv6 socket but TCP in a network namespace of the command's own
 * (ns.c), every one without; with only TCP ports allowed, it refuses
 * every such socket that is not plain TCP; with UDP ports granted too,
 * every one that is neither plain TCP nor plain UDP (their ports are
 * Landlock's, which must then have them: guarantees.c).  The sets are
 * shim/core/sockrule_linux.c's, which the shim's socket() hook explains
 * with.  Denials return EACCES, as Landlock's do.  Unless the network
 * is on, a send with MSG_FASTOPEN fails with EOPNOTSUPP (as where the
 * host disables TCP Fast Open, so that programs fall back to connect()):
 * it connects without the connect() that Landlock checks.
 *
 * Always, whatever the policy:
 *  - terminal input injection: ioctl TIOCSTI and TIOCLINUX (EPERM);
 *  - io_uring (ENOSYS, so that programs fall back to plain calls): its
 *    operations create sockets without the socket() this filter sees;
 *  - kernel-global state: keyrings, modules, kexec, reboot, swap,
 *    hostname, the clock, accounting, bpf, perf events (EPERM);
 *  - new namespaces (unshare, setns, clone with a CLONE_NEW* flag, and
 *    clone3, whose flags a filter cannot read: ENOSYS makes glibc fall
 *    back to clone), where a user namespace would hand the command
 *    capabilities over its own mounts;
 *  - open_by_handle_at (EPERM), which opens a file without a path;
 *  - without a PID namespace of its own (--best-effort on a host that
 *    forbids it), the limits and priority of other processes: prlimit64
 *    with new limits, setpriority, ioprio_set and sched_set* on anything
 *    but the caller itself (EPERM);
 *  - without an IPC namespace of its own (made with the PID namespace:
 *    a host that forbids them), every SysV IPC call (EPERM): segments,
 *    queues and semaphores are found by key, and the host's would be
 *    the command's to attach; its own SysV IPC goes with them;
 *  - every system call of another ABI (32-bit int 0x80, x32) kills the
 *    process: the filter and Landlock's callers are written for x86-64.
 * The filter is built with libseccomp when cordon is built (filters.c,
 * which holds the rules): here, its variant for the policy is chosen
 * and loaded.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce/linux/filters.h"
#include "enforce/linux/linux.h"

static bool has_seccomp(void)
{
	return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

void sysfilter_features(const struct policy *p, struct feature_set *s)
{
	static const char *const always[] = {
		FEATURE_TIOCSTI,
		FEATURE_KERNEL,
		FEATURE_ABI32,
	};
	const struct feature *ipc = feature_find(s, FEATURE_IPCNS);
	struct feature f = {
		.layer = "seccomp",
		.name = FEATURE_NON_TCP,
		.needs = "seccomp filters (Linux 3.5)",
		.needed = p->net != NET_ON,
		.available = has_seccomp(),
	};

	feature_add(s, f);
	f.needed = true;
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
		f.name = always[i];
		feature_add(s, f);
	}
	/* needed (installed) where the IPC namespace is not: ns.c's rows
	 * come first; a row not needed holds no guarantee (guarantee.c) */
	f.name = FEATURE_SYSV;
	f.needed = !(ipc && ipc->available);
	feature_add(s, f);
}

/* The compiled program (filters.h) for @p. */
static unsigned int variant(const struct policy *p, bool own_pidns)
{
	unsigned int net = FILTERS_NET_TCP_ONLY;

	/* Network off: no IPv4 or IPv6 socket at all, or, in a network
	 * namespace of the command's own, TCP ones only, as with ports:
	 * Landlock refuses their every port, and what it misses (a listen()
	 * without bind() binds an ephemeral port) stays in the namespace. */
	if (p->net == NET_ON)
		net = FILTERS_NET_ON;
	else if (p->net == NET_OFF && !ns_own_net())
		net = FILTERS_NET_NO_IP;
	else if (policy_has_udp(p))
		net = FILTERS_NET_TCP_UDP; /* their ports: Landlock's */
	else if (p->net == NET_HOSTS && ns_own_net())
		net = FILTERS_NET_TCP_UDP; /* to cordon's resolver alone:
					    * the namespace's (netcap.c) */
	return net * 2 + (own_pidns ? 1 : 0);
}

int sysfilter_apply(const struct policy *p, bool own_pidns, char *err,
		    size_t errlen)
{
	const struct filters_prog *f = &filters_compiled[variant(p, own_pidns)];
	struct sock_fprog prog = { f->len, (struct sock_filter *)f->insns };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		snprintf(err, errlen, "cannot install the seccomp filter: %s",
			 strerror(errno));
		return -errno;
	}
	return 0;
}
