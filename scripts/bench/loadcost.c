/*
 * loadcost.c - what loading the shim costs one process, beside what
 * any preloaded library costs (issue 33).
 *
 *   loadcost [-r ROUNDS] [-n RUNS] [-p PROGRAM] EMPTY_SO [LIB...]
 *
 * Run inside cordon (`cordon -q -- loadcost ...`): linked statically,
 * so no shim is loaded into it and the environment it gives its
 * children is its own choice.  In ROUNDS rounds (default 30), each of
 * RUNS (default 100) starts of PROGRAM (default /bin/true) is timed
 * (vfork, exec, wait) once with each of three environments, in an order
 * rotated each round:
 *   bare   the environment cordon gave, without LD_PRELOAD
 *   empty  LD_PRELOAD=EMPTY_SO (a library with nothing in it)
 *   shim   the environment cordon gave (LD_PRELOAD=libcordon.so and the
 *          policy's snapshot)
 * and, for each LIB given (a variant of the shim, to compare), the
 * environment cordon gave with LD_PRELOAD=LIB.
 * Prints "NAME MEDIAN_US" for each (a LIB by its path), then
 * "load_ratio NAME R" for the shim and each LIB: its added time over
 * the empty library's, (NAME - bare) / (empty - bare).
 * Exit 0, 1 when a start failed, 2 on bad usage.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ENV_MAX	 512
#define WAYS_MAX 8

extern char **environ;

static const char *names[WAYS_MAX] = { "bare", "empty", "shim" };

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double run(char *const argv[], char *const envp[])
{
	double t0 = now_us();
	pid_t pid = vfork();
	int st;

	if (pid == 0) {
		execve(argv[0], argv, envp);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return -1;
	return now_us() - t0;
}

/* @s as a count, or 0 when it is no positive number. */
static long count(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	return *end || n <= 0 || n > 1000000 ? 0 : n;
}

static int usage(void)
{
	fprintf(stderr, "usage: loadcost [-r ROUNDS] [-n RUNS] [-p PROGRAM] "
			"EMPTY_SO [LIB...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static char *envs[WAYS_MAX][ENV_MAX];
	static char vars[WAYS_MAX][4096];
	static char dflt[] = "/bin/true";
	long rounds = 30, runs = 100;
	char *prog[] = { dflt, NULL };
	size_t n[WAYS_MAX] = { 0 }, total;
	double *t[WAYS_MAX], med[WAYS_MAX];
	bool preloaded = false;
	int opt, ways;

	while ((opt = getopt(argc, argv, "r:n:p:")) != -1) {
		if (opt == 'r')
			rounds = count(optarg);
		else if (opt == 'n')
			runs = count(optarg);
		else if (opt == 'p')
			prog[0] = optarg;
		else
			return usage();
	}
	ways = 3 + argc - optind - 1;
	if (optind >= argc || ways > WAYS_MAX || !rounds || !runs)
		return usage();
	for (int w = 1; w < ways; w++)
		if (w != 2) {
			const char *lib =
				w == 1 ? argv[optind] : argv[optind + w - 2];

			snprintf(vars[w], sizeof(vars[w]), "LD_PRELOAD=%s",
				 lib);
			if (w > 2)
				names[w] = lib;
		}
	for (char **e = environ; *e; e++) {
		bool pre = strncmp(*e, "LD_PRELOAD=", 11) == 0;

		if (n[2] + 2 >= ENV_MAX)
			break;
		preloaded |= pre;
		for (int w = 0; w < ways; w++)
			if (w == 2 || !pre)
				envs[w][n[w]++] = *e;
	}
	for (int w = 1; w < ways; w++)
		if (w != 2)
			envs[w][n[w]++] = vars[w];
	if (!preloaded) {
		fprintf(stderr, "loadcost: no LD_PRELOAD: run it in cordon\n");
		return 2;
	}
	total = (size_t)(rounds * runs);
	for (int w = 0; w < ways; w++) {
		t[w] = calloc(total, sizeof(double));
		if (!t[w])
			return 1;
		if (run(prog, envs[w]) < 0) { /* warm, and a check */
			fprintf(stderr, "loadcost: %s failed (%s)\n", prog[0],
				names[w]);
			return 1;
		}
	}
	for (long r = 0, i = 0; r < rounds; r++)
		for (long k = 0; k < runs; k++, i++)
			for (int j = 0; j < ways; j++) {
				int w = (int)((j + r + k) % ways);
				double us = run(prog, envs[w]);

				if (us < 0) {
					fprintf(stderr,
						"loadcost: %s failed (%s)\n",
						prog[0], names[w]);
					return 1;
				}
				t[w][i] = us;
			}
	for (int w = 0; w < ways; w++) {
		qsort(t[w], total, sizeof(double), cmp);
		med[w] = total % 2
				 ? t[w][total / 2]
				 : (t[w][total / 2 - 1] + t[w][total / 2]) / 2;
		printf("%s %.1f\n", names[w], med[w]);
	}
	for (int w = 2; w < ways; w++)
		printf("load_ratio %s %.2f\n", names[w],
		       med[1] > med[0] ? (med[w] - med[0]) / (med[1] - med[0])
				       : 0.0);
	return 0;
}
