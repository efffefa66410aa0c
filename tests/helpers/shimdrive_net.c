/*
 * shimdrive_net: one network call per run, for the shim's tests.
 *
 *   shimdrive_net tcp HOST PORT          connect() a TCP socket
 *   shimdrive_net tcp-alias HOST PORT    the same through __connect()
 *   shimdrive_net udp HOST PORT          sendto() a datagram
 *   shimdrive_net udp-msg HOST PORT      sendmsg() with msg_name
 *   shimdrive_net udp-mmsg HOST PORT N   sendmmsg() N datagrams at once
 *   shimdrive_net bind-tcp PORT          bind() TCP to 127.0.0.1:PORT
 *   shimdrive_net unix PATH              connect() a UNIX stream socket
 *   shimdrive_net unix-abstract NAME     connect() to "\0NAME"
 *   shimdrive_net bind-unix PATH         bind() a UNIX socket at PATH
 *   shimdrive_net raw-create PATH        create PATH with a raw openat
 *                                        syscall (no hook can see it)
 *
 * HOST is numeric (IPv4, or IPv6 when it has a ':').  errno is set to
 * 1234 before the call; the program prints "ok" and exits 0 when the
 * call succeeded with errno untouched, "errno clobbered: N" and exits 3
 * when it succeeded but errno changed, "failed: N (text)" and exits 1
 * when it failed.  2 is misuse.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define CANARY 1234

int __connect(int fd, const struct sockaddr *sa, socklen_t len);

static int usage(void)
{
	fprintf(stderr, "usage: shimdrive_net OP ARGS... (see the source)\n");
	return 2;
}

static socklen_t inet_addr_of(const char *host, const char *port,
			      struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	long p = strtol(port, NULL, 10);

	memset(ss, 0, sizeof(*ss));
	if (strchr(host, ':')) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return 0;
		return sizeof(*in6);
	}
	in->sin_family = AF_INET;
	in->sin_port = htons((uint16_t)p);
	if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
		return 0;
	return sizeof(*in);
}

static socklen_t unix_addr_of(const char *path, bool abstract,
			      struct sockaddr_un *un)
{
	size_t off = abstract ? 1 : 0;

	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	if (strlen(path) + off >= sizeof(un->sun_path))
		return 0;
	memcpy(un->sun_path + off, path, strlen(path));
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + off +
			   strlen(path) + (abstract ? 0 : 1));
}

static int done(long ret)
{
	int e = errno;

	if (ret < 0) {
		printf("failed: %d (%s)\n", e, strerror(e));
		return 1;
	}
	if (e != CANARY) {
		printf("errno clobbered: %d\n", e);
		return 3;
	}
	printf("ok\n");
	return 0;
}

static int udp(const char *op, const char *host, const char *port, int count)
{
	struct sockaddr_storage ss;
	socklen_t len = inet_addr_of(host, port, &ss);
	static char hi[] = "hi";
	struct iovec iov = { .iov_base = hi, .iov_len = 2 };
	struct mmsghdr vec[16];
	int fd;

	if (!len || count < 1 || count > 16)
		return usage();
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return done(-1);
	memset(vec, 0, sizeof(vec));
	for (int i = 0; i < count; i++) {
		vec[i].msg_hdr.msg_name = &ss;
		vec[i].msg_hdr.msg_namelen = len;
		vec[i].msg_hdr.msg_iov = &iov;
		vec[i].msg_hdr.msg_iovlen = 1;
	}
	errno = CANARY;
	if (strcmp(op, "udp") == 0)
		return done(
			sendto(fd, "hi", 2, 0, (struct sockaddr *)&ss, len));
	if (strcmp(op, "udp-msg") == 0)
		return done(sendmsg(fd, &vec[0].msg_hdr, 0));
	{
		int n = sendmmsg(fd, vec, (unsigned int)count, 0);

		if (n >= 0 && n != count) {
			printf("sent %d of %d\n", n, count);
			return 1;
		}
		return done(n);
	}
}

static int tcp(const char *op, const char *host, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = inet_addr_of(host, port, &ss);
	int fd;

	if (!len)
		return usage();
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return done(-1);
	errno = CANARY;
	if (strcmp(op, "tcp-alias") == 0)
		return done(__connect(fd, (struct sockaddr *)&ss, len));
	if (strcmp(op, "bind-tcp") == 0)
		return done(bind(fd, (struct sockaddr *)&ss, len));
	return done(connect(fd, (struct sockaddr *)&ss, len));
}

static int unix_op(const char *op, const char *path)
{
	struct sockaddr_un un;
	bool abstract = strcmp(op, "unix-abstract") == 0;
	socklen_t len = unix_addr_of(path, abstract, &un);
	int fd;

	if (!len)
		return usage();
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return done(-1);
	errno = CANARY;
	if (strcmp(op, "bind-unix") == 0)
		return done(bind(fd, (struct sockaddr *)&un, len));
	return done(connect(fd, (struct sockaddr *)&un, len));
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if ((!strcmp(op, "tcp") || !strcmp(op, "tcp-alias")) && argc == 4)
		return tcp(op, argv[2], argv[3]);
	if (!strcmp(op, "bind-tcp") && argc == 3)
		return tcp(op, "127.0.0.1", argv[2]);
	if ((!strcmp(op, "udp") || !strcmp(op, "udp-msg")) && argc == 4)
		return udp(op, argv[2], argv[3], 1);
	if (!strcmp(op, "udp-mmsg") && argc == 5)
		return udp(op, argv[2], argv[3],
			   (int)strtol(argv[4], NULL, 10));
	if ((!strcmp(op, "unix") || !strcmp(op, "unix-abstract") ||
	     !strcmp(op, "bind-unix")) &&
	    argc == 3)
		return unix_op(op, argv[2]);
	if (!strcmp(op, "raw-create") && argc == 3) {
		errno = CANARY;
		return done(syscall(SYS_openat, AT_FDCWD, argv[2],
				    O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	}
	return usage();
}
