/*
 * report_net.c - the denial line and the audit record of a refused
 * network destination: report.c's counterpart for an address.
 *
 * The line names the destination, the rule and the option that allows
 * it, once per (operation, destination) in each process, unless quiet:
 *   cordon: denied connect 127.0.0.1:8080 [connect] (network is off);
 *   allow with --connect 8080
 * and so for what the kernel refused and the shim saw fail: a socket()
 * the seccomp filter refused ("denied socket AF_INET SOCK_DGRAM"), a
 * connect to an abstract UNIX socket outside (Landlock's scope), a host
 * name that no name server could be asked about ("denied lookup").
 * Addresses are formatted here (inet_ntop is not async-signal-safe on
 * every libc).  Raw syscalls and the stack only: this runs in vfork
 * children and signal handlers, and never changes errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/net_names.h"
#include "shim/report_net.h"
#include "shim/shim.h"
#include "shim/core/rule.h"
#include "shim/core/sockrule.h"
#include "shim/core/strbuf.h"

/* The command's own side of its network namespace (hosts allowed): the
 * loopback, and the unspecified address that stands for it. */
bool report_net_local(const struct sockaddr_storage *ss)
{
	static const unsigned char v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
	const unsigned char *b;

	if (ss->ss_family == AF_INET) {
		memcpy(&in, ss, sizeof(in));
		b = (const unsigned char *)&in.sin_addr;
		return b[0] == 127 || in.sin_addr.s_addr == htonl(INADDR_ANY);
	}
	memcpy(&in6, ss, sizeof(in6));
	b = in6.sin6_addr.s6_addr;
	if (memcmp(b, v4mapped, sizeof(v4mapped)) == 0)
		return b[12] == 127 || !(b[12] | b[13] | b[14] | b[15]);
	return IN6_IS_ADDR_LOOPBACK(&in6.sin6_addr) ||
	       IN6_IS_ADDR_UNSPECIFIED(&in6.sin6_addr);
}

#define RULE_MAX 512
/* "with --connect 65535", "by adding 65535 to CORDON_NET", learning
 * "with --allow-host NAME:PORT" */
#define ALLOW_MAX 288
/* a name looked up, learning */
#define HOST_MAX  256
#define NAME_MAX_ 64
/* An address, a socket() in words, or "@" and an abstract UNIX name. */
#define DEST_MAX 112
/* "cordon: denied connect ", " [", "] (", "); allow ", the newline. */
#define LINE_MAX_ (64 + DEST_MAX + NAME_MAX_ + RULE_MAX + ALLOW_MAX)

unsigned int net_port(const struct sockaddr_storage *ss)
{
	struct sockaddr_in in;
	struct sockaddr_in6 in6;

	if (ss->ss_family == AF_INET) {
		memcpy(&in, ss, sizeof(in));
		return ntohs(in.sin_port);
	}
	memcpy(&in6, ss, sizeof(in6));
	return ntohs(in6.sin6_port);
}

static void put_v4(struct strbuf *sb, const unsigned char *b)
{
	for (int i = 0; i < 4; i++) {
		if (i)
			sb_puts(sb, ".");
		sb_uint(sb, b[i]);
	}
}

static void put_hex(struct strbuf *sb, unsigned int v)
{
	static const char hex[] = "0123456789abcdef";
	char d[4];
	size_t i = sizeof(d);

	do {
		d[--i] = hex[v & 15];
		v >>= 4;
	} while (v);
	sb_put(sb, d + i, sizeof(d) - i);
}

/* The longest run of two or more zero groups (the first of equals). */
static void zero_run(const unsigned int g[8], int *start, int *len)
{
	*start = -1;
	*len = 1;
	for (int i = 0; i < 8; i++) {
		int n = 0;

		while (i + n < 8 && g[i + n] == 0)
			n++;
		if (n > *len) {
			*start = i;
			*len = n;
		}
		i += n;
	}
}

/* RFC 5952: lower case, no leading zeros, "::" for the longest run,
 * IPv4-mapped addresses as ::ffff:a.b.c.d. */
static void put_v6(struct strbuf *sb, const unsigned char *b)
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
	unsigned int g[8];
	int start, len;

	if (memcmp(b, mapped, sizeof(mapped)) == 0) {
		sb_puts(sb, "::ffff:");
		put_v4(sb, b + 12);
		return;
	}
	for (int i = 0; i < 8; i++)
		g[i] = (unsigned int)b[2 * i] << 8 | b[2 * i + 1];
	zero_run(g, &start, &len);
	for (int i = 0; i < 8; i++) {
		if (i == start) {
			sb_puts(sb, "::");
			i += len - 1;
			continue;
		}
		if (i && i != start + len)
			sb_puts(sb, ":");
		put_hex(sb, g[i]);
	}
}

