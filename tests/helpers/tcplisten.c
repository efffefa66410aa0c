/*
 * tcplisten.c - listen on a TCP socket by system calls alone (no libc
 * wrapper the shim could see; linked static), for t_listen.sh.
 *
 *   tcplisten [-b PORT | -c PORT] SECONDS
 *
 * Makes an IPv4 stream socket, binds it to 127.0.0.1:PORT when -b is
 * given, or with -c connects it to 127.0.0.1:PORT, where nothing
 * listens (the connect fails, and the socket keeps the port it took),
 * else leaves it unbound; calls listen(), and prints one line:
 * "ok PORT INODE" or "fail ENAME PORT INODE" (PORT as getsockname()
 * says, INODE the socket's, as /proc/net/tcp shows it), then keeps the
 * socket open for SECONDS, so that the test can look at it from
 * outside.  Exit 0 when listen() succeeded, 1 when not, 2 on usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	struct timespec t = { 0, 0 };
	struct stat st;
	int i = 1, err = 0;
	long fd, ret = 0;

	if (argc == 4 && (!strcmp(argv[1], "-b") || !strcmp(argv[1], "-c"))) {
		sin.sin_port = htons((uint16_t)strtoul(argv[2], NULL, 10));
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		i = 3;
	} else if (argc != 2) {
		fprintf(stderr, "usage: tcplisten [-b PORT | -c PORT] "
				"SECONDS\n");
		return 2;
	}
	t.tv_sec = strtol(argv[i], NULL, 10);
	fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || fstat((int)fd, &st))
		return 2;
	if (i == 3 && argv[1][1] == 'b')
		ret = syscall(SYS_bind, fd, &sin, sizeof(sin));
	/* refused: nothing listens there (the test makes sure) */
	if (i == 3 && argv[1][1] == 'c' &&
	    syscall(SYS_connect, fd, &sin, sizeof(sin)) == 0)
		return 2;
	if (!ret)
		ret = syscall(SYS_listen, fd, 8);
	if (ret)
		err = errno;
	memset(&sin, 0, sizeof(sin));
	syscall(SYS_getsockname, fd, &sin, &len);
	if (err)
		printf("fail %s ",
		       strerrorname_np(err) ? strerrorname_np(err) : "E?");
	else
		printf("ok ");
	printf("%u %lu\n", ntohs(sin.sin_port), (unsigned long)st.st_ino);
	fflush(stdout);
	nanosleep(&t, NULL);
	return err ? 1 : 0;
}
