/*
 * pit_tmpfile: the mode of an O_TMPFILE file (catalog pitfall D-14: a
 * hook that reads open's mode argument only for O_CREAT passes 0 for
 * O_TMPFILE, and the file ends up mode 0).
 *
 *   pit_tmpfile DIR NAME    open(DIR, O_TMPFILE|O_WRONLY, 0644), then
 *                           give it the name DIR/NAME (linkat)
 *
 * The test reads the mode from outside.  Exit 0, or 1 with a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char proc[64], dst[4096];
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: pit_tmpfile DIR NAME\n");
		return 2;
	}
	fd = open(argv[1], O_TMPFILE | O_WRONLY, 0644);
	if (fd < 0) {
		fprintf(stderr, "pit_tmpfile: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	snprintf(dst, sizeof(dst), "%s/%s", argv[1], argv[2]);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, dst, AT_SYMLINK_FOLLOW) < 0) {
		fprintf(stderr, "pit_tmpfile: %s: %s\n", dst, strerror(errno));
		return 1;
	}
	return 0;
}
