/*
 * Unit tests of what the transparent egress proxy reads from a captured
 * connection's first bytes (enforce/proxy/peek.c), HTTP: the heads of
 * real clients, every form of Host and of the target, names that
 * disagree, the grammar's edges and PEEK_MAX; then other protocols,
 * told at their first bytes.  TLS: test_peek.c.
 */
#include "peek_fixture.h"

static struct peek_result http(const char *s)
{
	return classify(s, strlen(s));
}

/* ---- HTTP ---- */

Test(peek_http, real_clients)
{
	assert_name(http("GET /index.html HTTP/1.1\r\n"
			 "Host: example.org:4480\r\n"
			 "User-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n"),
		    PEEK_HTTP, "example.org", 4480);
	assert_name(http("GET /x HTTP/1.1\r\nHost: localhost:4480\r\n"
			 "User-Agent: Wget/1.21.3\r\nAccept: */*\r\n"
			 "Accept-Encoding: identity\r\n"
			 "Connection: Keep-Alive\r\n\r\n"),
		    PEEK_HTTP, "localhost", 4480);
}

Test(peek_http, host_forms)
{
	struct peek_result r;

	assert_name(http("GET / HTTP/1.1\r\nHost: Example.COM\r\n\r\n"),
		    PEEK_HTTP, "example.com", 0);
	assert_name(http("GET / HTTP/1.1\r\nhOsT:\t example.com \t\r\n\r\n"),
		    PEEK_HTTP, "example.com", 0);
	assert_name(http("GET / HTTP/1.0\r\nHost:example.com:8080\r\n\r\n"),
		    PEEK_HTTP, "example.com", 8080);
	r = http("GET / HTTP/1.1\r\nHost: [2001:DB8::1]:8080\r\n\r\n");
	assert_name(r, PEEK_HTTP, "2001:db8::1", 8080);
	cr_assert(r.target.is_ip);
	assert_name(http("GET / HTTP/1.1\r\nHost: [::1]\r\n\r\n"), PEEK_HTTP,
		    "::1", 0);
	r = http("GET / HTTP/1.1\r\nHost: 192.0.2.7:81\r\n\r\n");
	assert_name(r, PEEK_HTTP, "192.0.2.7", 81);
	cr_assert(r.target.is_ip);
}

Test(peek_http, bad_hosts)
{
	static const char *const hosts[] = {
		"",	     "example.com:",   ":80",	    "::1",
		"[::1",	     "[::1]x",	       "[::1]:",    "a b",
		"a..b",	     "example.com:0",  "a:65536",   "a:8x",
		"a:80:80",   "[1.2.3.4]",      "u@example", "exa/mple",
		"\x80x.com", "[fe80::1%25e0]",
	};
	char head[256];

	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		snprintf(head, sizeof(head),
			 "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", hosts[i]);
		cr_assert_eq(http(head).kind, PEEK_OTHER, "Host: %s", hosts[i]);
	}
}

Test(peek_http, no_name)
{
	assert_no_name(http("GET / HTTP/1.0\r\n\r\n"), PEEK_HTTP);
	assert_no_name(http("POST /a?b HTTP/1.1\r\nContent-Length: 3\r\n"
			    "\r\nabc"),
		       PEEK_HTTP);
	assert_no_name(http("OPTIONS * HTTP/1.1\r\n\r\n"), PEEK_HTTP);
	assert_no_name(http("GET / HTTP/1.1\r\nHOSTS: a\r\nDate: b\r\n"
			    "X-Host: c\r\n\r\n"),
		       PEEK_HTTP);
	assert_name(http("OPTIONS * HTTP/1.1\r\nHost: a.example\r\n\r\n"),
		    PEEK_HTTP, "a.example", 0);
}

