/*
 * contain.c - the kernel matrix's containment attempt, a static binary
 * (no shim can see it), run in each guest by guest.sh under
 * `cordon --best-effort --` and bare, its twin.
 *
 *   contain abi                     the kernel's Landlock ABI, or "none"
 *   contain RAN OUTSIDE SECRET COPY
 *
 * Creates RAN (in the workspace: proof that it ran, so a verdict counts),
 * creates OUTSIDE (a file outside the workspace) and copies SECRET (a
 * file under $HOME's .ssh) into COPY (in the workspace).  Says what each
 * step did; the verdict is guest.sh's, from outside, after it exits:
 * OUTSIDE must not exist, COPY must not hold the secret.  Exit 0 when
 * both steps worked, 1 otherwise, 2 on usage.
 */
#include <errno.h>
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
	if (argc != 5) {
		fprintf(stderr, "usage: contain RAN OUTSIDE SECRET COPY\n");
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
	return wrote && copied ? 0 : 1;
}
