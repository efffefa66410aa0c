/*
 * Unit tests of the decision (shim/core/guarantee.c) on the table of
 * guarantees (enforce/linux/guarantees.c): on the feature sets of the
 * kernels people run, which guarantees are held, by what, and what
 * would hold the others.  The rows are the layers' own (Landlock at an
 * ABI, the namespaces made or not, the broker's as sockgate.c makes
 * them, available or not as the host has seccomp user notification).
 * Landlock's rows come from this machine's kernel's trials
 * (landlock_features() tries each right): the rights past its ABI are
 * made available by hand where a test models a newer kernel (host10()).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "enforce/linux/linux.h"
#include "shim/core/landlock.h"

#define NEEDS                                                                  \
	"unprivileged user namespaces: off here, the sysctl "                  \
	"user.max_user_namespaces is 0"

/* The rows of a kernel with Landlock @abi, the namespaces (@ns) and the
 * broker (@broker), and the default policy's guarantees, into @s. */
static void host(struct feature_set *s, const struct policy *p, int abi,
		 bool ns, bool broker)
{
	memset(s, 0, sizeof(*s));
	landlock_features(p, abi, s);
	sockgate_rows(p, s, broker);
	caps_features(s, false);
	ns_add_rows(p, s, ns, ns, true, NEEDS);
	sysfilter_features(p, s);
	guarantees_add(p, s);
}

/* A kernel with Landlock ABI 10's rights (RESOLVE_UNIX, UDP), the
 * namespaces @ns and the broker: this machine's rows up to its own ABI,
 * the newer made available as a 7.2 kernel has them. */
static void host10(struct feature_set *s, const struct policy *p, bool ns)
{
	static const char *const newer[] = { FEATURE_RESOLVE_UNIX, FEATURE_UDP,
					     FEATURE_ABSTRACT,
					     FEATURE_SIGNALS };

	memset(s, 0, sizeof(*s));
	landlock_features(p, 10, s);
	for (size_t i = 0; i < sizeof(newer) / sizeof(newer[0]); i++)
		((struct feature *)feature_find(s, newer[i]))->available = true;
	sockgate_rows(p, s, true);
	caps_features(s, false);
	ns_add_rows(p, s, ns, ns, true, NEEDS);
	sysfilter_features(p, s);
	guarantees_add(p, s);
}

static const struct guarantee *g(const struct feature_set *s, const char *name)
{
	const struct guarantee *found = guarantee_find(s, name);

	cr_assert_not_null(found, "no guarantee '%s'", name);
	return found;
}

/* "held by" @g, joined with ", " */
static const char *by(const struct feature_set *s, const char *name)
{
	static char out[256];
	const char *words[GUARANTEE_BY_MAX];
	size_t n = guarantee_holders(s, g(s, name), words, GUARANTEE_BY_MAX);

	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof(out); i++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s",
					i ? ", " : "", words[i]);
	return out;
}

/* The needed guarantees nothing holds in @s, in the table's order,
 * joined with "; " */
static const char *unheld(const struct feature_set *s)
{
	static char out[2048];

	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < s->ng && len < sizeof(out); i++)
		if (guarantee_missing(s, &s->g[i]))
			len += (size_t)snprintf(out + len, sizeof(out) - len,
						"%s%s", len ? "; " : "",
						s->g[i].name);
	return out;
}

#define G_READ	   "read only the readable roots"
#define G_WRITE	   "write, create or remove only under the writable roots"
#define G_TRUNCATE "truncate only under the writable roots"
#define G_META	   "change metadata only under the writable roots"
#define G_EXEC	   "execute only the exec roots"
#define G_MAPPED   "no program mapped from a non-exec root"
#define G_TCP	   "no TCP beyond the grant"
#define G_UDP	   "no UDP beyond the grant"
#define G_RAW	   "no raw or other socket families"
#define G_LISTEN   "no TCP listener on a port not granted"
#define G_ABSTRACT "no abstract UNIX socket outside"
#define G_LATE	   "no pathname UNIX socket outside bound after the start"
#define G_SIGNAL   "no signal to processes outside"
#define G_PTRACE                                                               \
	"no ptrace of processes outside (their memory, environment, fds)"
