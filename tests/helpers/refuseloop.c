/*
 * refuseloop.c - a command refused in a loop, to flood the supervisor's
 * own records (t_deputy_bound.sh); linked static, so that no shim sees
 * it: every refusal is the broker's or the proxy's.
 *
 *   refuseloop unix PATH N SECONDS MAX
 *       connect to the UNIX sockets PATH0 .. PATH(N-1) in turn (N 0:
 *       PATH itself, always), once the last exists (waited for up to
 *       20 seconds)
 *   refuseloop proxy HOST N SECONDS MAX
 *       ask the proxy (127.0.0.1:3128 in the run's network namespace)
 *       to CONNECT to HOST:1000 .. HOST:(1000+N-1) in turn (N 0: always
 *       HOST:443)
 *
 * Stops after MAX tries or SECONDS seconds, whichever comes first, and
 * prints "tries T refused R other O": refused is EACCES for a socket,
 * an answer 403 from the proxy.  Exit 0 when every try was refused, 1
 * when not, 2 on usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void name_of(char *out, size_t len, const char *base, long n, long i)
{
	if (n > 0)
		snprintf(out, len, "%s%ld", base, i % n);
	else
		snprintf(out, len, "%s", base);
}

static void wait_for(const char *path)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct stat st;

	for (int i = 0; i < 1000 && stat(path, &st) < 0; i++)
		nanosleep(&tick, NULL);
}

/* 1: refused (EACCES), 0: anything else. */
static int try_unix(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(sun.sun_path))
		return 0;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	ret = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 &&
	      errno == EACCES;
	close(fd);
	return ret;
}

static int try_proxy(const char *dest)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(3128),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char req[512], reply[64] = "";
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), n, ret = 0;
	size_t got = 0;

	if (fd < 0)
		return 0;
	n = snprintf(req, sizeof(req),
		     "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", dest, dest);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    write(fd, req, (size_t)n) == n) {
		while (got < sizeof(reply) - 1) {
			ssize_t r =
				read(fd, reply + got, sizeof(reply) - 1 - got);

			if (r <= 0)
				break;
			got += (size_t)r;
		}
		reply[got] = '\0';
		ret = strncmp(reply, "HTTP/1.1 403", 12) == 0 ||
		      strncmp(reply, "HTTP/1.0 403", 12) == 0;
	}
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	long n, max, tries = 0, refused = 0;
	double end;
	bool proxy;
	char name[256];

	if (argc != 6 ||
	    (strcmp(argv[1], "unix") != 0 && strcmp(argv[1], "proxy") != 0)) {
		fprintf(stderr, "usage: refuseloop unix|proxy TARGET N "
				"SECONDS MAX\n");
		return 2;
	}
	proxy = strcmp(argv[1], "proxy") == 0;
	n = strtol(argv[3], NULL, 10);
	end = now() + strtod(argv[4], NULL);
	max = strtol(argv[5], NULL, 10);
	if (!proxy) {
		name_of(name, sizeof(name), argv[2], n, n > 0 ? n - 1 : 0);
		wait_for(name);
	}
	for (; tries < max && now() < end; tries++) {
		if (proxy && n > 0)
			snprintf(name, sizeof(name), "%s:%ld", argv[2],
				 1000 + tries % n);
		else if (proxy)
			snprintf(name, sizeof(name), "%s:443", argv[2]);
		else
			name_of(name, sizeof(name), argv[2], n, tries);
		refused += proxy ? try_proxy(name) : try_unix(name);
	}
	printf("tries %ld refused %ld other %ld\n", tries, refused,
	       tries - refused);
	return tries == refused ? 0 : 1;
}
