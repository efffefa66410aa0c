/*
 * Unit tests of unixdiag.c on the real kernel: a socket bound in this
 * network namespace is found by its file, one bound in another is not,
 * and a file that is no socket is not.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/broker/unixdiag.h"
#include "tmptree.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/cordon-unixdiag-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void fini(void)
{
	tmptree_remove(dir);
}

TestSuite(unixdiag, .init = setup, .fini = fini);

static int bind_at(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    listen(fd, 1) < 0)
		return -1;
	return fd;
}

static int ask(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	return unixdiag_bound_here(st.st_dev, st.st_ino);
}

Test(unixdiag, a_socket_of_this_namespace_is_found)
{
	char p[128];
	int fd;

	snprintf(p, sizeof(p), "%s/s", dir);
	fd = bind_at(p);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ask(p), 1);
	close(fd);
	/* bound no more: the file stays, no socket is bound at it */
	cr_assert_eq(ask(p), 0);
}

Test(unixdiag, a_file_is_no_socket)
{
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/f", dir);
	f = fopen(p, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(ask(p), 0);
}

/* Bound by a child in a network namespace of its own (with a user
 * namespace, so that a user may make it too): not found here. */
Test(unixdiag, a_socket_of_another_namespace_is_not_found)
{
	int ready[2], done[2];
	char p[128], c;
	pid_t pid;

	snprintf(p, sizeof(p), "%s/other", dir);
	cr_assert_eq(pipe(ready), 0);
	cr_assert_eq(pipe(done), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int flags = CLONE_NEWNET | (geteuid() ? CLONE_NEWUSER : 0);

		if (unshare(flags) < 0 || bind_at(p) < 0)
			_exit(1);
		c = 'r';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		if (read(done[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	cr_assert_eq(read(ready[0], &c, 1), 1, "the child could not bind");
	cr_assert_eq(ask(p), 0);
	c = 'd';
	cr_assert_eq(write(done[1], &c, 1), 1);
	waitpid(pid, NULL, 0);
}