#define G_PROC	  "no /proc view of processes outside (listing, command lines)"
#define G_IOCTL	  "no device ioctl outside the grant"
#define G_SYSV	  "no SysV IPC of the host"
#define G_SHM	  "no /dev/shm of the host"
#define G_PTYS	  "no terminal of the host (other ptys)"
#define G_PROTECT "protected paths in writable roots stay read-only"
#define G_PID1	  "cordon's pid 1 holds nothing (no tracing, environment, fds)"

/* Debian 11's 5.10: no Landlock, no broker (5.19); the namespaces and
 * the command's world hold the filesystem, the network namespace the
 * network; what only the broker holds is named. */
Test(guarantees, linux_5_10_without_landlock_with_namespaces)
{
	static struct feature_set s;
	struct policy p = { .net = NET_OFF };

	host(&s, &p, -ENOSYS, true, false);
	cr_assert_str_eq(by(&s, G_READ), "the mount namespace");
	cr_assert_str_eq(by(&s, G_WRITE), "the mount namespace");
	cr_assert_str_eq(by(&s, G_EXEC), "the mount namespace");
	cr_assert_str_eq(by(&s, G_IOCTL), "the mount namespace");
	cr_assert_str_eq(by(&s, G_TRUNCATE), "the mount namespace");
	cr_assert_str_eq(by(&s, G_SIGNAL), "the PID namespace");
	cr_assert_str_eq(by(&s, G_TCP),
			 "the network namespace, the seccomp filter");
	cr_assert_str_eq(by(&s, G_ABSTRACT), "the network namespace");
	cr_assert_str_eq(by(&s, G_SYSV), "the IPC namespace");
	cr_assert_str_eq(unheld(&s), G_LATE);
	cr_assert_eq(feature_missing(&s), 1);
}

/* Without the world (before the lead's mounts), reading has nothing. */
Test(guarantees, no_landlock_no_world_reads_anything)
{
	static struct feature_set s;
	struct policy p = { .net = NET_OFF };

	memset(&s, 0, sizeof(s));
	landlock_features(&p, -ENOSYS, &s);
	ns_add_rows(&p, &s, true, true, false, NEEDS);
	guarantees_add(&p, &s);
	cr_assert(guarantee_missing(&s, g(&s, G_READ)));
	cr_assert(!guarantee_missing(&s, g(&s, G_WRITE)));
}

/* Debian 12's 6.1: Landlock ABI 2; every guarantee held, what ABI 2
 * lacks by the namespaces, the filter and the broker. */
Test(guarantees, linux_6_1_abi_2_with_namespaces_holds_everything)
{
	static struct feature_set s;
	struct policy p = { .net = NET_OFF };

	host(&s, &p, 2, true, true);
	cr_assert_str_eq(unheld(&s), "");
	cr_assert_eq(feature_missing(&s), 0);
	cr_assert_str_eq(by(&s, G_READ), "Landlock, the mount namespace");
	cr_assert_str_eq(by(&s, G_TRUNCATE), "the mount namespace");
	cr_assert_str_eq(by(&s, G_SIGNAL), "the PID namespace");
	cr_assert_str_eq(by(&s, G_IOCTL), "Landlock, the mount namespace");
	cr_assert_str_eq(by(&s, G_ABSTRACT),
			 "the broker, the network namespace");
	cr_assert_str_eq(by(&s, G_PTRACE), "Landlock, the PID namespace");
	/* each row Landlock lacks stands in by its guarantees' others */
	cr_assert(feature_stood_in(&s, feature_find(&s, FEATURE_TRUNCATE)));
	cr_assert(feature_stood_in(&s, feature_find(&s, FEATURE_SIGNALS)));
	cr_assert(!feature_stood_in(&s, feature_find(&s, FEATURE_FS_RULES)));
	/* with TCP ports granted the network is the host's: only Landlock
	 * ABI 4 holds a port, and it is named */
	p.net = NET_PORTS;
	host(&s, &p, 2, true, true);
	cr_assert_str_eq(unheld(&s), G_TCP);
	cr_assert_str_eq(by(&s, G_UDP), "the seccomp filter");
	cr_assert_str_eq(by(&s, G_RAW), "the seccomp filter");
	cr_assert_str_eq(by(&s, G_LISTEN), "the broker");
}

