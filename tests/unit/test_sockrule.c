/*
 * Unit tests of the sockets the seccomp filter refuses
 * (shim/core/sockrule_linux.c): the shim's reading, sockrule_check(),
 * against the filter itself (enforce/linux/sysfilter.c) installed in a child,
 * for every network policy and a matrix of socket() calls; and the
 * words of a call.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/linux/linux.h"
#include "shim/core/sockrule.h"

static const int domains[] = { AF_INET, AF_INET6, AF_PACKET, AF_UNIX,
			       AF_NETLINK };
static const int types[] = { SOCK_STREAM,
			     SOCK_DGRAM,
			     SOCK_RAW,
			     SOCK_SEQPACKET,
			     SOCK_RDM,
			     SOCK_DCCP,
			     SOCK_PACKET,
			     SOCK_STREAM | SOCK_NONBLOCK,
			     SOCK_DGRAM | SOCK_CLOEXEC };
/* (not IPPROTO_ICMP: the kernel itself refuses a ping socket with
 * EACCES outside net.ipv4.ping_group_range, whatever the filter) */
static const int protos[] = { 0,
			      IPPROTO_TCP,
			      IPPROTO_UDP,
			      IPPROTO_SCTP,
			      IPPROTO_MPTCP,
			      IPPROTO_UDPLITE,
			      16,
			      18,
			      -1 };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define N	 (COUNT(domains) * COUNT(types) * COUNT(protos))

/* In a child under the filter for @p: for each call of the matrix, did
 * the filter refuse it (EACCES)? */
static void refused_by_filter(const struct policy *p, char out[N])
{
	int fds[2], st;
	pid_t pid;

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char err[256];
		size_t k = 0;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    sysfilter_apply(p, false, err, sizeof(err)) < 0)
			_exit(2);
		for (size_t d = 0; d < COUNT(domains); d++)
			for (size_t t = 0; t < COUNT(types); t++)
				for (size_t r = 0; r < COUNT(protos); r++) {
					int fd = socket(domains[d], types[t],
							protos[r]);
					char c = fd < 0 && errno == EACCES;

					if (fd >= 0)
						close(fd);
					out[k++] = c;
				}
		_exit(write(fds[1], out, N) == (ssize_t)N ? 0 : 3);
	}
	close(fds[1]);
	cr_assert_eq(read(fds[0], out, N), (ssize_t)N);
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
}

static void same_as_filter(enum net_mode net, bool udp)
{
	struct policy p = { .net = net, .nconnect_udp = udp };
	char got[N];
	size_t k = 0;
	char name[SOCKRULE_NAME_MAX];

	refused_by_filter(&p, got);
	for (size_t d = 0; d < COUNT(domains); d++)
		for (size_t t = 0; t < COUNT(types); t++)
			for (size_t r = 0; r < COUNT(protos); r++, k++) {
				bool shim = sockrule_check(
						    &p, domains[d], types[t],
						    protos[r]) != SOCK_ALLOWED;

				sockrule_name(domains[d], types[t], protos[r],
					      name);
				cr_expect_eq(shim, got[k],
					     "net %d, %s: the shim says %s",
					     net, name,
					     shim ? "refused" : "allowed");
			}
}

Test(sockrule, agrees_with_the_filter_network_off)
{
	same_as_filter(NET_OFF, false);
}

Test(sockrule, agrees_with_the_filter_tcp_ports)
{
	same_as_filter(NET_PORTS, false);
}

/* UDP ports granted: plain UDP is let through, not ICMP, UDP-Lite or
 * another protocol of a datagram socket. */
Test(sockrule, agrees_with_the_filter_udp_ports)
{
	same_as_filter(NET_PORTS, true);
}

Test(sockrule, agrees_with_the_filter_network_on)
{
	same_as_filter(NET_ON, false);
}

Test(sockrule, verdicts)
{
	struct policy off = { .net = NET_OFF }, ports = { .net = NET_PORTS };

	cr_assert_eq(sockrule_check(&off, AF_INET, SOCK_STREAM, 0),
		     SOCK_REFUSED_OFF);
	cr_assert_eq(sockrule_check(&ports, AF_INET, SOCK_STREAM, 0),
		     SOCK_ALLOWED);
	cr_assert_eq(sockrule_check(&ports, AF_INET6, SOCK_DGRAM, 0),
		     SOCK_REFUSED_NOT_TCP);
	cr_assert_eq(sockrule_check(&ports, AF_INET, SOCK_STREAM, IPPROTO_SCTP),
		     SOCK_REFUSED_NOT_TCP);
	cr_assert_eq(sockrule_check(&ports, AF_PACKET, SOCK_RAW, 0),
		     SOCK_REFUSED_PACKET);
	cr_assert_eq(sockrule_check(&off, AF_UNIX, SOCK_DGRAM, 0),
		     SOCK_ALLOWED);
	cr_assert(sockrule_is_tcp(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC,
				  IPPROTO_TCP));
	cr_assert(!sockrule_is_tcp(AF_INET, SOCK_STREAM, IPPROTO_MPTCP));
	cr_assert(!sockrule_is_tcp(AF_UNIX, SOCK_STREAM, 0));
	ports.connect_udp[0] = 53;
	ports.nconnect_udp = 1;
	cr_assert_eq(sockrule_check(&ports, AF_INET6, SOCK_DGRAM, 0),
		     SOCK_ALLOWED);
	cr_assert_eq(sockrule_check(&ports, AF_INET, SOCK_DGRAM, IPPROTO_UDP),
		     SOCK_ALLOWED);
	cr_assert_eq(sockrule_check(&ports, AF_INET, SOCK_DGRAM, IPPROTO_ICMP),
		     SOCK_REFUSED_NOT_TCP);
	cr_assert(sockrule_is_udp(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
	cr_assert(!sockrule_is_udp(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE));
	cr_assert(sockrule_needs_raw(AF_INET, SOCK_RAW));
	cr_assert(sockrule_needs_raw(AF_PACKET, SOCK_DGRAM));
	cr_assert(!sockrule_needs_raw(AF_INET6, SOCK_DGRAM));
}

Test(sockrule, names)
{
	char s[SOCKRULE_NAME_MAX];

	sockrule_name(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0, s);
	cr_assert_str_eq(s, "AF_INET SOCK_DGRAM");
	sockrule_name(AF_INET6, SOCK_STREAM, IPPROTO_SCTP, s);
	cr_assert_str_eq(s, "AF_INET6 SOCK_STREAM IPPROTO_SCTP");
	sockrule_name(AF_PACKET, SOCK_RAW, 0x0300, s);
	cr_assert_str_eq(s, "AF_PACKET SOCK_RAW");
	sockrule_name(AF_INET, 12, -7, s);
	cr_assert_str_eq(s, "AF_INET 12 -7");
	sockrule_name(99, SOCK_STREAM, 0, s);
	cr_assert_str_eq(s, "99 SOCK_STREAM");
}
