/*
 * ttygrab.c - a session call's leftover that tries to keep the caller's
 * terminal (t_session_pty.sh); linked static, no libc wrapper the shim
 * could see.
 *
 *   ttygrab OUT SECONDS
 *
 * Opens /dev/tty (when it has one), ignores SIGHUP, SIGTTIN and SIGTTOU,
 * forks and returns at once (the call ends: exit 0, "left" on stdout);
 * the child, in a session of its own (so no terminal's job control
 * stops its reads), reads fd 0 and /dev/tty for SECONDS and appends
 * all it reads to OUT (made empty at the start), and once, after a
 * second, writes "LEFTOVER-WROTE" to fd 1 and to /dev/tty (a prompt it
 * could fake).  Exit 2 on usage.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char mark[] = "LEFTOVER-WROTE\n";

static void grab(int out, int tty, long seconds)
{
	struct pollfd p[2] = { { 0, POLLIN, 0 }, { tty, POLLIN, 0 } };
	time_t start = time(NULL);
	bool wrote = false;

	while (time(NULL) - start < seconds) {
		char buf[4096];

		if (!wrote && time(NULL) - start >= 1) {
			wrote = true;
			if (write(1, mark, sizeof(mark) - 1) < 0)
				(void)0;
			if (tty >= 0 && write(tty, mark, sizeof(mark) - 1) < 0)
				(void)0;
		}
		if (poll(p, 2, 200) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				p[i].fd = -1; /* ended, or hung up */
				continue;
			}
			if (write(out, buf, (size_t)n) < 0)
				(void)0;
		}
	}
}

int main(int argc, char **argv)
{
	int out, tty;
	long seconds;

	if (argc != 3 || (seconds = strtol(argv[2], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: ttygrab OUT SECONDS\n");
		return 2;
	}
	out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
		   0644);
	if (out < 0) {
		perror(argv[1]);
		return 1;
	}
	tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	switch (fork()) {
	case -1:
		perror("fork");
		return 1;
	case 0:
		setsid();
		grab(out, tty, seconds);
		_exit(0);
	default:
		printf("left\n");
		return 0;
	}
}