Test(peek_http, absolute_form)
{
	assert_name(http("GET http://Abs.Example.com:8080/a HTTP/1.1\r\n"
			 "Host: Abs.Example.com:8080\r\n"
			 "User-Agent: curl/7.88.1\r\nAccept: */*\r\n"
			 "Proxy-Connection: Keep-Alive\r\n\r\n"),
		    PEEK_HTTP, "abs.example.com", 8080);
	assert_name(http("GET HTTP://abs.example HTTP/1.1\r\n\r\n"), PEEK_HTTP,
		    "abs.example", 0);
	assert_name(http("GET http://[::1]:81?q HTTP/1.1\r\n\r\n"), PEEK_HTTP,
		    "::1", 81);
	assert_name(http("GET http://a.example/ HTTP/1.1\r\n"
			 "Host: a.example:80\r\n\r\n"),
		    PEEK_HTTP, "a.example", 0);
	/* the URI and Host disagree */
	cr_assert_eq(http("GET http://a.example/ HTTP/1.1\r\n"
			  "Host: b.example\r\n\r\n")
			     .kind,
		     PEEK_OTHER);
	cr_assert_eq(http("GET http://a.example/ HTTP/1.1\r\n"
			  "Host: a.example:8080\r\n\r\n")
			     .kind,
		     PEEK_OTHER);
	cr_assert_eq(http("GET http://u@a.example/ HTTP/1.1\r\n\r\n").kind,
		     PEEK_OTHER);
	cr_assert_eq(http("GET http:// HTTP/1.1\r\n\r\n").kind, PEEK_OTHER);
	cr_assert_eq(http("GET http:///x HTTP/1.1\r\n\r\n").kind, PEEK_OTHER);
	cr_assert_eq(http("GET https://a.example/ HTTP/1.1\r\n\r\n").kind,
		     PEEK_OTHER);
	cr_assert_eq(http("CONNECT a.example:443 HTTP/1.1\r\n\r\n").kind,
		     PEEK_OTHER);
}

Test(peek_http, two_hosts)
{
	assert_name(http("GET / HTTP/1.1\r\nHost: a.example\r\nX: y\r\n"
			 "host: A.Example\r\n\r\n"),
		    PEEK_HTTP, "a.example", 0);
	cr_assert_eq(http("GET / HTTP/1.1\r\nHost: a.example\r\n"
			  "Host: b.example\r\n\r\n")
			     .kind,
		     PEEK_OTHER);
	cr_assert_eq(http("GET / HTTP/1.1\r\nHost: a.example:81\r\n"
			  "Host: a.example:82\r\n\r\n")
			     .kind,
		     PEEK_OTHER);
	/* the second is wrong before the head ends: told at once */
	cr_assert_eq(http("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n").kind,
		     PEEK_OTHER);
}

Test(peek_http, prefixes_are_more)
{
	const char *head = "GET http://a.example:81/x HTTP/1.1\r\n"
			   "Host: a.example:81\r\nAccept: */*\r\n\r\n";
	size_t n = strlen(head);

	cr_assert_eq(http("GE").kind, PEEK_MORE);
	cr_assert_eq(http("GET /x HTT").kind, PEEK_MORE);
	cr_assert_eq(http("GET /x HTTP/1.1\r").kind, PEEK_MORE);
	cr_assert_eq(http("GET /x HTTP/1.1\r\nHost: a\r\n\r").kind, PEEK_MORE);
	for (size_t k = 0; k < n; k++)
		cr_assert_eq(kind_of(head, k), PEEK_MORE, "%zu bytes", k);
	assert_name(classify(head, n), PEEK_HTTP, "a.example", 81);
}

Test(peek_http, grammar)
{
	static const char *const heads[] = {
		"get / HTTP/1.1\r\n\r\n",		/* lower case */
		"G-T / HTTP/1.1\r\n\r\n",		/* not a letter */
		"GET  / HTTP/1.1\r\n\r\n",		/* empty target */
		"GET x HTTP/1.1\r\n\r\n",		/* no form */
		"GET ** HTTP/1.1\r\n\r\n",		/* no form */
		"GET / HTTP/1.2\r\n\r\n",		/* version */
		"GET / http/1.1\r\n\r\n",		/* version */
		"GET / HTTP/1.1 \r\n\r\n",		/* a blank after it */
		"GET / HTTP/1.1\n\r\n",			/* bare LF */
		"GET / HTTP/1.1\r\r\n",			/* bare CR */
		"GET /\x7f HTTP/1.1\r\n\r\n",		/* control byte */
		"GET / HTTP/1.1\r\nHost : a\r\n\r\n",	/* blank, colon */
		"GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n", /* obs-fold */
		"GET / HTTP/1.1\r\n: a\r\n\r\n",	/* no name */
		"GET / HTTP/1.1\r\nX: a\x01\r\n\r\n",	/* control byte */
		"GET / HTTP/1.1\r\nX: a\nY: b\r\n\r\n", /* bare LF */
		"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n",	/* bare CR */
		"GET / HTTP/1.1\r\nX: a\r\n\rY\r\n\r\n",
		"GET / HTTP/1.1\r\nNo colon\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", /* HTTP/2 preface */
	};

	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		cr_assert_eq(http(heads[i]).kind, PEEK_OTHER, "%zu", i);
	/* obs-text and HTAB in a value */
	assert_no_name(http("GET / HTTP/1.1\r\nX: \xe9t\xe9\t!\r\n\r\n"),
		       PEEK_HTTP);
}

