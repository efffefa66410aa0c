/*
 * Unit tests of the egress proxy's parsers and rules (proxy_parse.c,
 * proxy_rules.c): every request form, the malformed ones, the limits,
 * SOCKS5 greetings and requests, wildcard matching, IP literals and the
 * private-address test.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/proxy/proxy.h"

static long parse(const char *s, struct proxy_request *r)
{
	return proxy_request_parse(s, strlen(s), r);
}

Test(proxy_parse, connect_form)
{
	struct proxy_request r;
	const char *s = "CONNECT Example.COM:443 HTTP/1.1\r\nHost: x\r\n\r\n";

	cr_assert_eq(parse(s, &r), (long)strlen(s));
	cr_assert_eq(r.kind, PROXY_CONNECT);
	cr_assert_str_eq(r.target.host, "example.com");
	cr_assert_eq(r.target.port, 443);
	cr_assert(!r.target.is_ip);
}

Test(proxy_parse, connect_needs_a_port)
{
	struct proxy_request r;

	cr_assert_eq(parse("CONNECT example.com HTTP/1.1\r\n\r\n", &r),
		     -EINVAL);
	cr_assert_eq(parse("CONNECT example.com:0 HTTP/1.1\r\n\r\n", &r),
		     -EINVAL);
	cr_assert_eq(parse("CONNECT example.com:65536 HTTP/1.1\r\n\r\n", &r),
		     -EINVAL);
	cr_assert_eq(parse("CONNECT example.com:4x3 HTTP/1.1\r\n\r\n", &r),
		     -EINVAL);
}

Test(proxy_parse, connect_ipv6)
{
	struct proxy_request r;

	cr_assert_gt(parse("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n", &r), 0);
	cr_assert(r.target.is_ip);
	cr_assert_str_eq(r.target.host, "::1");
	cr_assert_eq(r.target.port, 8443);
	cr_assert_eq(parse("CONNECT ::1:8443 HTTP/1.1\r\n\r\n", &r), -EINVAL);
	cr_assert_eq(parse("CONNECT [::1:8443 HTTP/1.1\r\n\r\n", &r), -EINVAL);
	cr_assert_eq(parse("CONNECT [zz::1]:1 HTTP/1.1\r\n\r\n", &r), -EINVAL);
}

Test(proxy_parse, absolute_form_and_rewrite)
{
	struct proxy_request r;
	char out[1024];
	const char *s = "GET http://Host.Example:8080/a/b?c=d HTTP/1.1\r\n"
			"Host: evil\r\nUser-Agent: t\r\nProxy-Connection: keep"
			"\r\nConnection: keep-alive\r\nAccept: */*\r\n\r\nBODY";
	long n = parse(s, &r), w;

	cr_assert_eq(n, (long)(strlen(s) - 4));
	cr_assert_eq(r.kind, PROXY_HTTP);
	cr_assert_str_eq(r.target.host, "host.example");
	cr_assert_eq(r.target.port, 8080);
	w = proxy_request_rewrite(s, &r, out, sizeof(out));
	cr_assert_gt(w, 0);
	out[w] = '\0';
	cr_assert_str_eq(out, "GET /a/b?c=d HTTP/1.1\r\nUser-Agent: t\r\n"
			      "Accept: */*\r\nHost: host.example:8080\r\n"
			      "Connection: close\r\n\r\n");
}

Test(proxy_parse, absolute_form_without_path)
{
	struct proxy_request r;
	char out[256];
	const char *s = "HEAD http://a.b HTTP/1.0\r\n\r\n";
	long w;

	cr_assert_gt(parse(s, &r), 0);
	cr_assert_eq(r.target.port, 80);
	w = proxy_request_rewrite(s, &r, out, sizeof(out));
	cr_assert_gt(w, 0);
	out[w] = '\0';
	cr_assert_str_eq(out, "HEAD / HTTP/1.0\r\nHost: a.b\r\n"
			      "Connection: close\r\n\r\n");
	s = "GET http://a.b?q HTTP/1.1\r\n\r\n";
	cr_assert_gt(parse(s, &r), 0);
	w = proxy_request_rewrite(s, &r, out, sizeof(out));
	out[w] = '\0';
	cr_assert(strncmp(out, "GET /?q HTTP/1.1\r\n", 18) == 0, "%s", out);
}

Test(proxy_parse, rewrite_too_small)
{
	struct proxy_request r;
	char out[20];
	const char *s = "GET http://a.b/ HTTP/1.1\r\nX: y\r\n\r\n";

	cr_assert_gt(parse(s, &r), 0);
	cr_assert_eq(proxy_request_rewrite(s, &r, out, sizeof(out)), -ENOSPC);
}

Test(proxy_parse, incomplete_heads_wait)
{
	struct proxy_request r;

	cr_assert_eq(parse("", &r), 0);
	cr_assert_eq(parse("GET http://a/ HTTP/1.1\r\n", &r), 0);
	cr_assert_eq(parse("GET http://a/ HTTP/1.1\r\nA: b\r\n\r", &r), 0);
	cr_assert_eq(parse("CONNECT a:1 HTTP/1.1\r", &r), 0);
}

