/*
 * pit_sigopen: open() from a signal handler while the program itself
 * is inside open(), thousands of times a second (catalog pitfall D-4: a
 * hook that takes a lock, or that is not reentrant, hangs here).
 *
 *   pit_sigopen ALLOWED DENIED N
 *
 * A 50 us interval timer raises SIGALRM; its handler opens ALLOWED (and
 * every 64th time DENIED) and closes it.  The main loop opens and closes
 * ALLOWED N times (every 4096th time DENIED).  Prints
 * "opens=N handler=H denied=D" (D: the opens of DENIED that failed) and
 * exits 0; a hang is the failure, caught by the test's timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static const char *allowed, *denied;
static volatile sig_atomic_t handled, handler_denied;

static void on_alarm(int sig)
{
	int saved = errno;
	const char *p = handled % 64 == 63 ? denied : allowed;
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	(void)sig;
	if (fd >= 0)
		close(fd);
	else if (p == denied)
		handler_denied = handler_denied + 1;
	handled = handled + 1;
	errno = saved;
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa = { .sa_handler = on_alarm,
				.sa_flags = SA_RESTART };
	long n, denied_main = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: pit_sigopen ALLOWED DENIED N\n");
		return 2;
	}
	allowed = argv[1];
	denied = argv[2];
	n = strtol(argv[3], NULL, 10);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0 ||
	    setitimer(ITIMER_REAL, &it, NULL) < 0) {
		perror("pit_sigopen: timer");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		const char *p = i % 4096 == 4095 ? denied : allowed;
		int fd = open(p, O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			close(fd);
		else if (p == denied)
			denied_main++;
		else
			fprintf(stderr, "pit_sigopen: %s: %s\n", p,
				strerror(errno));
	}
	setitimer(ITIMER_REAL, &off, NULL);
	printf("opens=%ld handler=%ld denied=%ld\n", n, (long)handled,
	       denied_main + (long)handler_denied);
	return 0;
}
