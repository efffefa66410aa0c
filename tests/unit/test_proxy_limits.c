/*
 * Unit tests of the egress proxy's bounds and of real clients: 300 idle
 * connections hold no more than the cap and all end; a head sent a byte
 * at a time (slowloris) and a head past the cap are answered and
 * closed; a tunnel carries more than its buffers hold; curl reaches an
 * allowed name through -x, --proxytunnel and --socks5-hostname, and is
 * refused another one.
 */
#include <fcntl.h>
#include <signal.h>

#include "proxy_fixture.h"

TestSuite(proxy_limits, .init = fx_setup, .fini = fx_teardown, .timeout = 60);

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

Test(proxy_limits, idle_connections_stay_under_the_cap)
{
	enum { N = 300 };
	static int fds[N];
	struct proxy_stats st;
	char buf[256];

	for (int i = 0; i < N; i++)
		fds[i] = dial();
	usleep(300 * 1000);
	proxy_stats(px, &st);
	cr_assert_leq(st.conns, PROXY_CONNS_MAX);
	cr_assert_geq(st.conns, PROXY_CONNS_MAX - 8, "%u", st.conns);
	/* each gets its 408 once its head is late, the last ones after
	 * the first are gone */
	for (int i = 0; i < N; i++) {
		hear(fds[i], buf, sizeof(buf));
		cr_assert(strncmp(buf, "HTTP/1.1 408 ", 13) == 0, "%d: %s", i,
			  buf);
		close(fds[i]);
	}
	usleep(100 * 1000);
	proxy_stats(px, &st);
	cr_assert_eq(st.conns, 0);
	cr_assert_leq(st.peak, PROXY_CONNS_MAX);
	cr_assert_eq(st.accepted, N);
}

Test(proxy_limits, slowloris_times_out)
{
	char head[128], buf[256];
	double start = now_s();
	int fd = dial();
	size_t n;

	snprintf(head, sizeof(head),
		 "GET http://allowed.test:%d/ HTTP/1.1\r\nX-Slow: aaaaaaaaaa"
		 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		 origin_port);
	n = strlen(head);
	/* one byte each 100 ms: each resets no timer */
	for (size_t i = 0; i < n && now_s() - start < 4; i++) {
		if (send(fd, head + i, 1, MSG_NOSIGNAL) != 1)
			break;
		usleep(100 * 1000);
	}
	hear(fd, buf, sizeof(buf));
	close(fd);
	cr_assert(strncmp(buf, "HTTP/1.1 408 ", 13) == 0, "%s", buf);
	cr_assert_lt(now_s() - start, 3.0);
}

Test(proxy_limits, head_past_the_cap)
{
	size_t len = PROXY_HEADER_MAX + 4096;
	char *big = malloc(len), buf[256];
	int fd = dial();
	int n = snprintf(big, len, "GET http://allowed.test/ HTTP/1.1\r\nX: ");

	memset(big + n, 'a', len - (size_t)n);
	send(fd, big, len, MSG_NOSIGNAL);
	hear(fd, buf, sizeof(buf));
	close(fd);
	free(big);
	cr_assert(strncmp(buf, "HTTP/1.1 431 ", 13) == 0, "%s", buf);
}

/* A destination that reads nothing: what a client sends through a
 * tunnel toward it stops at the proxy's cap plus the kernel's buffers. */
Test(proxy_limits, tunnel_backpressure)
{
	char req[128], chunk[65536];
	size_t sent = 0;
	int fd = dial(), idle = 0;
	ssize_t w;

	snprintf(req, sizeof(req), "CONNECT localhost:%d HTTP/1.1\r\n\r\n",
		 sink_port);
	say(fd, req, strlen(req));
	hear_exactly(fd, chunk, 39);
	cr_assert(strncmp(chunk, "HTTP/1.1 200 ", 13) == 0);
	memset(chunk, 'z', sizeof(chunk));
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (idle < 300 && sent < (256u << 20)) {
		w = send(fd, chunk, sizeof(chunk), MSG_NOSIGNAL);
		if (w < 0 && errno == EAGAIN) {
			idle++;
			usleep(1000);
			continue;
		}
		cr_assert_gt(w, 0);
		idle = 0;
		sent += (size_t)w;
	}
	close(fd);
	cr_assert_lt(sent, 48u << 20, "%zu", sent);
	cr_assert_gt(sent, PROXY_BUFFER_MAX);
}

static void curl(const char *args, char *out, size_t outlen)
{
	char cmd[512];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd),
		 "curl -s -m 5 --noproxy '' -w ' %%{http_code}' %s 2>&1", args);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(out, 1, outlen - 1, p);
	out[n] = '\0';
	pclose(p);
}

Test(proxy_limits, curl_clients)
{
	char args[256], out[512];

	if (access("/usr/bin/curl", X_OK))
		cr_skip_test("no curl");
	snprintf(args, sizeof(args),
		 "-x http://127.0.0.1:%d http://localhost:%d/c", proxy_port,
		 origin_port);
	curl(args, out, sizeof(out));
	cr_assert_str_eq(out, "hello 200");
	snprintf(args, sizeof(args),
		 "--proxytunnel -x http://127.0.0.1:%d http://localhost:%d/t",
		 proxy_port, origin_port);
	curl(args, out, sizeof(out));
	cr_assert_str_eq(out, "hello 200");
	snprintf(args, sizeof(args),
		 "--socks5-hostname 127.0.0.1:%d http://localhost:%d/s",
		 proxy_port, origin_port);
	curl(args, out, sizeof(out));
	cr_assert_str_eq(out, "hello 200");
	snprintf(args, sizeof(args),
		 "-x http://127.0.0.1:%d http://other.test:%d/", proxy_port,
		 origin_port);
	curl(args, out, sizeof(out));
	cr_assert(strstr(out, " 403"), "%s", out);
	cr_assert(has_record("other.test"));
}

Test(proxy_limits, idle_tunnel_closed)
{
	struct proxy_policy pol = { .header_ms = 1000, .idle_ms = 500 };
	char req[128], buf[64];
	double start;
	int fd;

	proxy_stop(px);
	start_proxy(&pol);
	fd = dial();
	snprintf(req, sizeof(req), "CONNECT localhost:%d HTTP/1.1\r\n\r\n",
		 sink_port);
	say(fd, req, strlen(req));
	hear_exactly(fd, buf, 39);
	start = now_s();
	cr_assert_eq(hear(fd, buf, sizeof(buf)), 0);
	cr_assert_lt(now_s() - start, 2.0);
	cr_assert_gt(now_s() - start, 0.3);
	close(fd);
}
