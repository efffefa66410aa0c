/*
 * unixloop.c - a client of a pathname UNIX socket in a loop, timed from
 * inside: what a program pays per connect (a local database client) or
 * per datagram sent with its address (a logger), bare or under cordon
 * (scripts/bench/kernel.sh runs it so in a guest of the kernel matrix).
 *
 *   unixloop serve DIR SECONDS      bind DIR/s (stream: accept, close)
 *                                   and DIR/d (datagrams: drain), then
 *                                   serve for SECONDS
 *   unixloop connect PATH COUNT     COUNT socket+connect+close
 *   unixloop sendto PATH COUNT      COUNT sendto of 64 bytes to PATH, on
 *                                   one socket
 *
 * The clients print the ns per call of the fastest of 5 slices of
 * COUNT/5 (the machine's noise is the slower ones), and exit 1 when a
 * call failed.  Through libc's connect() and sendto(): the calls the
 * shim sees.  Never part of the tests.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SLICES 5

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static struct sockaddr_un addr_of(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	return sun;
}

static void *acceptor(void *arg)
{
	int l = *(int *)arg, c;

	while ((c = accept(l, NULL, NULL)) >= 0)
		close(c);
	return NULL;
}

static void *drainer(void *arg)
{
	int d = *(int *)arg;
	char buf[256];

	while (recv(d, buf, sizeof(buf), 0) >= 0)
		;
	return NULL;
}

static int serve(const char *dir, int seconds)
{
	static int s, d;
	char path[108];
	struct sockaddr_un sun;
	pthread_t t1, t2;

	snprintf(path, sizeof(path), "%s/s", dir);
	unlink(path);
	sun = addr_of(path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sun, sizeof(sun)) ||
	    listen(s, 512))
		return perror("unixloop: stream"), 1;
	snprintf(path, sizeof(path), "%s/d", dir);
	unlink(path);
	sun = addr_of(path);
	d = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (d < 0 || bind(d, (struct sockaddr *)&sun, sizeof(sun)))
		return perror("unixloop: datagram"), 1;
	if (pthread_create(&t1, NULL, acceptor, &s) ||
	    pthread_create(&t2, NULL, drainer, &d))
		return 1;
	sleep((unsigned int)seconds);
	return 0;
}

static int one_connect(const struct sockaddr_un *sun, int unused)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int ret = fd < 0 ? -1
			 : connect(fd, (const struct sockaddr *)sun,
				   sizeof(*sun));

	(void)unused;
	if (fd >= 0)
		close(fd);
	return ret;
}

static int one_sendto(const struct sockaddr_un *sun, int fd)
{
	static const char msg[64];

	return sendto(fd, msg, sizeof(msg), 0, (const struct sockaddr *)sun,
		      sizeof(*sun)) == sizeof(msg)
		       ? 0
		       : -1;
}

int main(int argc, char **argv)
{
	int (*one)(const struct sockaddr_un *, int);
	struct sockaddr_un sun;
	double best = 0;
	long count;
	int fd = -1;

	if (argc == 4 && strcmp(argv[1], "serve") == 0)
		return serve(argv[2], (int)strtol(argv[3], NULL, 10));
	if (argc != 4 || (strcmp(argv[1], "connect") != 0 &&
			  strcmp(argv[1], "sendto") != 0)) {
		fprintf(stderr, "usage: unixloop serve DIR SECONDS | "
				"connect|sendto PATH COUNT\n");
		return 2;
	}
	one = argv[1][0] == 'c' ? one_connect : one_sendto;
	sun = addr_of(argv[2]);
	count = strtol(argv[3], NULL, 10) / SLICES;
	if (count <= 0)
		count = 1;
	if (one == one_sendto)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	for (int i = 0; i < SLICES; i++) {
		double t0 = now_ns(), ns;

		for (long k = 0; k < count; k++)
			if (one(&sun, fd) < 0) {
				fprintf(stderr, "unixloop: %s: %s\n", argv[1],
					strerror(errno));
				return 1;
			}
		ns = (now_ns() - t0) / (double)count;
		if (i == 0 || ns < best)
			best = ns;
	}
	printf("%.0f\n", best);
	return 0;
}
