/*
 * isocost.c - what each isolation mechanism adds to a start, timed
 * alone (make bench): the IPC namespace, the private /dev/shm and
 * devpts (devices.c), pid 1 sealed, and the search for repositories to
 * protect (gitguard.c) in a workspace.  Each is made ROUNDS times in a
 * fresh child and the median printed, in microseconds:
 *
 *   isocost WORKSPACE       ->  "ipc 12.3\ndev 45.6\nseal 0.4\ngit 78.9\n"
 *
 * The namespace rows need root (as `make bench` is run); the git row
 * searches WORKSPACE as cordon does for a writable root.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enforce/linux/linux.h"
#include "enforce/policy/policy.h"
#include "shim/core/policy.h"

#define ROUNDS 200

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Time @what in a child made in new mount and PID namespaces (as pid 1
 * is), through a pipe; the median of ROUNDS. */
static double median(int (*what)(const char *arg), const char *arg)
{
	static double t[ROUNDS];
	int n = 0;

	for (int i = 0; i < ROUNDS; i++) {
		int fd[2];
		double us = -1;
		pid_t pid;

		if (pipe(fd) < 0)
			return -1;
		pid = fork();
		if (pid == 0) {
			double t0;

			close(fd[0]);
			if (unshare(CLONE_NEWNS) < 0 ||
			    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
				_exit(1);
			t0 = now_us();
			if (what(arg) < 0)
				_exit(1);
			us = now_us() - t0;
			if (write(fd[1], &us, sizeof(us)) != sizeof(us))
				_exit(1);
			_exit(0);
		}
		close(fd[1]);
		if (read(fd[0], &us, sizeof(us)) == sizeof(us) && us >= 0)
			t[n++] = us;
		close(fd[0]);
		waitpid(pid, NULL, 0);
	}
	if (!n)
		return -1;
	qsort(t, (size_t)n, sizeof(t[0]), cmp);
	return t[n / 2];
}

static int ipc(const char *arg)
{
	(void)arg;
	return unshare(CLONE_NEWIPC);
}

static int dev(const char *arg)
{
	static struct policy p;
	const char *step;

	(void)arg;
	return devices_setup(&p, &step);
}

static int seal(const char *arg)
{
	(void)arg;
	return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

static int git(const char *ws)
{
	static struct policy p;

	p.nroots = 0;
	if (policy_add_root(&p, ws, RIGHT_ALL, ORIGIN_DEFAULT, true))
		return -1;
	return gitguard_find(&p);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: isocost WORKSPACE\n");
		return 2;
	}
	printf("ipc %.1f\n", median(ipc, NULL));
	printf("dev %.1f\n", median(dev, NULL));
	printf("seal %.1f\n", median(seal, NULL));
	printf("git %.1f\n", median(git, argv[1]));
	return 0;
}
