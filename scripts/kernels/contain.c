/*
 * contain.c - the kernel matrix's containment attempt, a static binary
 * (no shim can see it), run in each guest by guest.sh under
 * `cordon --best-effort --` and bare, its twin.
 *
 *   contain abi                     the kernel's Landlock ABI, or "none"
 *   contain RAN OUTSIDE SECRET COPY [VICTIM PORT PID]
 *
 * Creates RAN (in the workspace: proof that it ran, so a verdict counts),
 * creates OUTSIDE (a file outside the workspace) and copies SECRET (a
 * file under $HOME's .ssh) into COPY (in the workspace); then truncates
 * VICTIM (a file outside the writable roots) by its name, connects to
 * 127.0.0.1:PORT (a TCP listener outside) and sends PID (a process
 * outside) SIGTERM.  Says what each step did; the verdict is guest.sh's,
 * from outside, after it exits: OUTSIDE must not exist, COPY must not
 * hold the secret, VICTIM must keep its bytes, the listener must have
 * seen no connection, PID must live.  Exit 0 when every step worked,
 * 1 otherwise, 2 on usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/landlock.h>

static int say(const char *what, const char *path, int ok)
{
	if (ok)
		printf("%s %s: ok\n", what, path);
	else
		printf("%s %s: %s\n", what, path, strerror(errno));
	return ok;
}

static int put(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ok;

	if (fd < 0)
		return 0;
	ok = write(fd, buf, len) == (ssize_t)len;
	return close(fd) == 0 && ok;
}

int main(int argc, char **argv)
{
	char buf[4096];
	ssize_t n = -1;
	int fd, wrote, copied = 0;

	if (argc == 2 && strcmp(argv[1], "abi") == 0) {
		long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
				   LANDLOCK_CREATE_RULESET_VERSION);

		if (abi < 0)
			printf("none (%s)\n", strerrorname_np(errno));
		else
			printf("%ld\n", abi);
		return 0;
	}
	if (argc != 5 && argc != 8) {
		fprintf(stderr, "usage: contain RAN OUTSIDE SECRET COPY "
				"[VICTIM PORT PID]\n");
		return 2;
	}
	argv++;
	say("write", argv[0], put(argv[0], "ran\n", 4));
	wrote = say("write", argv[1], put(argv[1], "escaped\n", 8));
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf));
		close(fd);
	}
	if (say("read", argv[2], n >= 0))
		copied = say("copy", argv[3], put(argv[3], buf, (size_t)n));
	if (argc == 8) {
		struct sockaddr_in sin = { .sin_family = AF_INET,
					   .sin_port = htons((uint16_t)atoi(argv[5])),
					   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int truncated, connected, signalled;

		truncated = say("truncate", argv[4],
				syscall(SYS_truncate, argv[4], 0) == 0);
		connected = say("connect", argv[5],
				s >= 0 && connect(s, (struct sockaddr *)&sin,
						  sizeof(sin)) == 0);
		signalled = say("kill", argv[6],
				syscall(SYS_kill, atoi(argv[6]), SIGTERM) == 0);
		return wrote && copied && truncated && connected && signalled
			       ? 0
			       : 1;
	}
	return wrote && copied ? 0 : 1;
}
