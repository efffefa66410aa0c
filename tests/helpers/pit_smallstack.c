/*
 * pit_smallstack: exec from a thread with a 64 KiB stack (catalog
 * pitfall D-14: an exec hook that copies argv or envp into a VLA or a
 * big stack buffer overflows a small thread stack).
 *
 *   pit_smallstack N PROGRAM    execv(PROGRAM, [PROGRAM, "x" * N]) from a
 *                               thread whose stack is 64 KiB
 *
 * Exit 2 when the thread cannot be made; otherwise PROGRAM's status, or 1
 * with a message when the exec fails.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char **args;
static char x[] = "x";

static void *run(void *arg)
{
	execv(args[0], args);
	fprintf(stderr, "pit_smallstack: %s: %s\n", args[0], strerror(errno));
	(void)arg;
	_exit(1);
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t t;
	long n;

	if (argc != 3) {
		fprintf(stderr, "usage: pit_smallstack N PROGRAM\n");
		return 2;
	}
	n = strtol(argv[1], NULL, 10);
	if (n < 0 || n > 1000000)
		return 2;
	args = calloc((size_t)n + 2, sizeof(*args));
	if (!args)
		return 2;
	args[0] = argv[2];
	for (long i = 1; i <= n; i++)
		args[i] = x;
	if (pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, 64 * 1024) ||
	    pthread_create(&t, &attr, run, NULL)) {
		fprintf(stderr, "pit_smallstack: cannot start the thread\n");
		return 2;
	}
	pthread_join(t, NULL);
	return 1;
}
