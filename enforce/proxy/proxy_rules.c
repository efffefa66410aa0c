/*
 * proxy_rules.c - the --allow-host rules of the egress proxy
 * (proxy_parse.h): parse a rule, match what a client asked for against
 * them, and spell a destination and the option that allows it.  Pure:
 * no I/O.
 *
 * The rule, in full:
 *  - "host" allows that name on ports 80 and 443; "host:port" on that
 *    port only; "*.domain" every name below domain (a.domain, a.b.domain)
 *    but not domain itself, which needs its own rule.
 *  - An IP literal (a client's "10.1.2.3", "[::1]", SOCKS5 ATYP 1 or 4,
 *    or a name the resolver would read as a number, "127.1") is matched
 *    only by a rule naming the same address: a name rule never covers
 *    one, and an IP rule never covers a name.
 *  - A name whose addresses include a special-purpose one (loopback,
 *    private, shared, link-local, documentation, multicast, reserved...:
 *    netclass.c) or one of the host's own is reached only when a rule
 *    names that very name (PROXY_EXACT): a wildcard never lets one
 *    through.  proxy_conn.c applies it, after resolving, on each
 *    address dialed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "enforce/proxy/proxy.h"

int proxy_rule_parse(const char *spec, struct proxy_rule *out)
{
	struct proxy_target t;
	size_t len = strlen(spec);
	bool wildcard = len > 2 && spec[0] == '*' && spec[1] == '.';
	const char *s = wildcard ? spec + 2 : spec;
	const char *colon = strchr(s, ':');
	char text[64];

	memset(out, 0, sizeof(*out));
	len -= wildcard ? 2 : 0;
	if (s[0] != '[' && colon && strchr(colon + 1, ':')) {
		/* a bare IPv6 literal, without a port */
		if (wildcard || len + 3 > sizeof(text))
			return -EINVAL;
		snprintf(text, sizeof(text), "[%s]", s);
		if (proxy_host_parse(text, len + 2, true, &t))
			return -EINVAL;
		t.port = 0;
	} else if (proxy_hostport_parse(s, len, 1, &t)) {
		return -EINVAL;
	} else if (!colon || s[len - 1] == ']') {
		t.port = 0;
	}
	if (wildcard && t.is_ip)
		return -EINVAL;
	memcpy(out->host, t.host, sizeof(out->host));
	out->wildcard = wildcard;
	out->is_ip = t.is_ip;
	out->addr = t.addr;
	out->port = t.port;
	return 0;
}

bool proxy_addr_same(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return a->sa_family == AF_INET6 &&
	       memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		      &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
}

/* Is @host strictly below @domain? */
static bool is_below(const char *host, const char *domain)
{
	size_t h = strlen(host), d = strlen(domain);

	return h > d + 1 && host[h - d - 1] == '.' &&
	       strcmp(host + h - d, domain) == 0;
}

enum proxy_verdict proxy_match(const struct proxy_rule *rules, size_t n,
			       const struct proxy_target *t)
{
	enum proxy_verdict v = PROXY_DENY;

	for (size_t i = 0; i < n; i++) {
		const struct proxy_rule *r = &rules[i];

		if (r->port ? r->port != t->port
			    : t->port != 80 && t->port != 443)
			continue;
		if (r->is_ip != t->is_ip)
			continue;
		if (t->is_ip
			    ? proxy_addr_same((const struct sockaddr *)&r->addr,
					      (const struct sockaddr *)&t->addr)
			    : !r->wildcard && strcmp(r->host, t->host) == 0)
			return PROXY_EXACT;
		if (!t->is_ip && r->wildcard && is_below(t->host, r->host))
			v = PROXY_WILDCARD;
	}
	return v;
}

char *proxy_allow_format(const struct proxy_target *t, char *out, size_t outlen)
{
	if (t->port == 80 || t->port == 443)
		snprintf(out, outlen, strchr(t->host, ':') ? "[%s]" : "%s",
			 t->host);
	else
		proxy_target_format(t, out, outlen);
	return out;
}
