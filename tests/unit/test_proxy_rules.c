/*
 * Unit tests of the egress proxy's rules and SOCKS5 parser
 * (proxy_rules.c, proxy_parse.c): --allow-host specs, wildcard and port
 * matching, IP literals matched only by IP rules, the private-address
 * test, the spelling of a destination and of the option that allows it.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "enforce/proxy/proxy.h"

static struct proxy_rule rules[8];
static size_t nrules;

static void add(const char *spec)
{
	cr_assert_eq(proxy_rule_parse(spec, &rules[nrules]), 0, "%s", spec);
	nrules++;
}

static enum proxy_verdict match(const char *hostport)
{
	struct proxy_target t;

	cr_assert_eq(proxy_hostport_parse(hostport, strlen(hostport), 0, &t), 0,
		     "%s", hostport);
	return proxy_match(rules, nrules, &t);
}

static void reset(void)
{
	nrules = 0;
}

TestSuite(proxy_rules, .init = reset);

Test(proxy_rules, specs)
{
	struct proxy_rule r;

	cr_assert_eq(proxy_rule_parse("Example.com", &r), 0);
	cr_assert_str_eq(r.host, "example.com");
	cr_assert_eq(r.port, 0);
	cr_assert_eq(proxy_rule_parse("*.example.com:8443", &r), 0);
	cr_assert(r.wildcard);
	cr_assert_str_eq(r.host, "example.com");
	cr_assert_eq(r.port, 8443);
	cr_assert_eq(proxy_rule_parse("10.0.0.1:22", &r), 0);
	cr_assert(r.is_ip);
	cr_assert_eq(proxy_rule_parse("[::1]", &r), 0);
	cr_assert(r.is_ip);
	cr_assert_eq(r.port, 0);
	cr_assert_eq(proxy_rule_parse("[::1]:99", &r), 0);
	cr_assert_eq(r.port, 99);
	cr_assert_eq(proxy_rule_parse("fe80::2", &r), 0);
	cr_assert(r.is_ip);
	cr_assert_str_eq(r.host, "fe80::2");
	static const char *const bad[] = {
		"",	     "*",     "*.",    "*.1.2.3.4", "a:0",
		"a:x",	     "a b",   "*.*.a", "a.*.b",	    "[::1",
		"::1:99:zz", "*.::1", "a:1:2", "[1.2.3.4]",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(proxy_rule_parse(bad[i], &r), -EINVAL, "%s",
			     bad[i]);
}

Test(proxy_rules, exact_and_default_ports)
{
	add("example.com");
	cr_assert_eq(match("example.com:443"), PROXY_EXACT);
	cr_assert_eq(match("EXAMPLE.com.:80"), PROXY_EXACT);
	cr_assert_eq(match("example.com:8080"), PROXY_DENY);
	cr_assert_eq(match("www.example.com:443"), PROXY_DENY);
	cr_assert_eq(match("example.org:443"), PROXY_DENY);
	cr_assert_eq(match("badexample.com:443"), PROXY_DENY);
}

Test(proxy_rules, explicit_port)
{
	add("example.com:8080");
	cr_assert_eq(match("example.com:8080"), PROXY_EXACT);
	cr_assert_eq(match("example.com:443"), PROXY_DENY);
}

Test(proxy_rules, wildcard)
{
	add("*.example.com");
	cr_assert_eq(match("a.example.com:443"), PROXY_WILDCARD);
	cr_assert_eq(match("a.b.example.com:80"), PROXY_WILDCARD);
	cr_assert_eq(match("example.com:443"), PROXY_DENY);
	cr_assert_eq(match("aexample.com:443"), PROXY_DENY);
	cr_assert_eq(match("a.example.com:22"), PROXY_DENY);
	cr_assert_eq(match("a.example.com.evil:443"), PROXY_DENY);
	add("a.example.com");
	cr_assert_eq(match("a.example.com:443"), PROXY_EXACT);
}

Test(proxy_rules, ip_literals_need_ip_rules)
{
	add("localhost");
	add("*.example.com");
	cr_assert_eq(match("127.0.0.1:443"), PROXY_DENY);
	cr_assert_eq(match("[::1]:443"), PROXY_DENY);
	add("127.0.0.1:8000");
	cr_assert_eq(match("127.0.0.1:8000"), PROXY_EXACT);
	cr_assert_eq(match("127.1:8000"), PROXY_EXACT);
	cr_assert_eq(match("127.0.0.2:8000"), PROXY_DENY);
	add("[::1]");
	cr_assert_eq(match("[0:0::1]:443"), PROXY_EXACT);
	cr_assert_eq(match("[::1]:8000"), PROXY_DENY);
}

Test(proxy_rules, a_name_rule_never_covers_a_number)
{
	struct proxy_rule r;

	/* "127.1" as a rule is the address, not a name */
	cr_assert_eq(proxy_rule_parse("127.1", &r), 0);
	cr_assert(r.is_ip);
}

