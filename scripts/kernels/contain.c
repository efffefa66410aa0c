/*
 * contain.c - the kernel matrix's containment attempt, a static binary
 * (no shim can see it), run in each guest by guest.sh under `cordon --`
 * and bare, its twin.
 *
 *   contain abi        the kernel's Landlock ABI, or "none (ERRNO)"
 *   contain RAN CREATE WRITE SECRET COPY VICTIM TCP UDP PID
 *
 * Creates RAN (in the workspace: proof that it ran, so a verdict
 * counts), then attempts, each outside what the default policy grants:
 * creates CREATE (a new file outside the writable roots), appends to
 * WRITE (an existing file there), copies SECRET (a file under $HOME's
 * .ssh) into COPY (in the workspace), truncates VICTIM by its name,
 * connects to 127.0.0.1:TCP (a TCP listener outside), sends a datagram
 * to 127.0.0.1:UDP (a UDP listener outside) and sends PID (a process
 * outside) SIGTERM.  Says what each step did; the verdict is guest.sh's,
 * from outside, after it exits.  Exit 0 when every step worked, 1
 * otherwise, 2 on usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static int say(const char *what, const char *path, int ok)
{
	if (ok)
		printf("%s %s: ok\n", what, path);
	else
		printf("%s %s: %s\n", what, path, strerror(errno));
	return ok;
}

static int put(const char *path, int flags, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0644);
	int ok;

	if (fd < 0)
		return 0;
	ok = write(fd, buf, len) == (ssize_t)len;
	return close(fd) == 0 && ok;
}

/* @s as a number, or -1 when it is not one. */
static long num(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno || end == s || *end ? -1 : v;
}

static struct sockaddr_in loopback(const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)num(port)),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	return sin;
}

static int tcp(const char *port)
{
	struct sockaddr_in sin = loopback(port);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int ok =
		s >= 0 && connect(s, (struct sockaddr *)&sin, sizeof(sin)) == 0;

	if (s >= 0)
		close(s);
	return ok;
}

static int udp(const char *port)
{
	struct sockaddr_in sin = loopback(port);
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ok = s >= 0 && sendto(s, "kmatrix", 7, 0, (struct sockaddr *)&sin,
				  sizeof(sin)) == 7;

	if (s >= 0)
		close(s);
	return ok;
}

int main(int argc, char **argv)
{
	char buf[4096];
	ssize_t n = -1;
	int fd, ok = 1;

	if (argc == 2 && strcmp(argv[1], "abi") == 0) {
		long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
				   LANDLOCK_CREATE_RULESET_VERSION);

		if (abi < 0)
			printf("none (%s)\n", strerrorname_np(errno));
		else
			printf("%ld\n", abi);
		return 0;
	}
	if (argc != 10) {
		fprintf(stderr, "usage: contain RAN CREATE WRITE SECRET COPY "
				"VICTIM TCP UDP PID\n");
		return 2;
	}
	argv++;
	say("write", argv[0], put(argv[0], O_CREAT | O_TRUNC, "ran\n", 4));
	ok &= say("create", argv[1],
		  put(argv[1], O_CREAT | O_EXCL, "escaped\n", 8));
	ok &= say("append", argv[2], put(argv[2], O_APPEND, "escaped\n", 8));
	fd = open(argv[3], O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf));
		close(fd);
	}
	if (say("read", argv[3], n >= 0))
		ok &= say("copy", argv[4],
			  put(argv[4], O_CREAT | O_TRUNC, buf, (size_t)n));
	else
		ok = 0;
	ok &= say("truncate", argv[5], syscall(SYS_truncate, argv[5], 0) == 0);
	ok &= say("connect tcp", argv[6], tcp(argv[6]));
	ok &= say("send udp", argv[7], udp(argv[7]));
	ok &= say("kill", argv[8],
		  num(argv[8]) > 0 &&
			  syscall(SYS_kill, num(argv[8]), SIGTERM) == 0);
	fflush(stdout);
	return ok ? 0 : 1;
}
