/*
 * pit_forkstorm: fork while other threads are inside the shim (catalog
 * pitfall D-5: a lock held by another thread at fork() stays locked in
 * the child forever; _Fork() runs no atfork handlers at all).
 *
 *   pit_forkstorm fork|_Fork ALLOWED DENIED N
 *
 * Eight threads open ALLOWED in a loop (every 256th time DENIED), pausing
 * 1 ms after every 16 opens so that the forks get the CPU too.  The
 * main thread forks N times; each child opens ALLOWED (every 100th child
 * DENIED) and _exits: 0 when the open succeeded, 3 when it was refused
 * (EACCES, or ENOENT where the policy hides DENIED: absent for the
 * program), 1 otherwise.  Prints "forks=N opened=A denied=D bad=B"
 * and exits 0; a hang is the failure, caught by the test's timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 8

static const char *allowed, *denied;
static atomic_int stop;

static void *opener(void *arg)
{
	(void)arg;
	for (long i = 0; !atomic_load(&stop); i++) {
		int fd = open(i % 256 == 255 ? denied : allowed,
			      O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			close(fd);
		if (i % 16 == 15)
			usleep(1000);
	}
	return NULL;
}

static void child(long i)
{
	int fd = open(i % 100 == 99 ? denied : allowed, O_RDONLY | O_CLOEXEC);

	_exit(fd >= 0 ? 0 : errno == EACCES || errno == ENOENT ? 3 : 1);
}

int main(int argc, char **argv)
{
	pthread_t threads[THREADS];
	long n, opened = 0, refused = 0, bad = 0;
	int use_fork;

	if (argc != 5) {
		fprintf(stderr,
			"usage: pit_forkstorm fork|_Fork ALLOWED DENIED N\n");
		return 2;
	}
	use_fork = strcmp(argv[1], "fork") == 0;
	allowed = argv[2];
	denied = argv[3];
	n = strtol(argv[4], NULL, 10);
	for (int t = 0; t < THREADS; t++)
		if (pthread_create(&threads[t], NULL, opener, NULL)) {
			fprintf(stderr, "pit_forkstorm: pthread_create\n");
			return 2;
		}
	for (long i = 0; i < n; i++) {
		pid_t pid = use_fork ? fork() : _Fork();
		int st;

		if (pid == 0)
			child(i);
		if (pid < 0 || waitpid(pid, &st, 0) != pid) {
			bad++;
			continue;
		}
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			opened++;
		else if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
			refused++;
		else
			bad++;
	}
	atomic_store(&stop, 1);
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	printf("forks=%ld opened=%ld denied=%ld bad=%ld\n", n, opened, refused,
	       bad);
	return 0;
}
