/*
 * proxybench.c - the egress proxy's cost on loopback (enforce/proxy/proxy.h),
 * the proxy run in this process on its own thread as the supervisor
 * would: the throughput of a 100 MB transfer through CONNECT beside the
 * same transfer direct, the time each connection gains (direct connect
 * and first byte, against the proxy's accept, CONNECT, its connect and
 * the first byte; by IP rule, and by a name resolved with getaddrinfo),
 * and the memory 100 open tunnels take.  Not part of the tests.
 *
 *   proxybench [MB [CONNECTS]]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "enforce/proxy/proxy.h"

static size_t total = 100u << 20;
static int big_fd, big_port, tiny_fd, tiny_port, hold_fd, hold_port;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int listen_on(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(fd, 1024) || getsockname(fd, (struct sockaddr *)&a, &len)) {
		perror("proxybench: listen");
		exit(1);
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static int dial(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("proxybench: connect");
		exit(1);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Sends @total bytes to each peer, or one byte ("tiny"). */
static void *serve(void *arg)
{
	static char chunk[1 << 16];
	bool tiny = arg != NULL;
	int fd = tiny ? tiny_fd : big_fd, c;

	while ((c = accept(fd, NULL, NULL)) >= 0) {
		for (size_t sent = 0; !tiny && sent < total;) {
			size_t n = total - sent < sizeof(chunk) ? total - sent
								: sizeof(chunk);
			ssize_t w = write(c, chunk, n);

			if (w <= 0)
				break;
			sent += (size_t)w;
		}
		if (tiny && write(c, "x", 1) != 1)
			perror("proxybench: tiny");
		close(c);
	}
	return NULL;
}

static size_t drain(int fd)
{
	static char buf[1 << 16];
	size_t got = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		got += (size_t)n;
	return got;
}

/*
 * The floor of any relay: the least a third party on the data's path
 * can do, a thread of its own that splices the server's bytes to the
 * client through a pipe with blocking calls (no event loop, no request,
 * one direction), one connection at a time.
 */
static int relay_fd, relay_port;

static void *relay(void *arg)
{
	int c, up, p[2];
	ssize_t n, m;

	(void)arg;
	while ((c = accept(relay_fd, NULL, NULL)) >= 0) {
		up = dial(big_port);
		if (pipe(p))
			exit(1);
		fcntl(p[1], F_SETPIPE_SZ, 1024 * 1024);
		while ((n = splice(up, NULL, p[1], NULL, 1024 * 1024,
				   SPLICE_F_MOVE)) > 0)
			for (; n > 0; n -= m)
				if ((m = splice(p[0], NULL, c, NULL, (size_t)n,
						SPLICE_F_MOVE)) <= 0)
					exit(1);
		close(p[0]);
		close(p[1]);
		close(up);
		close(c);
	}
	return NULL;
}

static double relayed(void)
{
	double t0 = now();
	int fd = dial(relay_port);
	size_t got = drain(fd);

	close(fd);
	if (got != total)
		exit(1);
	return (double)total / (now() - t0) / 1e6;
}

/* CONNECT @host:@port through the proxy at @pport; the 200 read. */
static int tunnel(int pport, const char *host, int port)
{
	char req[128], ans[64];
	int fd = dial(pport);
	size_t got = 0;
	ssize_t n;

	snprintf(req, sizeof(req), "CONNECT %s:%d HTTP/1.1\r\n\r\n", host,
		 port);
	if (write(fd, req, strlen(req)) < 0)
		exit(1);
	while (got < 39 && (n = read(fd, ans + got, 39 - got)) > 0)
		got += (size_t)n;
	if (got != 39 || strncmp(ans, "HTTP/1.1 200", 12)) {
		fprintf(stderr, "proxybench: CONNECT %s: %.*s\n", host,
			(int)got, ans);
		exit(1);
	}
	return fd;
}

static double throughput(int pport)
{
	double t0 = now();
	int fd = pport ? tunnel(pport, "127.0.0.1", big_port) : dial(big_port);
	size_t got = drain(fd);

	close(fd);
	if (got != total) {
		fprintf(stderr, "proxybench: %zu of %zu bytes\n", got, total);
		exit(1);
	}
	return (double)total / (now() - t0) / 1e6;
}