void net_addr_str(const struct sockaddr_storage *ss, char out[NET_ADDR_MAX])
{
	struct strbuf sb = STRBUF(out, NET_ADDR_MAX);
	struct sockaddr_in in;
	struct sockaddr_in6 in6;

	out[0] = '\0';
	if (ss->ss_family == AF_INET) {
		memcpy(&in, ss, sizeof(in));
		put_v4(&sb, (const unsigned char *)&in.sin_addr);
	} else {
		memcpy(&in6, ss, sizeof(in6));
		sb_puts(&sb, "[");
		put_v6(&sb, in6.sin6_addr.s6_addr);
		if (in6.sin6_scope_id) {
			sb_puts(&sb, "%");
			sb_uint(&sb, in6.sin6_scope_id);
		}
		sb_puts(&sb, "]");
	}
	sb_puts(&sb, ":");
	sb_uint(&sb, net_port(ss));
}

static void put_rule(struct strbuf *sb, const struct net_denial *d)
{
	if (d->why == NET_WHY_PROXY)
		sb_puts(sb, RULE_PROXY_ONLY);
	else if (d->why == NET_WHY_NOT_TCP)
		sb_puts(sb, "not a TCP socket; only TCP ports are allowed");
	else if (d->why == NET_WHY_UDP_PORT ||
		 (d->why == NET_WHY_OFF && d->kind == NET_KIND_UDP))
		rule_put_udp(sb, &shim.policy, d->use == NET_USE_BIND,
			     net_port(d->addr));
	else
		rule_put_tcp(sb, &shim.policy, d->use == NET_USE_BIND,
			     net_port(d->addr));
}

/* Would a port grant allow it: TCP, or UDP where the kernel holds UDP
 * ports (a grant it could not hold is refused at the start)? */
static bool port_grant(const struct net_denial *d)
{
	if (d->why == NET_WHY_PROXY)
		return false;
	return d->kind == NET_KIND_TCP ||
	       (d->kind == NET_KIND_UDP && shim.extra.udp);
}

static const char *verb(enum net_use use)
{
	return use == NET_USE_BIND   ? "bind"
	       : use == NET_USE_SEND ? "send"
				     : "connect";
}

/* What would allow it: "with --connect 443", "with --connect udp:53",
 * "with --net", ... */
static void put_allow(struct strbuf *sb, const struct net_denial *d)
{
	const char *udp = d->kind == NET_KIND_UDP ? "udp:" : "";

	if (shim.extra.standalone) {
		if (port_grant(d) && d->use != NET_USE_BIND) {
			sb_puts(sb, "by adding ");
			sb_puts(sb, udp);
			sb_uint(sb, net_port(d->addr));
			sb_puts(sb, " to CORDON_NET");
		} else {
			sb_puts(sb, "with CORDON_NET=on");
		}
	} else if (!port_grant(d)) {
		/* a program that goes round the proxy reaches no host an
		 * --allow-host names: only the whole network lets it */
		sb_puts(sb, "with --net");
	} else {
		sb_puts(sb, d->use == NET_USE_BIND ? "with --bind "
						   : "with --connect ");
		sb_puts(sb, udp);
		sb_uint(sb, net_port(d->addr));
	}
}

/* The line's parts are bounded (a destination of DEST_MAX, a rule of
 * RULE_MAX, an option of ALLOW_MAX, a hook's name cut to NAME_MAX_): it
 * always fits, and an overflow could only cut it between parts.  With no
 * @allow, no option allows it, and the line says so. */
static void write_line(const char *verb, const char *dest, const char *name,
		       const char *rule, const char *allow)
{
	char line[LINE_MAX_];
	/* one byte kept for the newline */
	struct strbuf sb = STRBUF(line, sizeof(line) - 1);

	sb_puts(&sb, "cordon: denied ");
	sb_puts(&sb, verb);
	sb_puts(&sb, " ");
	sb_escape(&sb, dest, SB_TERM, DEST_MAX);
	sb_puts(&sb, " [");
	sb_escape(&sb, name, SB_TERM, NAME_MAX_);
	sb_puts(&sb, "] (");
	sb_escape(&sb, rule, SB_TERM, RULE_MAX);
	if (allow) {
		sb_puts(&sb, "); allow ");
		sb_escape(&sb, allow, SB_TERM, ALLOW_MAX);
	} else {
		sb_puts(&sb, "); no option allows it");
	}
	line[sb.len++] = '\n';
	shim_say(line, sb.len);
}

/* The line (once per hook and destination in this process, unless
 * quiet) and the record of a denial the kernel made, which the shim saw
 * fail; under learn (a lookup, which the kernel let through), the
 * record only. */
static void report_kernel(const char *verb, const char *name, const char *dest,
			  const char *rule, const char *allow)
{
	struct op op = {
		.name = name, .dirfd = AT_FDCWD, .dest = dest, .allow = allow
	};
	int saved = errno;
	unsigned int say = report_once(name, 0, dest);

	if (shim.extra.learn)
		op.verdict = "learn";
	if (say & REPORT_LINE)
		write_line(verb, dest, name, rule, allow);
	if (say & REPORT_RECORD)
		audit_record(&op, NULL, rule,
			     shim.extra.learn ? "shim" : "kernel");
	errno = saved;
}

