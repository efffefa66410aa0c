/*
 * pit_race: a symlink that changes under a program that opens it
 * (catalog pitfall D-8: the shim checks a path, libc resolves it again
 * later; only the kernel's check is atomic).
 *
 *   pit_race swap LINK TARGET_A TARGET_B N   point LINK at A and B in
 *                                            turn, N times (atomically,
 *                                            by rename over it)
 *   pit_race open LINK WORD N                open and read LINK N times
 *
 * "open" prints "opens=N word=W refused=R other=O": W reads returned a
 * content starting with WORD, R opens were refused (EACCES or EPERM), O
 * did anything else.  Exit 0, 2 on misuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int swap(const char *link, const char *a, const char *b, long n)
{
	char tmp[4096];

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", link) >= (int)sizeof(tmp))
		return 2;
	for (long i = 0; i < n; i++) {
		unlink(tmp);
		if (symlink(i % 2 ? b : a, tmp) < 0 || rename(tmp, link) < 0) {
			perror("pit_race: swap");
			return 2;
		}
	}
	return 0;
}

static int victim(const char *link, const char *word, long n)
{
	long word_reads = 0, refused = 0, other = 0;
	size_t len = strlen(word);
	char buf[256];

	for (long i = 0; i < n; i++) {
		int fd = open(link, O_RDONLY | O_CLOEXEC);
		ssize_t got;

		if (fd < 0) {
			if (errno == EACCES || errno == EPERM)
				refused++;
			else
				other++;
			continue;
		}
		got = read(fd, buf, sizeof(buf));
		close(fd);
		if (got >= (ssize_t)len && memcmp(buf, word, len) == 0)
			word_reads++;
	}
	printf("opens=%ld word=%ld refused=%ld other=%ld\n", n, word_reads,
	       refused, other);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "swap") == 0)
		return swap(argv[2], argv[3], argv[4],
			    strtol(argv[5], NULL, 10));
	if (argc == 5 && strcmp(argv[1], "open") == 0)
		return victim(argv[2], argv[3], strtol(argv[4], NULL, 10));
	fprintf(stderr, "usage: pit_race swap LINK A B N | "
			"pit_race open LINK WORD N\n");
	return 2;
}
