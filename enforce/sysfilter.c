/*
 * sysfilter.c - the seccomp filter that closes what Landlock leaves open.
 *
 * Sockets: Landlock (up to ABI 7) controls TCP ports only: UDP, raw,
 * SCTP and MPTCP sockets pass it.  With network off, this filter refuses
 * every IPv4 and IPv6 socket but TCP in a network namespace of the
 * command's own (ns.c), every one without; with only TCP ports allowed,
 * it refuses every such socket that is not plain TCP (the sets are
 * shim/core/sockrule_linux.c's, which the shim's socket() hook explains
 * with).  Denials return EACCES, as Landlock's do.  Unless the network
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
 *  - every system call of another ABI (32-bit int 0x80, x32) kills the
 *    process: the filter and Landlock's callers are written for x86-64.
 * The filter is built with libseccomp.
 */
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "enforce/ns.h"
#include "enforce/sysfilter.h"
#include "shim/core/sockrule.h"

static bool has_seccomp(void)
{
	return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

void sysfilter_features(const struct policy *p, struct feature_set *s)
{
	static const char *const always[] = {
		"terminal input injection (TIOCSTI)",
		"io_uring, keyrings, modules, namespaces",
		"32-bit and x32 system calls",
	};
	struct feature f = {
		.layer = "seccomp",
		.name = "UDP, raw and other non-TCP sockets",
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
}

static int deny(scmp_filter_ctx ctx, unsigned int n,
		const struct scmp_arg_cmp *cmp)
{
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EACCES),
				      SCMP_SYS(socket), n, cmp);
}

/* Refuse every socket of @family but plain TCP (or all with @all). */
static int deny_family(scmp_filter_ctx ctx, int family, bool all)
{
	struct scmp_arg_cmp c[3] = { SCMP_A0(SCMP_CMP_EQ,
					     (scmp_datum_t)family) };
	int ret;

	if (all)
		return deny(ctx, 1, c);
	for (size_t i = 0; i < sizeof(sockrule_not_tcp) / sizeof(int); i++) {
		c[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, SOCKRULE_TYPE_MASK,
			       (scmp_datum_t)sockrule_not_tcp[i]);
		ret = deny(ctx, 2, c);
		if (ret)
			return ret;
	}
	/* A stream socket that is not TCP: SCTP, MPTCP. */
	c[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, SOCKRULE_TYPE_MASK, SOCK_STREAM);
	c[2] = SCMP_A2(SCMP_CMP_GT, IPPROTO_TCP);
	return deny(ctx, 3, c);
}

/* System calls refused whatever their arguments, and how. */
static const struct {
	const char *name;
	int err;
} refused[] = {
	{ "io_uring_setup", ENOSYS },
	{ "io_uring_enter", ENOSYS },
	{ "io_uring_register", ENOSYS },
	{ "clone3", ENOSYS },
	{ "keyctl", EPERM },
	{ "add_key", EPERM },
	{ "request_key", EPERM },
	{ "init_module", EPERM },
	{ "finit_module", EPERM },
	{ "delete_module", EPERM },
	{ "kexec_load", EPERM },
	{ "kexec_file_load", EPERM },
	{ "reboot", EPERM },
	{ "swapon", EPERM },
	{ "swapoff", EPERM },
	{ "sethostname", EPERM },
	{ "setdomainname", EPERM },
	{ "settimeofday", EPERM },
	{ "clock_settime", EPERM },
	{ "clock_adjtime", EPERM },
	{ "adjtimex", EPERM },
	{ "acct", EPERM },
	{ "bpf", EPERM },
	{ "perf_event_open", EPERM },
	{ "unshare", EPERM },
	{ "setns", EPERM },
	{ "open_by_handle_at", EPERM },
	{ "userfaultfd", EPERM },
};

/* The flags of clone() that make a new namespace. */
static const unsigned long ns_flags[] = {
	CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID,    CLONE_NEWNET,
	CLONE_NEWUTS,  CLONE_NEWIPC, CLONE_NEWCGROUP,
};

/* ioctl requests that write into the terminal's input. */
static const unsigned long tty_injection[] = { TIOCSTI, TIOCLINUX };

