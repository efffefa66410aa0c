/*
 * listener: a counting server for the network integration tests.
 *
 *   listener [-6] [-u] [-A] [-t SECONDS] PORTFILE COUNTFILE
 *   listener -a NAME [-t SECONDS] PORTFILE COUNTFILE
 *   listener -p PATH [-u] [-t SECONDS] PORTFILE COUNTFILE
 *
 * Binds a TCP (or with -u a UDP) socket to 127.0.0.1 (or ::1 with -6; with
 * -A every address, 0.0.0.0 or ::, so the host's own addresses too) on an
 * ephemeral port, or with -a an abstract UNIX stream socket "\0NAME" (with
 * -p one at the path PATH, removed at the end; with -u there a datagram
 * socket), and
 * for SECONDS (default 5) counts the connections accepted or the datagrams
 * received, discarding any data.  COUNTFILE is written with 0 first, then
 * PORTFILE with the port (0 for -a), so once PORTFILE exists both files do;
 * COUNTFILE is rewritten whenever the count changes and once at the end.
 * Both are replaced by rename, so a reader never sees a partial file.
 *
 * It must always exit on its own once the time is up, whatever the clients
 * do: nothing here blocks except poll(), which is bounded by the deadline.
 * Exit status: 0 after the timeout, 2 on misuse or a failure of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PROG		"listener"
#define DEFAULT_SECONDS 5
#define MAX_SECONDS	86400
#define MAX_CONNS	64
/* Per wake-up, so that a flood cannot hold the loop past its deadline. */
#define MAX_BATCH 256

enum mode { MODE_TCP, MODE_UDP, MODE_ABSTRACT };

struct options {
	enum mode mode;
	bool ipv6;
	bool any; /* -A */
	long seconds;
	const char *name;
	bool path;  /* -p: name is a path, not abstract */
	bool dgram; /* -p with -u: a datagram socket at the path */
	const char *portfile;
	const char *countfile;
};