/* Without user namespaces on this machine's kernel (ABI 7): Landlock
 * and the filter hold the files, the network, the processes' signals
 * and tracing, SysV IPC; the rest is named, each with the reason. */
Test(guarantees, no_user_namespaces_abi_7)
{
	static struct feature_set s;
	struct policy p = { .net = NET_OFF };
	char would[1024];

	host(&s, &p, 7, false, true);
	cr_assert_str_eq(unheld(&s), G_META "; " G_MAPPED "; " G_PROC "; " G_SHM
					    "; " G_PTYS "; " G_PROTECT);
	cr_assert_str_eq(by(&s, G_READ), "Landlock");
	cr_assert_str_eq(by(&s, G_TRUNCATE), "Landlock");
	cr_assert_str_eq(by(&s, G_TCP), "Landlock, the seccomp filter");
	cr_assert_str_eq(by(&s, G_UDP), "the seccomp filter");
	cr_assert_str_eq(by(&s, G_SIGNAL), "Landlock");
	cr_assert_str_eq(by(&s, G_PTRACE), "Landlock");
	cr_assert_str_eq(by(&s, G_PID1), "Landlock");
	cr_assert_str_eq(by(&s, G_SYSV), "the seccomp filter");
	cr_assert_str_eq(
		guarantee_would(&s, g(&s, G_META), would, sizeof(would)),
		"the mount namespace (" NEEDS ")");
}

/* Without user namespaces on Landlock ABI 2: truncation and signals
 * too, each with both of what would hold it. */
Test(guarantees, no_user_namespaces_abi_2)
{
	static struct feature_set s;
	struct policy p = { .net = NET_OFF };
	char would[1024];

	host(&s, &p, 2, false, true);
	cr_assert_str_eq(unheld(&s), G_TRUNCATE
			 "; " G_META "; " G_MAPPED "; " G_SIGNAL "; " G_PROC
			 "; " G_SHM "; " G_PTYS "; " G_PROTECT);
	cr_assert_str_eq(
		guarantee_would(&s, g(&s, G_TRUNCATE), would, sizeof(would)),
		"Landlock ABI 3 (Linux 6.2) or the mount namespace "
		"(" NEEDS ")");
	cr_assert_str_eq(
		guarantee_would(&s, g(&s, G_SIGNAL), would, sizeof(would)),
		"Landlock ABI 6 (Linux 6.12) or the PID namespace "
		"(" NEEDS ")");
	/* held without namespaces: TCP by the filter, ioctls by the
	 * filesystem rules, abstract sockets by the broker */
	cr_assert_str_eq(by(&s, G_TCP), "the seccomp filter");
	cr_assert_str_eq(by(&s, G_IOCTL), "Landlock");
	cr_assert_str_eq(by(&s, G_ABSTRACT), "the broker");
	cr_assert_eq(feature_missing(&s), 8);
}

/* Every needed row serves a guarantee: none is a reason to refuse of
 * its own (feature_alone_missing()), on any of these hosts. */
Test(guarantees, every_row_holds_a_guarantee)
{
	static struct feature_set s;
	static const enum net_mode nets[] = { NET_OFF, NET_PORTS, NET_ON,
					      NET_HOSTS };

	for (size_t n = 0; n < 4; n++) {
		struct policy p = { .net = nets[n] };

		host(&s, &p, -ENOSYS, false, false);
		for (size_t i = 0; i < s.n; i++)
			cr_assert(!feature_alone_missing(&s, &s.f[i]),
				  "row '%s' holds no guarantee", s.f[i].name);
		cr_assert_lt(s.n, FEATURE_MAX);
		cr_assert_lt(s.ng, FEATURE_GUARANTEES);
	}
}

