/*
 * filters.c - the seccomp programs cordon installs, built with
 * libseccomp: the system filter (sysfilter.c argues each rule) in each
 * of its variants, and the broker's (broker_loop.c).
 *
 * They are built once, when cordon is built (scripts/filtergen.c writes
 * them into the launcher as BPF: filters_compiled.c), not at each
 * start, where compiling them cost ~0.3 ms and ~20 page faults of pid
 * 1 (make bench); the unit tests check that what is compiled in is what
 * this file builds now (test_filters).
 */
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/linux/filters.h"
#include "shim/core/sockrule.h"

static int deny(scmp_filter_ctx ctx, unsigned int n,
		const struct scmp_arg_cmp *cmp)
{
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EACCES),
				      SCMP_SYS(socket), n, cmp);
}

/* What deny_family() lets through of a family. */
enum keep { KEEP_NONE, KEEP_TCP, KEEP_TCP_UDP };

/* A datagram socket that is not plain UDP: ICMP ("ping"), UDP-Lite, any
 * other protocol than 0 and IPPROTO_UDP (as the 64-bit register it
 * travels in: a negative one is a huge one). */
static int deny_not_udp(scmp_filter_ctx ctx, struct scmp_arg_cmp *c)
{
	int ret;

	c[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, SOCKRULE_TYPE_MASK, SOCK_DGRAM);
	c[2] = SCMP_A2(SCMP_CMP_GT, IPPROTO_UDP);
	ret = deny(ctx, 3, c);
	for (scmp_datum_t proto = 1; !ret && proto < IPPROTO_UDP; proto++) {
		c[2] = SCMP_A2(SCMP_CMP_EQ, proto);
		ret = deny(ctx, 3, c);
	}
	return ret;
}

/* Refuse every socket of @family but what @keep keeps. */
static int deny_family(scmp_filter_ctx ctx, int family, enum keep keep)
{
	struct scmp_arg_cmp c[3] = { SCMP_A0(SCMP_CMP_EQ,
					     (scmp_datum_t)family) };
	int ret;

	if (keep == KEEP_NONE)
		return deny(ctx, 1, c);
	for (size_t i = 0; i < sizeof(sockrule_not_tcp) / sizeof(int); i++) {
		if (keep == KEEP_TCP_UDP && sockrule_not_tcp[i] == SOCK_DGRAM)
			continue;
		c[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, SOCKRULE_TYPE_MASK,
			       (scmp_datum_t)sockrule_not_tcp[i]);
		ret = deny(ctx, 2, c);
		if (ret)
			return ret;
	}
	if (keep == KEEP_TCP_UDP) {
		ret = deny_not_udp(ctx, c);
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

/* SysV IPC: refused without an IPC namespace of the command's own. */
static const char *const sysv[] = {
	"shmget", "shmat",  "shmctl", "msgget",	    "msgsnd", "msgrcv",
	"msgctl", "semget", "semop",  "semtimedop", "semctl",
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
		/* nor an IPC namespace: the host's SysV IPC is found by
		 * key, so none at all */
		for (size_t i = 0; !ret && i < sizeof(sysv) / sizeof(sysv[0]);
		     i++)
			ret = seccomp_rule_add(
				ctx, SCMP_ACT_ERRNO(EPERM),
				seccomp_syscall_resolve_name(sysv[i]), 0);
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

int filters_build(scmp_filter_ctx ctx, unsigned int variant)
{
	unsigned int net = variant / 2;
	enum keep keep;
	int ret;

	if (variant >= FILTERS_SYSTEM)
		return -EINVAL;
	/* Another ABI's system calls kill the process (the default
	 * architecture list holds the native one only). */
	ret = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
			       SCMP_ACT_KILL_PROCESS);
	/* a binary search on the system call number, not a list: every
	 * system call the command makes runs this filter (make bench) */
	if (!ret)
		ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (!ret)
		ret = harden(ctx, variant % 2);
	if (ret || net == FILTERS_NET_ON)
		return ret;
	keep = net == FILTERS_NET_NO_IP	    ? KEEP_NONE
	       : net == FILTERS_NET_TCP_UDP ? KEEP_TCP_UDP
					    : KEEP_TCP;
	ret = deny_family(ctx, sockrule_families[0], keep);
	if (!ret)
		ret = deny_family(ctx, sockrule_families[1], keep);
	if (!ret)
		ret = seccomp_rule_add(
			ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
			SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)sockrule_packet));
	if (!ret)
		ret = no_fastopen(ctx);
	return ret;
}

/* With the network shared, bind() too (broker_own.c notes the command's
 * own UNIX sockets); with TCP ports allowed, listen() (a listen() on a
 * socket bound to no port takes an ephemeral one).  In a network
 * namespace of the command's own (the network off, hosts allowed) that
 * namespace holds both; with the network on, listen() is free: programs
 * that never bind or listen pay nothing either way.  Where Landlock holds
 * the UNIX sockets (sockgate.c), listen() alone, with TCP ports. */
static int build_broker(scmp_filter_ctx ctx, unsigned int variant)
{
	int ret =
		seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);

	if (!ret && variant == FILTERS_BROKER_LISTEN)
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(listen),
					0);
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect),
				       0);
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendto),
				       1, SCMP_A4(SCMP_CMP_NE, 0));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendmsg),
				       0);
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendmmsg),
				       0);
	if (!ret && variant != FILTERS_BROKER)
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(bind), 0);
	if (!ret && variant == FILTERS_BROKER_PORTS)
		ret = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(listen),
				       0);
	return ret;
}

unsigned int filters_broker_variant(int net)
{
	if (!policy_net_shared((enum net_mode)net))
		return FILTERS_BROKER;
	return net == NET_PORTS ? FILTERS_BROKER_PORTS : FILTERS_BROKER_SHARED;
}

int filters_export(unsigned int variant, struct sock_filter **insns, size_t *n)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	struct stat st;
	int fd = -1, ret;

	*insns = NULL;
	if (!ctx)
		return -ENOMEM;
	ret = variant >= FILTERS_N	  ? -EINVAL
	      : variant >= FILTERS_BROKER ? build_broker(ctx, variant)
					  : filters_build(ctx, variant);
	if (!ret) {
		fd = memfd_create("cordon-filter", MFD_CLOEXEC);
		ret = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
	}
	if (!ret && fstat(fd, &st))
		ret = -errno;
	if (!ret &&
	    (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) ||
	     st.st_size > BPF_MAXINSNS * (off_t)sizeof(struct sock_filter)))
		ret = -E2BIG;
	if (!ret) {
		*insns = malloc((size_t)st.st_size);
		if (!*insns)
			ret = -ENOMEM;
		else if (pread(fd, *insns, (size_t)st.st_size, 0) != st.st_size)
			ret = -EIO;
	}
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	if (ret) {
		free(*insns);
		*insns = NULL;
		return ret;
	}
	*n = (size_t)st.st_size / sizeof(struct sock_filter);
	return 0;
}
