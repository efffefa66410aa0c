/*
 * Unit tests of the egress proxy (proxy_loop.c, proxy_conn.c) on real
 * loopback sockets: an allowed name is reached through an HTTP proxy
 * request, CONNECT and SOCKS5; another name, an IP literal, another port
 * and a wildcard name on a loopback address are refused with the right
 * answer and a record; malformed input is answered 400 and closed.
 * (test_proxy_limits.c: the caps, the timeouts, curl.)
 */
#include "proxy_fixture.h"

TestSuite(proxy, .init = fx_setup, .fini = fx_teardown, .timeout = 30);

Test(proxy, http_absolute_form)
{
	char req[256], buf[1024];

	snprintf(req, sizeof(req),
		 "GET http://allowed.test:%d/x?y HTTP/1.1\r\nHost: evil\r\n"
		 "Proxy-Connection: keep-alive\r\nAccept: */*\r\n\r\n",
		 origin_port);
	ask(req, buf, sizeof(buf));
	cr_assert(strncmp(buf, "HTTP/1.1 200 OK", 15) == 0, "%s", buf);
	cr_assert(strstr(buf, "\r\n\r\nhello"));
	snprintf(req, sizeof(req),
		 "GET /x?y HTTP/1.1\r\nAccept: */*\r\nHost: allowed.test:%d\r\n"
		 "Connection: close\r\n\r\n",
		 origin_port);
	pthread_mutex_lock(&fx_mu);
	cr_assert_str_eq(origin_head, req);
	pthread_mutex_unlock(&fx_mu);
	cr_assert_eq(nrecords, 0);
}

Test(proxy, connect_tunnel)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	char req[128], buf[1024];
	int fd = dial();

	snprintf(req, sizeof(req), "CONNECT allowed.test:%d HTTP/1.1\r\n\r\n",
		 origin_port);
	say(fd, req, strlen(req));
	hear_exactly(fd, buf, sizeof(ok) - 1);
	cr_assert(memcmp(buf, ok, sizeof(ok) - 1) == 0);
	say(fd, "GET /t HTTP/1.1\r\n\r\n", 19);
	hear(fd, buf, sizeof(buf));
	close(fd);
	cr_assert(strstr(buf, "\r\n\r\nhello"), "%s", buf);
	pthread_mutex_lock(&fx_mu);
	cr_assert_str_eq(origin_head, "GET /t HTTP/1.1\r\n\r\n");
	pthread_mutex_unlock(&fx_mu);
}

Test(proxy, connect_bytes_sent_with_the_head)
{
	char req[128], buf[1024];
	int fd = dial();

	/* a client that does not wait for the 200 */
	snprintf(req, sizeof(req),
		 "CONNECT allowed.test:%d HTTP/1.1\r\n\r\nGET /e HTTP/1.1"
		 "\r\n\r\n",
		 origin_port);
	say(fd, req, strlen(req));
	hear(fd, buf, sizeof(buf));
	close(fd);
	cr_assert(strstr(buf, "hello"), "%s", buf);
}

static void socks_connect(int fd, const char *host, int port, uint8_t *rep)
{
	uint8_t req[300] = { 5, 1, 0, 3, (uint8_t)strlen(host) };
	size_t n = 5 + strlen(host);

	say(fd, "\x05\x01\x00", 3);
	hear_exactly(fd, rep, 2);
	cr_assert_eq(rep[0], 5);
	cr_assert_eq(rep[1], 0);
	memcpy(req + 5, host, strlen(host));
	req[n++] = (uint8_t)(port >> 8);
	req[n++] = (uint8_t)port;
	say(fd, req, n);
	hear_exactly(fd, rep, 10);
}

Test(proxy, socks5_domain)
{
	uint8_t rep[10];
	char buf[1024];
	int fd = dial();

	socks_connect(fd, "allowed.test", origin_port, rep);
	cr_assert_eq(rep[1], PROXY_SOCKS_OK);
	say(fd, "GET /s HTTP/1.1\r\n\r\n", 19);
	hear(fd, buf, sizeof(buf));
	close(fd);
	cr_assert(strstr(buf, "hello"), "%s", buf);
}

Test(proxy, socks5_refused)
{
	uint8_t rep[10];
	char want[128];
	int fd = dial();

	socks_connect(fd, "other.test", origin_port, rep);
	cr_assert_eq(rep[1], PROXY_SOCKS_NOT_ALLOWED);
	cr_assert_eq(read(fd, rep, 1), 0);
	close(fd);
	snprintf(want, sizeof(want),
		 "\"allow\":\"with --allow-host other.test:%d\"", origin_port);
	cr_assert(has_record(want), "%s", records[0]);
}

Test(proxy, socks5_ipv4_literal_refused)
{
	uint8_t req[10] = { 5, 1, 0, 1, 127, 0, 0, 1 }, rep[10];
	int fd = dial();

	req[8] = (uint8_t)(origin_port >> 8);
	req[9] = (uint8_t)origin_port;
	say(fd, "\x05\x01\x00", 3);
	hear_exactly(fd, rep, 2);
	say(fd, req, sizeof(req));
	hear_exactly(fd, rep, 10);
	close(fd);
	cr_assert_eq(rep[1], PROXY_SOCKS_NOT_ALLOWED);
	cr_assert(has_record("an IP address no --allow-host names"));
}

