/*
 * netcap_rules.c - what transparent capture (netcap.c) sets in the
 * namespace's kernel: the loopback's addresses and default routes
 * (rtnetlink, written here: libnl's static archives crash a static-pie
 * program at start) and nft's table (nft run as a program: libnftables
 * has no static archive in Debian).  In pid 1, before the command.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/linux/linux.h"

static const char *const nft_paths[] = { "/usr/sbin/nft", "/sbin/nft",
					 "/usr/bin/nft", "/bin/nft", NULL };

const char *netcap_nft(void)
{
	for (size_t i = 0; nft_paths[i]; i++)
		if (access(nft_paths[i], X_OK) == 0)
			return nft_paths[i];
	return NULL;
}

/* ---- rtnetlink: two addresses and two routes on the loopback ---- */

struct nlreq {
	struct nlmsghdr h;
	union {
		struct ifaddrmsg ifa;
		struct rtmsg rt;
	} u;
	char attrs[64];
};

static void put_attr(struct nlreq *r, unsigned short type, const void *data,
		     size_t len)
{
	struct rtattr *a =
		(struct rtattr *)((char *)r + NLMSG_ALIGN(r->h.nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* Send @r, read its acknowledgement.  Return: 0 or -errno. */
static int nl_talk(int nl, struct nlreq *r)
{
	char buf[512];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	ssize_t n;

	r->h.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (send(nl, r, r->h.nlmsg_len, 0) < 0)
		return -errno;
	n = recv(nl, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(h, (size_t)n) || h->nlmsg_type != NLMSG_ERROR)
		return -EPROTO;
	return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
}

static int add_addr(int nl, int lo, int family, const void *addr, size_t len)
{
	struct nlreq r = { .h = { .nlmsg_len = NLMSG_LENGTH(sizeof(r.u.ifa)),
				  .nlmsg_type = RTM_NEWADDR,
				  .nlmsg_flags =
					  NLM_F_CREATE | NLM_F_REPLACE } };
	int ret;

	r.u.ifa.ifa_family = (unsigned char)family;
	r.u.ifa.ifa_prefixlen = (unsigned char)(len * 8);
	r.u.ifa.ifa_flags = family == AF_INET6 ? IFA_F_NODAD : 0;
	r.u.ifa.ifa_scope = RT_SCOPE_HOST;
	r.u.ifa.ifa_index = (unsigned)lo;
	put_attr(&r, IFA_LOCAL, addr, len);
	put_attr(&r, IFA_ADDRESS, addr, len);
	ret = nl_talk(nl, &r);
	return ret == -EEXIST ? 0 : ret;
}

static int add_route(int nl, int lo, int family, const void *src, size_t len)
{
	struct nlreq r = { .h = { .nlmsg_len = NLMSG_LENGTH(sizeof(r.u.rt)),
				  .nlmsg_type = RTM_NEWROUTE,
				  .nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL } };
	int oif = lo;

	r.u.rt.rtm_family = (unsigned char)family;
	r.u.rt.rtm_table = RT_TABLE_MAIN;
	r.u.rt.rtm_protocol = RTPROT_BOOT;
	r.u.rt.rtm_scope = RT_SCOPE_LINK;
	r.u.rt.rtm_type = RTN_UNICAST;
	put_attr(&r, RTA_OIF, &oif, sizeof(oif));
	put_attr(&r, RTA_PREFSRC, src, len);
	return nl_talk(nl, &r);
}

/* The dummy addresses and the default routes through the loopback. */
int netcap_routes(int lo, bool extra_only, const struct sockaddr_storage *ns,
		  size_t nns)
{
	struct in_addr a4;
	struct in6_addr a6;
	int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	int ret = nl < 0 ? -errno : 0;

	inet_pton(AF_INET, NETCAP_SRC4, &a4);
	inet_pton(AF_INET6, NETCAP_SRC6, &a6);
	/* a name server's address, when it is none of the loopback's */
	for (size_t i = 0; !ret && i < nns; i++) {
		const struct sockaddr_in *s4 = (const void *)&ns[i];
		const struct sockaddr_in6 *s6 = (const void *)&ns[i];

		if (ns[i].ss_family == AF_INET &&
		    (ntohl(s4->sin_addr.s_addr) >> 24) != 127)
			ret = add_addr(nl, lo, AF_INET, &s4->sin_addr, 4);
		else if (ns[i].ss_family == AF_INET6 &&
			 !IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr))
			ret = add_addr(nl, lo, AF_INET6, &s6->sin6_addr, 16);
	}
	if (!ret && !extra_only) {
		ret = add_addr(nl, lo, AF_INET, &a4, 4);
		if (!ret)
			ret = add_route(nl, lo, AF_INET, &a4, 4);
		/* a kernel without IPv6 (ipv6.disable=1) captures IPv4 */
		if (!ret && add_addr(nl, lo, AF_INET6, &a6, 16) == 0)
			ret = add_route(nl, lo, AF_INET6, &a6, 16);
	}
	if (nl >= 0)
		close(nl);
	return ret;
}

/* ---- nft ---- */

/* "127.0.0.0/8, 192.0.0.8" and the IPv4 name servers (@v6: "::1, ..."
 * and the IPv6 ones): the namespace's own addresses. */
static void own_set(char *buf, size_t cap, bool v6,
		    const struct sockaddr_storage *ns, size_t nns)
{
	size_t len = (size_t)snprintf(buf, cap, "%s",
				      v6 ? "::1, " NETCAP_SRC6
					 : "127.0.0.0/8, " NETCAP_SRC4);

	for (size_t i = 0; i < nns && len + INET6_ADDRSTRLEN + 3 < cap; i++) {
		char a[INET6_ADDRSTRLEN];
		const void *raw =
			ns[i].ss_family == AF_INET
				? (const void *)&(
					  (const struct sockaddr_in *)&ns[i])
					  ->sin_addr
				: (const void *)&(
					  (const struct sockaddr_in6 *)&ns[i])
					  ->sin6_addr;

		if ((ns[i].ss_family == AF_INET6) != v6 ||
		    !inet_ntop(ns[i].ss_family, raw, a, sizeof(a)))
			continue;
		len += (size_t)snprintf(buf + len, cap - len, ", %s", a);
	}
}

/* The table: what is the namespace's own goes as it is (the resolver
 * listens on the name servers' addresses), port 53 anywhere else to the
 * resolver, other TCP to the capture's listener, the rest refused. */
static size_t nft_rules(char *buf, size_t cap,
			const struct sockaddr_storage *ns, size_t nns)
{
	char own4[512], own6[1024];
	int n;

	own_set(own4, sizeof(own4), false, ns, nns);
	own_set(own6, sizeof(own6), true, ns, nns);
	n = snprintf(buf, cap,
		     "table inet cordon {\n"
		     " chain nat {\n"
		     "  type nat hook output priority -100; policy accept;\n"
		     "  ip daddr { %s } accept\n"
		     "  ip6 daddr { %s } accept\n"
		     "  meta l4proto { tcp, udp } th dport 53 redirect to :53\n"
		     "  meta l4proto tcp redirect to :%d\n"
		     " }\n"
		     " chain filter {\n"
		     "  type filter hook output priority 0; policy accept;\n"
		     "  ip daddr { %s } accept\n"
		     "  ip6 daddr { %s } accept\n"
		     "  meta l4proto tcp reject with tcp reset\n"
		     "  reject\n"
		     " }\n"
		     "}\n",
		     own4, own6, POLICY_CAPTURE_PORT, own4, own6);
	return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

/* In the child that runs nft: keep CAP_NET_ADMIN across the exec (a
 * user's pid 1 holds it in its user namespace, which an exec by a uid
 * other than 0 would clear). */
static void keep_net_admin(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (geteuid() == 0 || syscall(SYS_capget, &h, d))
		return;
	d[CAP_NET_ADMIN / 32].inheritable |= 1u << (CAP_NET_ADMIN % 32);
	if (syscall(SYS_capset, &h, d) == 0)
		prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_ADMIN, 0,
		      0);
}

/* Read what nft said (its first line) into @err. */
static void nft_said(int fd, char *err, size_t errlen)
{
	char buf[240];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	char *nl;

	if (n <= 0) {
		snprintf(err, errlen, "nft failed");
		return;
	}
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	snprintf(err, errlen, "nft: %s", buf);
}

/* Run nft -f - with the rules on its standard input.  Return: 0, or -1
 * with @err set. */
int netcap_rules(const struct sockaddr_storage *ns, size_t nns, char *err,
		 size_t errlen)
{
	const char *nft = netcap_nft();
	char rules[4096];
	size_t len = nft_rules(rules, sizeof(rules), ns, nns);
	int in[2], out[2], st;
	pid_t pid;

	if (!nft || !len) {
		snprintf(err, errlen, "no nft (Debian's nftables) found");
		return -1;
	}
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if (write(in[1], rules, len) != (ssize_t)len) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	close(in[1]);
	pid = fork();
	if (pid == 0) {
		static char a0[] = "nft", a1[] = "-f", a2[] = "-",
			    e0[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
		char *const argv[] = { a0, a1, a2, NULL };
		char *const envp[] = { e0, NULL };

		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		keep_net_admin();
		execve(nft, argv, envp);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	if (pid < 0) {
		close(out[0]);
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		close(out[0]);
		return 0;
	}
	nft_said(out[0], err, errlen);
	close(out[0]);
	return -1;
}