static void die(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
static void die_errno(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
static void die_tmp(const char *tmp, const char *what)
	__attribute__((noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void die_errno(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(saved));
	exit(2);
}

__attribute__((noreturn)) static void usage(void)
{
	die("usage: " PROG " [-6] [-u] [-a NAME] [-t SECONDS] "
	    "PORTFILE COUNTFILE");
}

static long parse_seconds(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > MAX_SECONDS)
		die("bad timeout '%s': want 0..%d seconds", s, MAX_SECONDS);
	return v;
}

static void parse_args(int argc, char **argv, struct options *o)
{
	bool udp = false;
	int c;

	*o = (struct options){ .mode = MODE_TCP, .seconds = DEFAULT_SECONDS };
	opterr = 0;
	while ((c = getopt(argc, argv, "+:6Aua:p:t:")) != -1) {
		switch (c) {
		case '6':
			o->ipv6 = true;
			break;
		case 'A':
			o->any = true;
			break;
		case 'u':
			udp = true;
			break;
		case 'a':
			o->name = optarg;
			break;
		case 'p':
			o->name = optarg;
			o->path = true;
			break;
		case 't':
			o->seconds = parse_seconds(optarg);
			break;
		case ':':
			die("option -%c needs an argument", optopt);
		default:
			die("unknown option -%c", optopt);
		}
	}
	if (argc - optind != 2)
		usage();
	if (o->name && (o->ipv6 || (udp && !o->path)))
		die("-a cannot be combined with -u or -6, -p with -6");
	o->dgram = o->path && udp;
	if (o->name)
		o->mode = MODE_ABSTRACT;
	else if (udp)
		o->mode = MODE_UDP;
	o->portfile = argv[optind];
	o->countfile = argv[optind + 1];
}

/* Remove the temporary file @tmp and die, reporting errno. */
static void die_tmp(const char *tmp, const char *what)
{
	int saved = errno;

	unlink(tmp);
	errno = saved;
	die_errno("cannot %s '%s'", what, tmp);
}

/* Write "VALUE\n" to a temporary file beside PATH, then rename it over PATH. */
static void write_atomic(const char *path, unsigned long value)
{
	char tmp[PATH_MAX], buf[32];
	ssize_t done;
	int fd, len, n;

	n = snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		die("path too long '%s'", path);
	len = snprintf(buf, sizeof(buf), "%lu\n", value);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		die_errno("cannot create a temporary file for '%s'", path);
	/* The reader may be another user (the suite runs unprivileged too). */
	if (fchmod(fd, 0644) < 0)
		die_tmp(tmp, "chmod");
	done = write(fd, buf, (size_t)len);
	if (done != len) {
		if (done >= 0)
			errno = EIO;
		die_tmp(tmp, "write");
	}
	if (close(fd) < 0)
		die_tmp(tmp, "write");
	if (rename(tmp, path) < 0)
		die_tmp(tmp, "rename into place");
}

static int open_inet(const struct options *o, unsigned int *port)
{
	int type = o->mode == MODE_UDP ? SOCK_DGRAM : SOCK_STREAM;
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int fd;

	if (o->ipv6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = o->any ? in6addr_any : in6addr_loopback;
		len = sizeof(*sin6);
	} else {
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr =
			htonl(o->any ? INADDR_ANY : INADDR_LOOPBACK);
		len = sizeof(*sin);
	}
	fd = socket(ss.ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die_errno("cannot create socket");
	if (bind(fd, (struct sockaddr *)&ss, len) < 0)
		die_errno("cannot bind to %s", o->ipv6 ? "::1" : "127.0.0.1");
	if (type == SOCK_STREAM && listen(fd, SOMAXCONN) < 0)
		die_errno("cannot listen");
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		die_errno("cannot read the bound address");
	*port = ntohs(o->ipv6 ? sin6->sin6_port : sin->sin_port);
	return fd;
}

static int open_abstract(const char *name, bool path, bool dgram)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	socklen_t len;
	int fd;

	/* sun_path[0] stays NUL: that is what makes the name abstract. */
	if (n == 0 || n + 1 >= sizeof(sun.sun_path))
		die("bad socket name '%s'", name);
	memcpy(sun.sun_path + !path, name, n);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	fd = socket(AF_UNIX,
		    (dgram ? SOCK_DGRAM : SOCK_STREAM) | SOCK_NONBLOCK |
			    SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		die_errno("cannot create socket");
	if (bind(fd, (struct sockaddr *)&sun, len) < 0)
		die_errno("cannot bind to abstract socket '@%s'", name);
	if (!dgram && listen(fd, SOMAXCONN) < 0)
		die_errno("cannot listen");
	return fd;
}

/* Read and discard what is there; false once the peer is gone. */
static bool drain(int fd)
{
	char buf[4096];
	ssize_t n;
	int i;

	for (i = 0; i < MAX_BATCH; i++) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0 || (n < 0 && errno == EINTR))
			continue;
		return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
	}
	return true;
}

/* Count the datagrams waiting on the socket, at most MAX_BATCH. */
static unsigned long receive_all(int fd)
{
	char buf[65536];
	unsigned long count = 0;
	ssize_t n;

	while (count < MAX_BATCH) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
		if (n >= 0) {
			count++;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return count;
		die_errno("cannot receive");
	}
	return count;
}

/*
 * Accept pending connections, at most MAX_BATCH; keep each in @fds (of which
 * *@nfds are used, @fds[0] being the listener) while there is room, so its data
 * can be drained, and close it at once otherwise.
 */
static unsigned long accept_all(struct pollfd *fds, nfds_t *nfds)
{
	unsigned long count = 0;
	int fd;

	while (count < MAX_BATCH) {
		fd = accept4(fds[0].fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return count;
			die_errno("cannot accept");
		}
		count++;
		if (*nfds < MAX_CONNS + 1 && drain(fd)) {
			fds[*nfds] =
				(struct pollfd){ .fd = fd, .events = POLLIN };
			(*nfds)++;
		} else {
			close(fd);
		}
	}
	return count;
}

static void service_conns(struct pollfd *fds, nfds_t *nfds)
{
	nfds_t i = 1;

	while (i < *nfds) {
		if (fds[i].revents && !drain(fds[i].fd)) {
			close(fds[i].fd);
			fds[i] = fds[--(*nfds)];
			continue;
		}
		i++;
	}
}

static int64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		die_errno("cannot read the clock");
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void serve(const struct options *o, int lfd)
{
	struct pollfd fds[MAX_CONNS + 1];
	int64_t deadline = now_ns() + (int64_t)o->seconds * 1000000000;
	int64_t left;
	unsigned long count = 0, got;
	nfds_t nfds = 1;
	int n;

	fds[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	while ((left = deadline - now_ns()) > 0) {
		n = poll(fds, nfds, (int)((left + 999999) / 1000000));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die_errno("cannot poll");
		if (n == 0)
			continue;
		if (fds[0].revents & (POLLERR | POLLNVAL))
			die("listening socket failed");
		got = 0;
		if (fds[0].revents & POLLIN)
			got = o->mode == MODE_UDP || o->dgram
				      ? receive_all(lfd)
				      : accept_all(fds, &nfds);
		service_conns(fds, &nfds);
		if (got) {
			count += got;
			write_atomic(o->countfile, count);
		}
	}
	write_atomic(o->countfile, count);
	while (nfds > 1)
		close(fds[--nfds].fd);
}

int main(int argc, char **argv)
{
	struct options o;
	unsigned int port = 0;
	int fd;

	parse_args(argc, argv, &o);
	signal(SIGPIPE, SIG_IGN);
	if (o.mode == MODE_ABSTRACT)
		fd = open_abstract(o.name, o.path, o.dgram);
	else
		fd = open_inet(&o, &port);
	write_atomic(o.countfile, 0);
	write_atomic(o.portfile, port);
	serve(&o, fd);
	close(fd);
	if (o.path)
		unlink(o.name);
	return 0;
}
