/*
 * dlthreads: a program whose thread starts before libcordon.so is
 * loaded, through dlopen(), as a plugin host or an interpreter loads a
 * library (the shim used alone, from the CORDON_* variables, applies
 * Landlock in its constructor: shim/standalone.c).
 *
 *   dlthreads LIB FILE
 *
 * Starts a thread that waits, loads LIB (its constructor runs in the
 * main thread), then lets the thread create FILE (O_CREAT | O_EXCL) by
 * the system call itself, so that only the kernel decides.  Prints
 * "ok" or "fail ENAME" for the thread's attempt.
 *
 * Exit status: 0 when the thread created FILE, 1 when it could not, 2
 * on misuse or when LIB does not load.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int go[2];
static const char *file;
static int err = -1;

static void *early(void *arg)
{
	char ch;
	long fd;

	(void)arg;
	if (read(go[0], &ch, 1) != 1)
		return NULL;
	fd = syscall(SYS_openat, AT_FDCWD, file,
		     O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close((int)fd);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 3) {
		fprintf(stderr, "usage: dlthreads LIB FILE\n");
		return 2;
	}
	file = argv[2];
	if (pipe(go) || pthread_create(&t, NULL, early, NULL)) {
		perror("dlthreads");
		return 2;
	}
	if (!dlopen(argv[1], RTLD_NOW)) {
		fprintf(stderr, "dlthreads: %s\n", dlerror());
		return 2;
	}
	if (write(go[1], "", 1) != 1)
		return 2;
	pthread_join(t, NULL);
	if (err) {
		printf("fail %s\n", err > 0 && strerrorname_np(err)
					    ? strerrorname_np(err)
					    : "E?");
		return 1;
	}
	puts("ok");
	return 0;
}