void report_net_socket(const char *what, int verdict, enum net_kind kind,
		       bool raw)
{
	char rule[RULE_MAX];
	struct strbuf sb = STRBUF(rule, sizeof(rule));

	if (verdict == SOCK_REFUSED_NOT_TCP && shim.policy.net == NET_HOSTS)
		sb_puts(&sb, "not a TCP socket; with hosts allowed, only TCP, "
			     "through cordon's proxy");
	else if (verdict == SOCK_REFUSED_NOT_TCP)
		sb_puts(&sb, "not a TCP socket; only TCP ports are allowed");
	else
		sb_puts(&sb, "network is off");
	/* A TCP socket: --net is the only grant that names no port; the
	 * one it will reach is not known before it connects. */
	if (verdict == SOCK_REFUSED_OFF && kind == NET_KIND_TCP)
		sb_puts(&sb, "; --connect PORT would allow TCP to PORT only");
	else if (kind == NET_KIND_UDP && shim.extra.udp &&
		 !shim.extra.standalone)
		sb_puts(&sb, "; --connect udp:PORT would allow UDP to PORT "
			     "only");
	if (raw)
		sb_puts(&sb, "; a raw or packet socket needs CAP_NET_RAW, "
			     "which cordon drops");
	report_kernel("socket", "socket", what, rule,
		      raw ? NULL
			  : (shim.extra.standalone ? "with CORDON_NET=on"
						   : "with --net"));
}

void report_net_lookup(const char *node, bool ports)
{
	char allow[ALLOW_MAX];
	struct strbuf ab = STRBUF(allow, sizeof(allow));

	/* the network off: the name itself, reached through cordon's
	 * proxy, which looks it up outside (80 and 443; the launcher
	 * checks the name as the flag takes it) */
	if (shim.extra.standalone) {
		sb_puts(&ab, "with CORDON_NET=on");
	} else if (ports || shim.policy.net == NET_HOSTS ||
		   strlen(node) >= HOST_MAX) {
		sb_puts(&ab, "with --net");
	} else {
		sb_puts(&ab, "with --allow-host ");
		sb_puts(&ab, node);
	}
	report_kernel("lookup", "getaddrinfo", node,
		      shim.policy.net == NET_HOSTS ? RULE_PROXY_ONLY
			      "; the proxy looks names up"
		      : ports ? "only TCP ports are allowed; looking up a host "
				"name needs DNS, over UDP"
			      : "network is off; looking up a host name needs "
				"DNS, over UDP",
		      ab.full ? "with --net" : allow);
}

void report_net_abstract(const char *hook, enum net_use use, const char *name,
			 size_t len)
{
	char dest[DEST_MAX];
	size_t n = 0;

	dest[n++] = '@';
	for (size_t i = 0; i < len && n < sizeof(dest) - 1; i++)
		dest[n++] = name[i] ? name[i] : '@';
	dest[n] = '\0';
	report_kernel(verb(use), hook, dest,
		      "an abstract UNIX socket of a process outside the "
		      "sandbox: Landlock's scope",
		      NULL);
}

/* A TCP connect to an address a name looked up gave, beyond the
 * loopback (the sandbox's own with hosts allowed): learned, or told, as
 * that host, "with --allow-host NAME" (80 and 443) or "NAME:PORT". */
static void learned_host(const struct net_denial *d, char *dest,
			 struct strbuf *allow)
{
	char name[HOST_MAX];
	unsigned int port = net_port(d->addr);
	struct strbuf sb = STRBUF(dest, HOST_MAX + 8);

	if (report_net_local(d->addr) ||
	    !net_names_find(d->addr, name, sizeof(name)))
		return;
	sb_puts(&sb, name);
	sb_puts(&sb, ":");
	sb_uint(&sb, port);
	allow->len = 0;
	allow->full = false;
	sb_puts(allow, "with --allow-host ");
	sb_puts(allow, name);
	if (port != 80 && port != 443) {
		sb_puts(allow, ":");
		sb_uint(allow, port);
	}
}

void report_net_denial(const struct net_denial *d)
{
	char dest[HOST_MAX + 8], rule[RULE_MAX], allow[ALLOW_MAX];
	struct strbuf sb = STRBUF(rule, sizeof(rule));
	struct strbuf ab = STRBUF(allow, sizeof(allow));
	struct op op = {
		.name = d->name, .dirfd = AT_FDCWD, .dest = dest, .allow = allow
	};
	int saved = errno;
	unsigned int say;

	net_addr_str(d->addr, dest);
	put_rule(&sb, d);
	put_allow(&ab, d);
	/* a name gave the address: the host is the option, learned or
	 * told (the network off, or hosts allowed and gone round) */
	if ((shim.extra.learn || shim.policy.net == NET_OFF ||
	     shim.policy.net == NET_HOSTS) &&
	    !shim.extra.standalone && d->kind == NET_KIND_TCP &&
	    d->use == NET_USE_CONNECT)
		learned_host(d, dest, &ab);
	if (shim.extra.learn)
		op.verdict = "learn"; /* no line: the run goes on */
	say = report_once(d->name, 0, dest);
	if (say & REPORT_LINE)
		write_line(verb(d->use), dest, d->name, rule, allow);
	if (say & REPORT_RECORD)
		audit_record(&op, NULL, rule, "shim");
	errno = saved;
}
