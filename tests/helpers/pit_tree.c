/*
 * pit_tree: the fixture tree of the shim's differential and pitfall
 * tests, and what can be seen of a tree from outside.
 *
 *   pit_tree fixture DIR [lib]   (re)create DIR with the files the rows of
 *                                ffidrive name: file, dir/file, empty/,
 *                                link -> file, prog (a script that prints
 *                                "ran" and leaves prog.ran), and with
 *                                "lib" lib.so (a copy of libm)
 *   pit_tree snapshot DIR        one sorted line per entry: name, type,
 *                                mode, owner, size, mtime, link target,
 *                                a hash of the content, the xattr names
 *
 * One process instead of a dozen per call: the tests make a fixture and
 * two snapshots for every run of every row.  Run it without the shim.
 * Exit status: 0, or 2 with a message.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define PROG	  "pit_tree"
#define MAX_LINES 4096
#define LINE_MAX_ 8192

static const char *const libms[] = {
	"/usr/lib/x86_64-linux-gnu/libm.so.6",
	"/lib/x86_64-linux-gnu/libm.so.6",
	"/lib64/libm.so.6",
};

static char *lines[MAX_LINES];
static size_t nlines;
static size_t root_len;

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(errno));
	va_end(ap);
	exit(2);
}

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP || type == FTW_D)
		chmod(path, 0700);
	if (remove(path) < 0 && errno != ENOENT)
		die("cannot remove '%s'", path);
	return 0;
}

static void put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t len = strlen(text);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd) < 0)
		die("cannot write '%s'", path);
}

static void copy(const char *from, const char *to)
{
	char chunk[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	ssize_t n;

	if (in < 0 || out < 0)
		die("cannot copy '%s' to '%s'", from, to);
	while ((n = read(in, chunk, sizeof(chunk))) > 0)
		if (write(out, chunk, (size_t)n) != n)
			die("cannot write '%s'", to);
	if (n < 0 || close(out) < 0)
		die("cannot copy '%s'", from);
	close(in);
}

static void join(char *out, size_t len, const char *dir, const char *name)
{
	if (snprintf(out, len, "%s/%s", dir, name) >= (int)len) {
		errno = ENAMETOOLONG;
		die("'%s/%s'", dir, name);
	}
}

static void fixture(const char *dir, bool lib)
{
	static const struct timespec old[2] = { { 946684800, 0 },
						{ 946684800, 0 } };
	char p[4096], script[4096 + 64];

	if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0 &&
	    errno != ENOENT)
		die("cannot remove '%s'", dir);
	if (mkdir(dir, 0755) < 0)
		die("cannot create '%s'", dir);
	join(p, sizeof(p), dir, "dir");
	if (mkdir(p, 0755) < 0)
		die("cannot create '%s'", p);
	join(p, sizeof(p), dir, "empty");
	if (mkdir(p, 0755) < 0)
		die("cannot create '%s'", p);
	join(p, sizeof(p), dir, "dir/file");
	put(p, "inner\n", 0644);
	utimensat(AT_FDCWD, p, old, 0);
	join(p, sizeof(p), dir, "file");
	put(p, "orig\n", 0644);
	utimensat(AT_FDCWD, p, old, 0);
	setxattr(p, "user.orig", "1", 1, 0); /* where the fs has them */
	join(p, sizeof(p), dir, "link");
	if (symlink("file", p) < 0)
		die("cannot create '%s'", p);
	snprintf(script, sizeof(script),
		 "#!/bin/sh\necho ran\n: > '%s/prog.ran'\n", dir);
	join(p, sizeof(p), dir, "prog");
	put(p, script, 0755);
	if (!lib)
		return;
	join(p, sizeof(p), dir, "lib.so");
	for (size_t i = 0; i < sizeof(libms) / sizeof(libms[0]); i++)
		if (access(libms[i], R_OK) == 0) {
			copy(libms[i], p);
			return;
		}
	die("no libm.so.6 to copy");
}

static uint64_t hash_file(const char *path)
{
	uint64_t h = 14695981039346656037ULL;
	unsigned char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return 0;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ chunk[i]) * 1099511628211ULL;
	close(fd);
	return h;
}

static int note(const char *path, const struct stat *st, int type,
		struct FTW *ftw)
{
	char target[4096] = "", names[1024] = "";
	char line[LINE_MAX_];
	ssize_t n;

	(void)type;
	(void)ftw;
	if (S_ISLNK(st->st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
	}
	n = llistxattr(path, names, sizeof(names) - 1);
	names[n > 0 ? n : 0] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (names[i] == '\0')
			names[i] = ',';
	snprintf(line, sizeof(line),
		 "%s %o %u:%u %lld %lld.%09ld %s %016llx %s",
		 path[root_len] ? path + root_len + 1 : ".",
		 (unsigned int)st->st_mode, (unsigned int)st->st_uid,
		 (unsigned int)st->st_gid, (long long)st->st_size,
		 (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
		 target[0] ? target : "-",
		 S_ISREG(st->st_mode) ? (unsigned long long)hash_file(path)
				      : 0ULL,
		 names[0] ? names : "-");
	if (nlines == MAX_LINES) {
		errno = E2BIG;
		die("too many entries");
	}
	lines[nlines] = strdup(line);
	if (!lines[nlines++])
		die("out of memory");
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void snapshot(const char *dir)
{
	root_len = strlen(dir);
	if (nftw(dir, note, 16, FTW_PHYS) < 0) {
		printf("absent\n");
		return;
	}
	qsort(lines, nlines, sizeof(lines[0]), by_name);
	for (size_t i = 0; i < nlines; i++)
		printf("%s\n", lines[i]);
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "fixture") == 0) {
		fixture(argv[2], argc > 3 && strcmp(argv[3], "lib") == 0);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "snapshot") == 0) {
		snapshot(argv[2]);
		return 0;
	}
	fprintf(stderr, "usage: " PROG " fixture DIR [lib] | snapshot DIR\n");
	return 2;
}