Test(peek_http, method_length)
{
	char head[128];

	snprintf(head, sizeof(head), "%.20s / HTTP/1.1\r\n\r\n",
		 "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
	cr_assert_eq(http(head).kind, PEEK_HTTP);
	snprintf(head, sizeof(head), "%.21s / HTTP/1.1\r\n\r\n",
		 "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
	cr_assert_eq(http(head).kind, PEEK_OTHER);
	cr_assert_eq(kind_of(head, 21), PEEK_OTHER); /* at its 21st byte */
	cr_assert_eq(kind_of(head, 20), PEEK_MORE);
}

Test(peek_http, head_within_peek_max)
{
	static char head[BIG];
	const char *start = "GET / HTTP/1.1\r\nHost: a.example\r\nX: ";
	size_t n = strlen(start);

	memcpy(head, start, n);
	memset(head + n, 'x', sizeof(head) - n);
	cr_assert_eq(kind_of(head, PEEK_MAX - 1), PEEK_MORE);
	cr_assert_eq(kind_of(head, PEEK_MAX), PEEK_OTHER);
	cr_assert_eq(kind_of(head, sizeof(head)), PEEK_OTHER);
	/* one that ends at the very last byte */
	memcpy(head + PEEK_MAX - 4, "\r\n\r\n", 4);
	assert_name(classify(head, PEEK_MAX), PEEK_HTTP, "a.example", 0);
	assert_name(classify(head, sizeof(head)), PEEK_HTTP, "a.example", 0);
	cr_assert_eq(kind_of(head, PEEK_MAX - 1), PEEK_MORE);
}

/* ---- neither ---- */

Test(peek_other, told_at_once)
{
	static const char ssh[] = "SSH-2.0-OpenSSH_9.2p1\r\n";
	static const uint8_t pg[] = { 0, 0, 0, 8, 4, 0xd2, 0x16, 0x2f };
	static const uint8_t sslv2[] = { 0x80, 0x2e, 1, 3, 1 };

	cr_assert_eq(kind_of(ssh, strlen(ssh)), PEEK_OTHER);
	cr_assert_eq(kind_of(ssh, 3), PEEK_MORE); /* "SSH" may be a method */
	cr_assert_eq(kind_of(ssh, 4), PEEK_OTHER);
	cr_assert_eq(kind_of(pg, 1), PEEK_OTHER);    /* PostgreSQL SSLRequest */
	cr_assert_eq(kind_of(sslv2, 1), PEEK_OTHER); /* SSL 2 ClientHello */
	cr_assert_eq(kind_of("*1\r\n$4\r\nPING\r\n", 1), PEEK_OTHER); /* RESP */
	cr_assert_eq(kind_of("\x05\x01\x00", 1), PEEK_OTHER); /* SOCKS5 */
	cr_assert_eq(kind_of("get", 1), PEEK_OTHER);
	cr_assert_eq(kind_of("", 0), PEEK_MORE);
}

Test(peek_other, result_is_cleared)
{
	struct peek_result r;

	memset(&r, 0xff, sizeof(r));
	peek_classify((const uint8_t *)"SSH-", 4, &r);
	assert_no_name(r, PEEK_OTHER);
	cr_assert(!r.target.is_ip);
	cr_assert_eq(r.target.port, 0);
	memset(&r, 0xff, sizeof(r));
	/* a name read, then the head turns out wrong */
	peek_classify((const uint8_t *)"GET / HTTP/1.1\r\nHost: a\r\nX\r\n", 28,
		      &r);
	assert_no_name(r, PEEK_OTHER);
}
