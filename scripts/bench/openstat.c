/*
 * openstat.c - the cost of one open+close, or one stat, from inside.
 *
 *   openstat open|stat PATH [COUNT]
 *
 * Calls open(PATH, O_RDONLY|O_CLOEXEC) and close(), or stat(PATH),
 * COUNT times (default 1000000) through libc, so that a preloaded shim
 * sees each call, in 20 slices timed each, and prints the nanoseconds
 * per call of the fastest slice on stdout.
 * Exit 1 when a call fails (the bench measures allowed calls only).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHUNKS 20 /* slices of the calls, timed each */

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	long count = argc > 3 ? strtol(argv[3], NULL, 10) : 1000000;
	bool do_open;
	struct stat st;
	double best = -1;

	if (argc < 3 || count < 1 ||
	    (strcmp(argv[1], "open") && strcmp(argv[1], "stat"))) {
		fprintf(stderr, "usage: openstat open|stat PATH [COUNT]\n");
		return 2;
	}
	do_open = strcmp(argv[1], "open") == 0;
	/* The calls in CHUNKS slices; the fastest slice is the cost: these
	 * machines lose the CPU to their host in bursts of a second or more,
	 * which no per-call cost explains. */
	for (long c = 0, done = 0; c < CHUNKS; c++) {
		long n = (count - done) / (CHUNKS - c);
		double t0 = now_ns(), ns;

		for (long i = 0; i < n; i++) {
			if (do_open) {
				int fd = open(argv[2], O_RDONLY | O_CLOEXEC);

				if (fd < 0 || close(fd))
					goto fail;
			} else if (stat(argv[2], &st)) {
				goto fail;
			}
		}
		ns = n ? (now_ns() - t0) / (double)n : 0;
		if (n && (best < 0 || ns < best))
			best = ns;
		done += n;
	}
	printf("%.1f\n", best);
	return 0;
fail:
	perror(argv[2]);
	return 1;
}
