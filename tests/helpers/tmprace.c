/*
 * tmprace.c - the attack on a removal of a temp dir by path
 * (t_deputy_tmp.sh), linked statically: no libc wrapper a shim could
 * see.
 *
 *   tmprace plant N WS
 *	in $TMPDIR: pNNNN/d/victim for N dirs; $TMPDIR's path into
 *	WS/where; then wait (20 s at most) for WS/go and exit: the
 *	launcher removes the tree then.
 *   tmprace swap DIR STASH TARGET N GO
 *	STASH/lNNNN, N links to TARGET; GO made; then, in the order the
 *	directory lists them, DIR/pNNNN/d and STASH/lNNNN exchanged
 *	(renameat2 RENAME_EXCHANGE) as fast as it can, each until it is
 *	gone or the remover is past it (the next one's victim gone): a
 *	remover that reads DIR/pNNNN/d as a directory and then opens it
 *	by path walks TARGET instead.  Prints "swaps S" or "unreachable:
 *	REASON" (DIR cannot be changed from here); 30 s at most.
 *   tmprace nftwrm DIR
 *	remove DIR as cordon did before rmtree_at(): nftw(FTW_DEPTH |
 *	FTW_PHYS | FTW_MOUNT), unlink and rmdir by path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_N 4096

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int plant(int n, const char *ws)
{
	const char *tmp = getenv("TMPDIR");
	char p[4096], q[4096];
	struct stat st;
	double end;

	if (!tmp)
		return 2;
	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/p%04d", tmp, i);
		if (mkdir(p, 0700) < 0)
			return 3;
		snprintf(p, sizeof(p), "%s/p%04d/d", tmp, i);
		if (mkdir(p, 0700) < 0)
			return 3;
		snprintf(p, sizeof(p), "%s/p%04d/d/victim", tmp, i);
		if (write_file(p, "ours") < 0)
			return 3;
	}
	snprintf(p, sizeof(p), "%s/where.new", ws);
	snprintf(q, sizeof(q), "%s/where", ws);
	if (write_file(p, tmp) < 0 || rename(p, q) < 0)
		return 4;
	snprintf(p, sizeof(p), "%s/go", ws);
	for (end = now() + 20; now() < end; usleep(1000))
		if (stat(p, &st) == 0)
			return 0;
	return 5;
}

/* The pNNNN of @dir in the order readdir gives them.  Return: how
 * many, or -errno. */
static int listed(const char *dir, int *order, int cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)) && n < cap)
		if (e->d_name[0] == 'p')
			order[n++] = atoi(e->d_name + 1); /* banned-ok */
	closedir(d);
	return n;
}

static bool gone(const char *dir, int i)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof(p), "%s/p%04d/d/victim", dir, i);
	return lstat(p, &st) < 0 && errno == ENOENT;
}

static int swap(const char *dir, const char *stash, const char *target, int n,
		const char *go)
{
	static int order[MAX_N];
	char a[4096], b[4096];
	unsigned long swaps = 0;
	double end = now() + 30;
	int k;

	if (mkdir(stash, 0700) < 0 && errno != EEXIST)
		return 2;
	for (int i = 0; i < n; i++) {
		snprintf(b, sizeof(b), "%s/l%04d", stash, i);
		if (symlink(target, b) < 0)
			return 2;
	}
	k = listed(dir, order, MAX_N);
	if (k < 0) {
		printf("unreachable: %s\n", strerror(-k));
		write_file(go, "go");
		return 0;
	}
	if (write_file(go, "go") < 0)
		return 3;
	for (int j = 0; j < k && now() < end; j++) {
		int i = order[j], next = j + 1 < k ? order[j + 1] : -1;

		snprintf(a, sizeof(a), "%s/p%04d/d", dir, i);
		snprintf(b, sizeof(b), "%s/l%04d", stash, i);
		for (unsigned long t = 0;; t++) {
			if (syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b,
				    RENAME_EXCHANGE) == 0) {
				swaps++;
			} else if (errno == ENOENT) {
				break;
			} else {
				printf("unreachable: %s\n", strerror(errno));
				return 0;
			}
			if ((t & 63) == 0 &&
			    ((next >= 0 && gone(dir, next)) || now() >= end))
				break;
		}
	}
	printf("swaps %lu\n", swaps);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "plant") == 0)
		return plant(atoi(argv[2]), argv[3]); /* banned-ok */
	if (argc == 7 && strcmp(argv[1], "swap") == 0)
		return swap(argv[2], argv[3], argv[4],
			    atoi(argv[5]), /* banned-ok */
			    argv[6]);
	if (argc == 3 && strcmp(argv[1], "nftwrm") == 0)
		return nftw(argv[2], rm_one, 16,
			    FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0;
	fprintf(stderr, "usage: tmprace plant N WS | swap DIR STASH TARGET "
			"N GO | nftwrm DIR\n");
	return 2;
}