/* A row no guarantee names still refuses when it is missing. */
Test(guarantees, a_row_of_no_guarantee_refuses_alone)
{
	static struct feature_set s;

	feature_add(&s, (struct feature){ .layer = "x",
					  .name = "new",
					  .needs = "y",
					  .needed = true });
	cr_assert_eq(feature_missing(&s), 1);
	feature_guarantee(&s, (struct guarantee){ "g", true, { "new" } });
	cr_assert_eq(feature_missing(&s), 1); /* the guarantee, now */
	cr_assert(!feature_alone_missing(&s, &s.f[0]));
	s.f[0].available = true;
	cr_assert_eq(feature_missing(&s), 0);
}

/* The filter's SysV rule holds where the IPC namespace is not, and is
 * not counted where it is (not needed: it is not installed there); the
 * seccomp layer stays whole either way (the launcher installs the
 * filter only when every row of its layer is available). */
Test(guarantees, sysv_filter_only_without_ipc_namespace)
{
	static struct feature_set s;
	struct policy p = { .net = NET_OFF };

	host(&s, &p, 7, true, true);
	cr_assert(!feature_find(&s, FEATURE_SYSV)->needed);
	cr_assert_str_eq(by(&s, G_SYSV), "the IPC namespace");
	cr_assert(feature_layer_ok(&s, "seccomp"));
	host(&s, &p, 7, false, true);
	cr_assert(feature_find(&s, FEATURE_SYSV)->needed);
	cr_assert_str_eq(by(&s, G_SYSV), "the seccomp filter");
	cr_assert(feature_layer_ok(&s, "seccomp"));
}

/* Debian's 7.2 (Landlock ABI 10): Landlock holds the late pathname UNIX
 * sockets and UDP; the broker is not installed for connects and sends,
 * only for listen() with TCP ports. */
Test(guarantees, linux_7_2_abi_10_landlock_holds_unix_and_udp)
{
	static struct feature_set s;
	struct policy p = { .net = NET_OFF };

	host10(&s, &p, true);
	cr_assert_str_eq(unheld(&s), "");
	cr_assert_str_eq(by(&s, G_LATE), "Landlock");
	cr_assert_str_eq(by(&s, G_UDP),
			 "Landlock, the network namespace, the seccomp filter");
	cr_assert(!feature_find(&s, FEATURE_BROKER)->needed);
	cr_assert_eq(sockgate_broker(&s), SOCKGATE_NONE);
	/* TCP ports: the host's network; listen() alone is brokered */
	p.net = NET_PORTS;
	host10(&s, &p, true);
	cr_assert_str_eq(unheld(&s), "");
	cr_assert_eq(sockgate_broker(&s), SOCKGATE_LISTEN);
	cr_assert_str_eq(by(&s, G_LISTEN), "the broker");
	/* UDP ports granted: the filter lets UDP sockets be made, and
	 * only Landlock holds their ports */
	p.connect_udp[0] = 53;
	p.nconnect_udp = 1;
	host10(&s, &p, true);
	cr_assert_str_eq(by(&s, G_UDP), "Landlock");
	cr_assert_str_eq(unheld(&s), "");
}

/* Without Landlock's UDP rights (this machine's ABI 7), a UDP port with
 * the host's network is held by nothing, and named with what would. */
Test(guarantees, udp_ports_need_landlock_abi_10)
{
	static struct feature_set s;
	struct policy p = { .net = NET_PORTS };
	char would[1024];

	p.connect_udp[0] = 53;
	p.nconnect_udp = 1;
	host(&s, &p, 7, true, true);
	cr_assert_str_eq(unheld(&s), G_UDP);
	cr_assert_str_eq(
		guarantee_would(&s, g(&s, G_UDP), would, sizeof(would)),
		"Landlock ABI 10 (Linux 7.2)");
	/* the broker holds the late sockets here, wholly */
	cr_assert_eq(sockgate_broker(&s), SOCKGATE_ALL);
	cr_assert_str_eq(by(&s, G_LATE), "the broker");
}
