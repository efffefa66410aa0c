/*
 * inetpeer.c - reach an IPv4 address by system calls alone (no libc
 * wrapper the shim could see; linked static), for t_hosts.sh.
 *
 *   inetpeer tcp ADDR PORT   connect, write "x"
 *   inetpeer udp ADDR PORT   sendto "x"
 *   inetpeer udpconnect ADDR PORT   connect a UDP socket, write "x"
 *   inetpeer udpbind ADDR PORT      bind a UDP socket to ADDR:PORT
 *
 * Prints "ok" or "fail ENAME"; exit 0 when the call succeeded, 1 when
 * it did not, 2 on usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fail(void)
{
	printf("fail %s\n",
	       strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	char *end;
	unsigned long port;
	int tcp, uconnect, ubind;
	long fd, ret;

	if (argc != 4 || inet_pton(AF_INET, argv[2], &sin.sin_addr) != 1) {
		fprintf(stderr, "usage: inetpeer tcp|udp|udpconnect|udpbind "
				"ADDR PORT\n");
		return 2;
	}
	tcp = strcmp(argv[1], "tcp") == 0;
	uconnect = strcmp(argv[1], "udpconnect") == 0;
	ubind = strcmp(argv[1], "udpbind") == 0;
	port = strtoul(argv[3], &end, 10);
	if ((!tcp && !uconnect && !ubind && strcmp(argv[1], "udp") != 0) ||
	    *end || port > 65535)
		return 2;
	sin.sin_port = htons((unsigned short)port);
	fd = syscall(SYS_socket, AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd < 0)
		return fail();
	if (tcp || uconnect)
		ret = syscall(SYS_connect, fd, &sin, sizeof(sin)) < 0
			      ? -1
			      : syscall(SYS_write, fd, "x", 1);
	else if (ubind)
		ret = syscall(SYS_bind, fd, &sin, sizeof(sin)) < 0 ? -1 : 1;
	else
		ret = syscall(SYS_sendto, fd, "x", 1, 0, &sin, sizeof(sin));
	if (ret != 1)
		return fail();
	puts("ok");
	return 0;
}