Test(proxy_parse, malformed)
{
	static const char *const bad[] = {
		"GET /local HTTP/1.1\r\n\r\n",
		"GET http://a/ HTTP/2.0\r\n\r\n",
		"GET http://a/ HTTP/1.1 extra\r\n\r\n",
		"GET  http://a/ HTTP/1.1\r\n\r\n",
		"G(T http://a/ HTTP/1.1\r\n\r\n",
		"GET http://u:p@a/ HTTP/1.1\r\n\r\n",
		"GET http://a/ HTTP/1.1\n\n",
		"GET http://a/ HTTP/1.1\r\nA: b\n\r\n",
		"GET http://a/ HTTP/1.1\r\nA: b\rc\r\n\r\n",
		"GET http://a/ HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
		"GET http://a/ HTTP/1.1\r\nNoColon\r\n\r\n",
		"GET http://a/ HTTP/1.1\r\nBad Name: x\r\n\r\n",
		"GET http://a/ HTTP/1.1\r\nA: \x01\r\n\r\n",
		"GET http://a..b/ HTTP/1.1\r\n\r\n",
		"GET http://-_!/ HTTP/1.1\r\n\r\n",
		"GET http://a:80:80/ HTTP/1.1\r\n\r\n",
		"\x16\x03\x01\x02\x00\x01",
		"VERYLONGMETHODNAMEOVERTHIRTYTWOCHARS http://a/ "
		"HTTP/1.1\r\n\r\n",
	};
	struct proxy_request r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(parse(bad[i], &r), -EINVAL, "case %zu: %s", i,
			     bad[i]);
	cr_assert_eq(proxy_request_parse("GET \0 HTTP/1.1\r\n\r\n", 19, &r),
		     -EINVAL);
}

Test(proxy_parse, other_schemes)
{
	struct proxy_request r;

	cr_assert_eq(parse("GET https://a/ HTTP/1.1\r\n\r\n", &r),
		     -EPROTONOSUPPORT);
	cr_assert_eq(parse("GET ftp://a/ HTTP/1.1\r\n\r\n", &r),
		     -EPROTONOSUPPORT);
}

Test(proxy_parse, header_limits)
{
	struct proxy_request r;
	size_t cap = PROXY_HEADER_MAX + 100;
	char *big = malloc(cap);
	int n;

	cr_assert_not_null(big);
	n = snprintf(big, cap, "GET http://a/ HTTP/1.1\r\nX: ");
	memset(big + n, 'a', cap - (size_t)n);
	cr_assert_eq(proxy_request_parse(big, cap, &r), -E2BIG);
	cr_assert_eq(proxy_request_parse(big, PROXY_HEADER_MAX - 1, &r), 0);
	/* many short headers: past the count */
	n = snprintf(big, cap, "GET http://a/ HTTP/1.1\r\n");
	for (int i = 0; i < 200; i++)
		n += snprintf(big + n, cap - (size_t)n, "A: b\r\n");
	n += snprintf(big + n, cap - (size_t)n, "\r\n");
	cr_assert_eq(proxy_request_parse(big, (size_t)n, &r), -EINVAL);
	free(big);
}

Test(proxy_parse, path_limit)
{
	struct proxy_request r;
	size_t cap = PROXY_PATH_MAX + 64;
	char *s = malloc(cap);
	int n = snprintf(s, cap, "GET http://a/");

	memset(s + n, 'p', PROXY_PATH_MAX + 1);
	n += PROXY_PATH_MAX + 1;
	n += snprintf(s + n, cap - (size_t)n, " HTTP/1.1\r\n\r\n");
	cr_assert_eq(proxy_request_parse(s, (size_t)n, &r), -EINVAL);
	free(s);
}

Test(proxy_parse, numeric_names_are_ip_literals)
{
	struct proxy_target t;

	cr_assert_eq(proxy_host_parse("127.1", 5, true, &t), 0);
	cr_assert(t.is_ip);
	cr_assert_str_eq(t.host, "127.0.0.1");
	cr_assert_eq(proxy_host_parse("0x7f000001", 10, true, &t), 0);
	cr_assert(t.is_ip);
	cr_assert_eq(proxy_host_parse("example.com.", 12, true, &t), 0);
	cr_assert(!t.is_ip);
	cr_assert_str_eq(t.host, "example.com");
	cr_assert_eq(proxy_host_parse("a b", 3, true, &t), -EINVAL);
	cr_assert_eq(proxy_host_parse("[::1]", 5, false, &t), -EINVAL);
	cr_assert_eq(proxy_host_parse("[1.2.3.4]", 9, true, &t), -EINVAL);
}

Test(proxy_parse, long_names)
{
	struct proxy_target t;
	char name[300];

	memset(name, 'a', 64);
	cr_assert_eq(proxy_host_parse(name, 64, true, &t), -EINVAL);
	cr_assert_eq(proxy_host_parse(name, 63, true, &t), 0);
	for (int i = 0; i < 300; i++)
		name[i] = i % 10 == 9 ? '.' : 'b';
	cr_assert_eq(proxy_host_parse(name, 253, true, &t), 0);
	cr_assert_eq(proxy_host_parse(name, 254, true, &t), -EINVAL);
}