static int prio_self_only(scmp_filter_ctx ctx)
{
	static const char *const by_pid[] = { "sched_setscheduler",
					      "sched_setparam",
					      "sched_setattr" };
	int ret;

	/* setpriority(which, who, prio): PRIO_PROCESS is 0 */
	ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
			       SCMP_SYS(setpriority), 1,
			       SCMP_A0(SCMP_CMP_NE, PRIO_PROCESS));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				       SCMP_SYS(setpriority), 1,
				       SCMP_A1(SCMP_CMP_NE, 0));
	/* ioprio_set(which, who, ioprio): IOPRIO_WHO_PROCESS is 1 */
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				       SCMP_SYS(ioprio_set), 1,
				       SCMP_A0(SCMP_CMP_NE, 1));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				       SCMP_SYS(ioprio_set), 1,
				       SCMP_A1(SCMP_CMP_NE, 0));
	for (size_t i = 0; !ret && i < sizeof(by_pid) / sizeof(by_pid[0]); i++)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				       seccomp_syscall_resolve_name(by_pid[i]),
				       1, SCMP_A0(SCMP_CMP_NE, 0));
	return ret;
}

static int harden(scmp_filter_ctx ctx, bool own_pidns)
{
	int ret;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int nr = seccomp_syscall_resolve_name(refused[i].name);

		if (nr == __NR_SCMP_ERROR)
			continue; /* not on this architecture */
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(refused[i].err), nr,
				       0);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < sizeof(tty_injection) / sizeof(tty_injection[0]);
	     i++) {
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				       SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL,
					       tty_injection[i]));
		if (ret)
			return ret;
	}
	/* Without a PID namespace of its own, the command could name the
	 * processes outside: prlimit64 with new limits and the priority
	 * calls only on the caller itself (pid 0).  Landlock leaves them to
	 * the uid check. */
	if (!own_pidns) {
		ret = seccomp_rule_add(
			ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prlimit64), 2,
			SCMP_A0(SCMP_CMP_NE, 0), SCMP_A2(SCMP_CMP_NE, 0));
		if (!ret)
			ret = prio_self_only(ctx);
		if (ret)
			return ret;
	}
	/* clone() with any CLONE_NEW* flag makes a namespace. */
	for (size_t i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
		ret = seccomp_rule_add(
			ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
			SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
		if (ret)
			return ret;
	}
	return 0;
}

/* sendto(fd, buf, len, flags, ...) and sendmmsg(fd, vec, n, flags) carry
 * the flags in their fourth argument, sendmsg(fd, msg, flags) in its
 * third. */
static int no_fastopen(scmp_filter_ctx ctx)
{
	static const struct {
		int nr;
		unsigned int arg;
	} sends[] = {
		{ SCMP_SYS(sendto), 3 },
		{ SCMP_SYS(sendmsg), 2 },
		{ SCMP_SYS(sendmmsg), 3 },
	};
	int ret = 0;

	for (size_t i = 0; !ret && i < sizeof(sends) / sizeof(sends[0]); i++) {
		struct scmp_arg_cmp c = {
			.arg = sends[i].arg,
			.op = SCMP_CMP_MASKED_EQ,
			.datum_a = MSG_FASTOPEN,
			.datum_b = MSG_FASTOPEN,
		};

		ret = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP),
					     sends[i].nr, 1, &c);
	}
	return ret;
}

static int build(scmp_filter_ctx ctx, const struct policy *p, bool own_pidns)
{
	/* Network off: no IPv4 or IPv6 socket at all, or, in a network
	 * namespace of the command's own, TCP ones only, as with ports:
	 * Landlock refuses their every port, and what it misses (a listen()
	 * without bind() binds an ephemeral port) stays in the namespace. */
	bool all = p->net == NET_OFF && !ns_own_net();
	int ret;

	/* Another ABI's system calls kill the process (the default
	 * architecture list holds the native one only). */
	ret = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
			       SCMP_ACT_KILL_PROCESS);
	/* a binary search on the system call number, not a list: every
	 * system call the command makes runs this filter (make bench) */
	if (!ret)
		ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (!ret)
		ret = harden(ctx, own_pidns);
	if (ret || p->net == NET_ON)
		return ret;
	ret = deny_family(ctx, sockrule_families[0], all);
	if (!ret)
		ret = deny_family(ctx, sockrule_families[1], all);
	if (!ret)
		ret = seccomp_rule_add(
			ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
			SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)sockrule_packet));
	if (!ret)
		ret = no_fastopen(ctx);
	return ret;
}

int sysfilter_apply(const struct policy *p, bool own_pidns, char *err,
		    size_t errlen)
{
	scmp_filter_ctx ctx;
	int ret;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		snprintf(err, errlen, "cannot create a seccomp filter");
		return -ENOMEM;
	}
	ret = build(ctx, p, own_pidns);
	if (!ret)
		ret = seccomp_load(ctx);
	if (ret)
		snprintf(err, errlen, "cannot install the seccomp filter: %s",
			 strerror(-ret));
	seccomp_release(ctx);
	return ret;
}
