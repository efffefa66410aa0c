/*
 * shimdrive_open.c - calls of the open family for the shim's tests.
 *
 *   shimdrive_open tmpfile DIR NAME   O_TMPFILE with mode 0644, linked
 *                                     as DIR/NAME; prints the mode
 *   shimdrive_open errno PATH         open PATH read-only after setting
 *                                     errno to 1234; prints errno after
 *   shimdrive_open fopen PATH MODE    fopen; prints "ok" or the errno name
 *   shimdrive_open openat DIR NAME    openat(an fd of DIR, NAME, 0)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int tmpfile_mode(const char *dir, const char *name)
{
	char proc[64];
	struct stat st;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	int fd = open(dir, O_TMPFILE | O_WRONLY, 0644);

	if (fd < 0 || dfd < 0) {
		printf("error %s\n", strerror(errno));
		return 1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, dfd, name, AT_SYMLINK_FOLLOW) < 0 ||
	    fstatat(dfd, name, &st, 0) < 0) {
		printf("error %s\n", strerror(errno));
		return 1;
	}
	printf("%o\n", st.st_mode & 07777);
	return 0;
}

static int errno_kept(const char *path)
{
	int fd;

	errno = 1234;
	fd = open(path, O_RDONLY);
	printf("fd %s errno %d\n", fd >= 0 ? "ok" : "failed", errno);
	return fd >= 0 ? 0 : 1;
}

static int do_fopen(const char *path, const char *mode)
{
	FILE *f = fopen(path, mode);

	printf("%s\n", f ? "ok" : strerrorname_np(errno));
	return f ? 0 : 1;
}

/* The directory fd comes from a raw syscall, as if inherited: only the
 * openat relative to it is the shim's to judge. */
static int do_openat(const char *dir, const char *name)
{
	int dfd =
		(int)syscall(SYS_openat, AT_FDCWD, dir, O_RDONLY | O_DIRECTORY);
	int fd = openat(dfd, name, O_RDONLY);

	printf("%s\n", fd >= 0 ? "ok" : strerrorname_np(errno));
	return fd >= 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	umask(022);
	if (argc == 4 && strcmp(argv[1], "tmpfile") == 0)
		return tmpfile_mode(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "errno") == 0)
		return errno_kept(argv[2]);
	if (argc == 4 && strcmp(argv[1], "fopen") == 0)
		return do_fopen(argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "openat") == 0)
		return do_openat(argv[2], argv[3]);
	fprintf(stderr,
		"usage: shimdrive_open tmpfile|errno|fopen|openat ...\n");
	return 2;
}