Test(proxy_rules, formats)
{
	struct proxy_target t;
	char out[300];

	proxy_hostport_parse("[::1]:8080", 10, 0, &t);
	cr_assert_str_eq(proxy_target_format(&t, out, sizeof(out)),
			 "[::1]:8080");
	cr_assert_str_eq(proxy_allow_format(&t, out, sizeof(out)),
			 "[::1]:8080");
	proxy_hostport_parse("a.b:443", 7, 0, &t);
	cr_assert_str_eq(proxy_allow_format(&t, out, sizeof(out)), "a.b");
	cr_assert_str_eq(proxy_target_format(&t, out, sizeof(out)), "a.b:443");
}

Test(proxy_socks, greeting)
{
	bool noauth;

	cr_assert_eq(proxy_socks_greeting((const uint8_t *)"\x05\x01\x00", 3,
					  &noauth),
		     3);
	cr_assert(noauth);
	cr_assert_eq(proxy_socks_greeting((const uint8_t *)"\x05\x02\x02\x01",
					  4, &noauth),
		     4);
	cr_assert(!noauth);
	cr_assert_eq(proxy_socks_greeting((const uint8_t *)"\x05\x02\x00", 3,
					  &noauth),
		     0);
	cr_assert_eq(proxy_socks_greeting((const uint8_t *)"\x05", 1, &noauth),
		     0);
	cr_assert_eq(
		proxy_socks_greeting((const uint8_t *)"\x04\x01", 2, &noauth),
		-EINVAL);
	cr_assert_eq(
		proxy_socks_greeting((const uint8_t *)"\x05\x00", 2, &noauth),
		-EINVAL);
}

Test(proxy_socks, requests)
{
	struct proxy_target t;
	const uint8_t dom[] = "\x05\x01\x00\x03\x0b"
			      "example.com\x01\xbb";
	const uint8_t v4[] = { 5, 1, 0, 1, 10, 0, 0, 1, 0, 80 };
	const uint8_t v6[] = { 5, 1, 0, 4, 0, 0, 0, 0, 0, 0,	0,
			       0, 0, 0, 0, 0, 0, 0, 0, 1, 0x1f, 0x90 };

	cr_assert_eq(proxy_socks_request(dom, sizeof(dom) - 1, &t),
		     (long)sizeof(dom) - 1);
	cr_assert_str_eq(t.host, "example.com");
	cr_assert_eq(t.port, 443);
	cr_assert(!t.is_ip);
	cr_assert_eq(proxy_socks_request(dom, sizeof(dom) - 2, &t), 0);
	cr_assert_eq(proxy_socks_request(v4, sizeof(v4), &t), 10);
	cr_assert(t.is_ip);
	cr_assert_str_eq(t.host, "10.0.0.1");
	cr_assert_eq(proxy_socks_request(v6, sizeof(v6), &t), 22);
	cr_assert_str_eq(t.host, "::1");
	cr_assert_eq(t.port, 8080);
}

Test(proxy_socks, bad_requests)
{
	struct proxy_target t;
	const uint8_t bind[] = { 5, 2, 0, 1, 1, 2, 3, 4, 0, 80 };
	const uint8_t atyp[] = { 5, 1, 0, 9, 1, 2, 3, 4, 0, 80 };
	const uint8_t port0[] = { 5, 1, 0, 1, 1, 2, 3, 4, 0, 0 };
	const uint8_t empty[] = { 5, 1, 0, 3, 0, 0, 80 };
	const uint8_t badname[] = "\x05\x01\x00\x03\x03"
				  "a b\x00\x50";
	const uint8_t rsv[] = { 5, 1, 7, 1, 1, 2, 3, 4, 0, 80 };

	cr_assert_eq(proxy_socks_request(bind, sizeof(bind), &t),
		     -PROXY_SOCKS_BAD_COMMAND);
	cr_assert_eq(proxy_socks_request(atyp, sizeof(atyp), &t),
		     -PROXY_SOCKS_BAD_ATYP);
	cr_assert_eq(proxy_socks_request(port0, sizeof(port0), &t),
		     -PROXY_SOCKS_FAILURE);
	cr_assert_eq(proxy_socks_request(empty, sizeof(empty), &t),
		     -PROXY_SOCKS_FAILURE);
	cr_assert_eq(proxy_socks_request(badname, sizeof(badname) - 1, &t),
		     -PROXY_SOCKS_FAILURE);
	cr_assert_eq(proxy_socks_request(rsv, sizeof(rsv), &t),
		     -PROXY_SOCKS_FAILURE);
}