Test(proxy, socks5_bind_and_auth_refused)
{
	uint8_t rep[10];
	int fd = dial();

	say(fd, "\x05\x01\x02", 3); /* username/password only */
	hear_exactly(fd, rep, 2);
	cr_assert_eq(rep[1], 0xff);
	close(fd);
	fd = dial();
	say(fd, "\x05\x01\x00", 3);
	hear_exactly(fd, rep, 2);
	say(fd, "\x05\x02\x00\x01\x7f\x00\x00\x01\x00\x50", 10);
	hear_exactly(fd, rep, 10);
	cr_assert_eq(rep[1], PROXY_SOCKS_BAD_COMMAND);
	close(fd);
}

static void refused(const char *target, const char *dest, const char *allow)
{
	char req[256], buf[1024], want[256];
	int fd = dial();

	snprintf(req, sizeof(req), "GET http://%s/ HTTP/1.1\r\n\r\n", target);
	say(fd, req, strlen(req));
	hear(fd, buf, sizeof(buf));
	close(fd);
	cr_assert(strncmp(buf, "HTTP/1.1 403 ", 13) == 0, "%s", buf);
	snprintf(want, sizeof(want),
		 "\"destination\":\"%s\",\"allow\":\"with --allow-host %s\"",
		 dest, allow);
	cr_assert(has_record(want), "%s: %s", want, records[0]);
	cr_assert(has_record("\"operation\":\"connect\""));
	cr_assert(has_record("\"verdict\":\"deny\""));
}

Test(proxy, another_name_refused)
{
	char t[64];

	snprintf(t, sizeof(t), "other.test:%d", origin_port);
	refused(t, t, t);
	refused("other.test", "other.test:80", "other.test");
}

Test(proxy, ip_literal_refused)
{
	char t[64];

	snprintf(t, sizeof(t), "127.0.0.1:%d", origin_port);
	refused(t, t, t);
	refused("[::1]:443", "[::1]:443", "[::1]");
}

Test(proxy, ip_literal_allowed_by_an_ip_rule)
{
	uint8_t req[10] = { 5, 1, 0, 1, 127, 0, 0, 1 }, rep[10];
	char line[128], buf[64];
	int fd = dial();

	snprintf(line, sizeof(line), "CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n",
		 sink_port);
	say(fd, line, strlen(line));
	hear_exactly(fd, buf, 13);
	close(fd);
	cr_assert(strncmp(buf, "HTTP/1.1 200 ", 13) == 0, "%.13s", buf);
	fd = dial();
	req[8] = (uint8_t)(sink_port >> 8);
	req[9] = (uint8_t)sink_port;
	say(fd, "\x05\x01\x00", 3);
	hear_exactly(fd, rep, 2);
	say(fd, req, sizeof(req));
	hear_exactly(fd, rep, 10);
	close(fd);
	cr_assert_eq(rep[1], PROXY_SOCKS_OK);
	cr_assert_eq(rep[3], 1);
	cr_assert_eq(nrecords, 0);
}

Test(proxy, another_port_refused)
{
	refused("allowed.test:1", "allowed.test:1", "allowed.test:1");
}

Test(proxy, wildcard_name_on_loopback_refused)
{
	char t[64];

	snprintf(t, sizeof(t), "a.wild.test:%d", origin_port);
	refused(t, t, t);
	cr_assert(has_record("resolves to 127.0.0.1"));
}

Test(proxy, unknown_name_of_an_allowed_pattern)
{
	char req[128], buf[512];

	/* allowed by nothing: no such name is a 403, not a look-up */
	snprintf(req, sizeof(req), "CONNECT nosuch.test:%d HTTP/1.1\r\n\r\n",
		 origin_port);
	ask(req, buf, sizeof(buf));
	cr_assert(strncmp(buf, "HTTP/1.1 403 ", 13) == 0, "%s", buf);
}

Test(proxy, malformed_answered_400)
{
	static const char *const bad[] = {
		"GET /local HTTP/1.1\r\n\r\n",
		"\x16\x03\x01\x00\xa5\x01\x00\x00",
		"GET http://a/ HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
		"GET https://allowed.test/ HTTP/1.1\r\n\r\n",
	};
	char buf[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int fd = dial();

		say(fd, bad[i], strlen(bad[i]));
		hear(fd, buf, sizeof(buf));
		close(fd);
		cr_assert(strncmp(buf, "HTTP/1.1 400 ", 13) == 0, "%zu: %s", i,
			  buf);
	}
	cr_assert_eq(nrecords, 0);
}

Test(proxy, closed_port_answered_502)
{
	char req[128], buf[512];

	/* the origin's listener goes: its port refuses; a socket never
	 * listening takes its place for the teardown */
	shutdown(origin_fd, SHUT_RDWR);
	pthread_join(origin_thread, NULL);
	close(origin_fd);
	origin_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	pthread_create(&origin_thread, NULL, origin, NULL);
	snprintf(req, sizeof(req), "CONNECT localhost:%d HTTP/1.1\r\n\r\n",
		 origin_port);
	ask(req, buf, sizeof(buf));
	cr_assert(strncmp(buf, "HTTP/1.1 502 ", 13) == 0, "%s", buf);
}
