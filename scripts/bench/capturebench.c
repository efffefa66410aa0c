/*
 * capturebench.c - what --allow-host's transparent capture costs a
 * client beside the proxy variables' path and a direct connection
 * (scripts/bench/run.sh runs it; not part of the tests).
 *
 *   capturebench server ADDR           serve on ADDR (prints the port)
 *   capturebench client MODE ADDR PORT MB N
 *
 * The server answers each request head ("GET /tiny" or "GET /big",
 * ended by an empty line) with one byte or MB megabytes, then closes.
 * The client, MODE "direct" (a plain connect: captured inside cordon)
 * or "connect" (CONNECT ADDR:PORT through cordon's proxy at
 * 127.0.0.1:3128, as a program that takes HTTPS_PROXY does), makes N
 * connections for a byte each, then one for MB megabytes, and prints
 * "ttfb_us MEAN" (connect to first byte, request sent first, as HTTP
 * and TLS clients do) and "mbps RATE".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static size_t mb = 100;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Read up to the empty line; false on EOF. */
static int read_head(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		ssize_t r = read(fd, buf + n, 1);

		if (r <= 0)
			return 0;
		buf[++n] = '\0';
		if (n >= 4 && memcmp(buf + n - 4, "\r\n\r\n", 4) == 0)
			return 1;
	}
	return 0;
}

static void serve_one(int c)
{
	static char chunk[1 << 16];
	char head[1024];

	if (!read_head(c, head, sizeof(head)))
		return;
	if (strncmp(head, "GET /big", 8) != 0) {
		if (write(c, "x", 1) != 1)
			return;
		return;
	}
	for (size_t left = mb << 20; left;) {
		size_t k = left < sizeof(chunk) ? left : sizeof(chunk);
		ssize_t w = write(c, chunk, k);

		if (w <= 0)
			return;
		left -= (size_t)w;
	}
}

static int server(const char *addr)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	inet_pton(AF_INET, addr, &a.sin_addr);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 128) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		return 1;
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		int c = accept(l, NULL, NULL);

		if (c < 0)
			continue;
		if (fork() == 0) {
			serve_one(c);
			_exit(0);
		}
		close(c);
	}
}

/* A connection to the origin, by @mode; -1 on failure. */
static int dial(const char *mode, const char *addr, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char head[1024];
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	int direct = strcmp(mode, "direct") == 0;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	inet_pton(AF_INET, direct ? addr : "127.0.0.1", &a.sin_addr);
	a.sin_port = htons(direct ? port : 3128);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	if (direct)
		return fd;
	snprintf(head, sizeof(head), "CONNECT %s:%d HTTP/1.1\r\n\r\n", addr,
		 port);
	if (write(fd, head, strlen(head)) < 0 ||
	    !read_head(fd, head, sizeof(head)) || !strstr(head, " 200 "))
		return -1;
	return fd;
}

static int request(int fd, const char *what, const char *addr)
{
	char head[256];

	snprintf(head, sizeof(head), "GET /%s HTTP/1.1\r\nHost: %s\r\n\r\n",
		 what, addr);
	return write(fd, head, strlen(head)) < 0 ? -1 : 0;
}

static int client(const char *mode, const char *addr, int port, int n)
{
	static char buf[1 << 18];
	double sum = 0, t0, t;
	size_t got = 0;
	ssize_t r;

	for (int i = 0; i < n; i++) {
		int fd;

		t0 = now();
		fd = dial(mode, addr, port);
		if (fd < 0 || request(fd, "tiny", addr) ||
		    read(fd, buf, 1) != 1) {
			fprintf(stderr, "capturebench: connection %d failed\n",
				i);
			return 1;
		}
		sum += now() - t0;
		close(fd);
	}
	int fd = dial(mode, addr, port);

	if (fd < 0 || request(fd, "big", addr))
		return 1;
	t0 = now();
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		got += (size_t)r;
	t = now() - t0;
	if (got != mb << 20) {
		fprintf(stderr, "capturebench: %zu bytes of %zu\n", got,
			mb << 20);
		return 1;
	}
	printf("ttfb_us %.0f\nmbps %.0f\n", sum / n * 1e6,
	       (double)got / (1 << 20) / t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "server") == 0)
		return server(argv[2]);
	if (argc == 7 && strcmp(argv[1], "client") == 0) {
		mb = (size_t)strtoul(argv[5], NULL, 10);
		return client(argv[2], argv[3], (int)strtol(argv[4], NULL, 10),
			      (int)strtol(argv[6], NULL, 10));
	}
	fprintf(stderr, "usage: capturebench server ADDR | client "
			"direct|connect ADDR PORT MB N\n");
	return 2;
}
