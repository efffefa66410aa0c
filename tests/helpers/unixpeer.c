/*
 * unixpeer.c - reach a pathname UNIX socket by system calls alone (no
 * libc wrapper the shim could see; linked static), for t_unix.sh.
 *
 *   unixpeer connect PATH [SECONDS]   stream: connect, write "x"
 *   unixpeer sendto PATH [SECONDS]    datagram: sendto "x"
 *   unixpeer sendmsg PATH [SECONDS]   datagram: sendmsg "x", msg_name PATH
 *
 * Waits up to SECONDS (default 0) for PATH to exist, then tries (again
 * for a second while the listener is not listening yet: ECONNREFUSED).
 * A PATH "@NAME" is the abstract name "\0NAME" (as listener -a binds
 * it), tried again for SECONDS (at least one) while nothing is bound.
 * Prints "ok" or "fail ENAME"; exit 0 when it reached the socket, 1
 * when it did not, 2 on usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int fail(void)
{
	printf("fail %s\n",
	       strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	return 1;
}

static void wait_for(const char *path, long seconds)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct stat st;

	for (long i = 0; i < seconds * 50; i++) {
		if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) == 0)
			return;
		nanosleep(&tick, NULL);
	}
}

int main(int argc, char **argv)
{
	static char x[] = "x";
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct iovec iov = { .iov_base = x, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	socklen_t len = sizeof(sun);
	long fd, ret = -1, seconds, tries = 50;
	bool stream;

	if (argc < 3 || argc > 4 || strlen(argv[2]) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "usage: unixpeer connect|sendto|sendmsg PATH "
				"[SECONDS]\n");
		return 2;
	}
	stream = strcmp(argv[1], "connect") == 0;
	if (!stream && strcmp(argv[1], "sendto") != 0 &&
	    strcmp(argv[1], "sendmsg") != 0)
		return 2;
	memcpy(sun.sun_path, argv[2], strlen(argv[2]) + 1);
	seconds = argc == 4 ? strtol(argv[3], NULL, 10) : 0;
	if (argv[2][0] == '@') {
		sun.sun_path[0] = '\0';
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				  strlen(argv[2]));
		tries = seconds > 1 ? seconds * 50 : 50;
	} else {
		wait_for(argv[2], seconds);
	}
	fd = syscall(SYS_socket, AF_UNIX, stream ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd < 0)
		return fail();
	msg.msg_name = &sun;
	msg.msg_namelen = len;
	/* a listener binds, then listens: refused for a moment */
	for (long i = 0; i < tries; i++) {
		if (stream)
			ret = syscall(SYS_connect, fd, &sun, len);
		else if (strcmp(argv[1], "sendto") == 0)
			ret = syscall(SYS_sendto, fd, "x", 1, 0, &sun, len);
		else
			ret = syscall(SYS_sendmsg, fd, &msg, 0);
		if (ret >= 0 || errno != ECONNREFUSED)
			break;
		nanosleep(&tick, NULL);
	}
	if (ret < 0 || (stream && syscall(SYS_write, fd, "x", 1) != 1))
		return fail();
	puts("ok");
	return 0;
}