/* Mean seconds of a connect up to its first byte. */
static double latency(int pport, const char *host, int n)
{
	double t0 = now();
	char c;

	for (int i = 0; i < n; i++) {
		int fd = pport ? tunnel(pport, host, tiny_port)
			       : dial(tiny_port);

		if (read(fd, &c, 1) != 1)
			exit(1);
		close(fd);
	}
	return (now() - t0) / n;
}

static long rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

#define ROUNDS 9

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @v (ROUNDS of them), which it sorts. */
static double median(double *v)
{
	qsort(v, ROUNDS, sizeof(*v), by_value);
	return v[ROUNDS / 2];
}

int main(int argc, char **argv)
{
	static struct proxy_rule rules[3];
	struct proxy_policy pol = { 0 };
	struct proxy *px;
	pthread_t t;
	int pport, fds[100];
	int n = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 1000;
	double d[ROUNDS], p[ROUNDS], f[ROUNDS], md, mp, mf, ld, lp, ln;
	char spec[64];
	long rss0;

	if (argc > 1)
		total = (size_t)strtoul(argv[1], NULL, 10) << 20;
	big_fd = listen_on(&big_port);
	tiny_fd = listen_on(&tiny_port);
	hold_fd = listen_on(&hold_port);
	pthread_create(&t, NULL, serve, NULL);
	pthread_create(&t, NULL, serve, &tiny_port);
	relay_fd = listen_on(&relay_port);
	pthread_create(&t, NULL, relay, NULL);
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", big_port);
	proxy_rule_parse(spec, &rules[0]);
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", tiny_port);
	proxy_rule_parse(spec, &rules[1]);
	snprintf(spec, sizeof(spec), "localhost:%d", tiny_port);
	proxy_rule_parse(spec, &rules[2]);
	pol.rules = rules;
	pol.nrules = 3;
	if (proxy_start(&px, listen_on(&pport), &pol, NULL, NULL)) {
		fprintf(stderr, "proxybench: cannot start the proxy\n");
		return 1;
	}
	/* interleaved: the host's load moves both alike */
	for (int i = 0; i < ROUNDS; i++) {
		d[i] = throughput(0);
		p[i] = throughput(pport);
		f[i] = relayed();
	}
	ld = latency(0, NULL, n);
	lp = latency(pport, "127.0.0.1", n);
	ln = latency(pport, "localhost", n);
	md = median(d); /* sorted: the range is its ends */
	mp = median(p);
	mf = median(f);
	printf("transfer of %zu MB, median of %d interleaved:\n", total >> 20,
	       ROUNDS);
	printf("  direct      %8.0f MB/s  (%.0f to %.0f)\n", md, d[0],
	       d[ROUNDS - 1]);
	printf("  CONNECT     %8.0f MB/s  (%.0f to %.0f)\n", mp, p[0],
	       p[ROUNDS - 1]);
	printf("  any relay   %8.0f MB/s  (%.0f to %.0f: a blocking splice "
	       "loop)\n",
	       mf, f[0], f[ROUNDS - 1]);
	printf("connect to first byte, mean of %d:\n", n);
	printf("  direct          %7.1f us\n", ld * 1e6);
	printf("  CONNECT to IP   %7.1f us  (+%.1f us)\n", lp * 1e6,
	       (lp - ld) * 1e6);
	printf("  CONNECT to name %7.1f us  (+%.1f us, getaddrinfo)\n",
	       ln * 1e6, (ln - ld) * 1e6);
	/* tunnels to a listener that never accepts: they stay open */
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", hold_port);
	proxy_stop(px);
	proxy_rule_parse(spec, &rules[0]);
	pol.nrules = 1;
	if (proxy_start(&px, listen_on(&pport), &pol, NULL, NULL))
		return 1;
	rss0 = rss_kb();
	for (int i = 0; i < 100; i++)
		fds[i] = tunnel(pport, "127.0.0.1", hold_port);
	printf("100 open tunnels: +%ld KB of resident memory (%ld KB)\n",
	       rss_kb() - rss0, rss_kb());
	for (int i = 0; i < 100; i++)
		close(fds[i]);
	proxy_stop(px);
	return 0;
}
