/*
 * shimdrive_walk.c - call one directory walker by its exact public name
 * and print what it found.
 *
 *   shimdrive_walk [-e] [-p] NAME PATH
 *
 * NAME is scandir, scandir64, scandirat, scandirat64 (PATH relative to
 * a dirfd on its parent), glob, glob64, glob-old, glob64-old (PATH is
 * the pattern; -e adds GLOB_ERR; errfunc calls are printed), nftw,
 * nftw64, nftw-old, nftw64-old, ftw, ftw64 (-p adds FTW_PHYS), fts_open
 * or fts64_open (-p: FTS_PHYSICAL, else FTS_LOGICAL).
 *
 * One line per entry in the walker's order, then "NAME ret=R errno=E"
 * (errno is set to 1234 before the call, so E shows what it left).
 * Exit status 0 when the walker succeeded, 1 when it failed, 2 on usage.
 */
#undef _FORTIFY_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The versions a program linked against an older glibc calls. */
int glob_old(const char *, int, int (*)(const char *, int), glob_t *);
int glob64_old(const char *, int, int (*)(const char *, int), glob64_t *);
int nftw_old(const char *, __nftw_func_t, int, int);
int nftw64_old(const char *, __nftw64_func_t, int, int);
__asm__(".symver glob_old,glob@GLIBC_2.2.5");
__asm__(".symver glob64_old,glob64@GLIBC_2.2.5");
__asm__(".symver nftw_old,nftw@GLIBC_2.2.5");
__asm__(".symver nftw64_old,nftw64@GLIBC_2.2.5");

static const char *ename(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "?";
}

static const char *ftw_flag(int f)
{
	switch (f) {
	case FTW_F:
		return "F";
	case FTW_D:
		return "D";
	case FTW_DNR:
		return "DNR";
	case FTW_NS:
		return "NS";
	case FTW_SL:
		return "SL";
	case FTW_DP:
		return "DP";
	case FTW_SLN:
		return "SLN";
	}
	return "?";
}

static int on_nftw(const char *p, const struct stat *st, int f, struct FTW *ftw)
{
	(void)st;
	printf("%s %s level=%d base=%d\n", p, ftw_flag(f), ftw->level,
	       ftw->base);
	return 0;
}

static int on_nftw64(const char *p, const struct stat64 *st, int f,
		     struct FTW *ftw)
{
	(void)st;
	printf("%s %s level=%d base=%d\n", p, ftw_flag(f), ftw->level,
	       ftw->base);
	return 0;
}

static int on_ftw(const char *p, const struct stat *st, int f)
{
	(void)st;
	printf("%s %s\n", p, ftw_flag(f));
	return 0;
}

static int on_ftw64(const char *p, const struct stat64 *st, int f)
{
	(void)st;
	printf("%s %s\n", p, ftw_flag(f));
	return 0;
}

static int on_glob_error(const char *p, int e)
{
	printf("errfunc %s %s\n", p, ename(e));
	return 0;
}

static int by_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

static int by_name64(const FTSENT64 **a, const FTSENT64 **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

static int do_scandir(const char *name, const char *path)
{
	struct dirent **l = NULL;
	struct dirent64 **l64 = NULL;
	char *copy = strdup(path), *copy2 = strdup(path);
	int dirfd = -1, n;

	if (strncmp(name, "scandirat", 9) == 0) {
		/* a raw system call, as if the dirfd were inherited */
		dirfd = (int)syscall(SYS_openat, AT_FDCWD, dirname(copy),
				     O_PATH | O_DIRECTORY);
		path = basename(copy2);
	}
	errno = 1234;
	if (strcmp(name, "scandir") == 0)
		n = scandir(path, &l, NULL, alphasort);
	else if (strcmp(name, "scandir64") == 0)
		n = scandir64(path, &l64, NULL, alphasort64);
	else if (strcmp(name, "scandirat") == 0)
		n = scandirat(dirfd, path, &l, NULL, alphasort);
	else
		n = scandirat64(dirfd, path, &l64, NULL, alphasort64);
	int e = errno;
	for (int i = 0; i < n; i++)
		printf("%s\n", l ? l[i]->d_name : l64[i]->d_name);
	printf("%s ret=%d errno=%s\n", name, n, e == 1234 ? "1234" : ename(e));
	return n < 0;
}

static int do_glob(const char *name, const char *pat, int flags)
{
	glob_t g = { 0 };
	glob64_t g64 = { 0 };
	char **v;
	size_t c;
	int r;

	errno = 1234;
	if (strcmp(name, "glob") == 0)
		r = glob(pat, flags, on_glob_error, &g);
	else if (strcmp(name, "glob-old") == 0)
		r = glob_old(pat, flags, on_glob_error, &g);
	else if (strcmp(name, "glob64") == 0)
		r = glob64(pat, flags, on_glob_error, &g64);
	else
		r = glob64_old(pat, flags, on_glob_error, &g64);
	int e = errno;
	v = strstr(name, "64") ? g64.gl_pathv : g.gl_pathv;
	c = strstr(name, "64") ? g64.gl_pathc : g.gl_pathc;
	for (size_t i = 0; i < c; i++)
		printf("%s\n", v[i]);
	printf("%s ret=%d flags=%#x errno=%s\n", name, r,
	       strstr(name, "64") ? g64.gl_flags : g.gl_flags,
	       e == 1234 ? "1234" : ename(e));
	return r != 0;
}

static int do_ftw(const char *name, const char *path, int flags)
{
	int r;

	errno = 1234;
	if (strcmp(name, "nftw") == 0)
		r = nftw(path, on_nftw, 8, flags);
	else if (strcmp(name, "nftw-old") == 0)
		r = nftw_old(path, on_nftw, 8, flags);
	else if (strcmp(name, "nftw64") == 0)
		r = nftw64(path, on_nftw64, 8, flags);
	else if (strcmp(name, "nftw64-old") == 0)
		r = nftw64_old(path, on_nftw64, 8, flags);
	else if (strcmp(name, "ftw") == 0)
		r = ftw(path, on_ftw, 8);
	else
		r = ftw64(path, on_ftw64, 8);
	int e = errno;
	printf("%s ret=%d errno=%s\n", name, r, e == 1234 ? "1234" : ename(e));
	return r != 0;
}

static int do_fts(const char *name, const char *path, int phys)
{
	char *argv[] = { (char *)path, NULL };
	int opts = phys ? FTS_PHYSICAL : FTS_LOGICAL;
	int e;

	errno = 1234;
	if (strcmp(name, "fts_open") == 0) {
		FTS *f = fts_open(argv, opts, by_name);
		FTSENT *ent;

		e = errno;
		if (!f) {
			printf("%s ret=NULL errno=%s\n", name, ename(e));
			return 1;
		}
		while ((ent = fts_read(f)))
			printf("%s %d %s\n", ent->fts_path, ent->fts_info,
			       ent->fts_errno ? ename(ent->fts_errno) : "-");
		fts_close(f);
	} else {
		FTS64 *f = fts64_open(argv, opts, by_name64);
		FTSENT64 *ent;

		e = errno;
		if (!f) {
			printf("%s ret=NULL errno=%s\n", name, ename(e));
			return 1;
		}
		while ((ent = fts64_read(f)))
			printf("%s %d %s\n", ent->fts_path, ent->fts_info,
			       ent->fts_errno ? ename(ent->fts_errno) : "-");
		fts64_close(f);
	}
	printf("%s ret=ok errno=%s\n", name, e == 1234 ? "1234" : ename(e));
	return 0;
}

int main(int argc, char **argv)
{
	int globflags = 0, phys = 0, c;
	const char *name, *path;

	while ((c = getopt(argc, argv, "ep")) != -1) {
		if (c == 'e')
			globflags |= GLOB_ERR;
		else if (c == 'p')
			phys = 1;
		else
			return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: shimdrive_walk [-e] [-p] NAME PATH\n");
		return 2;
	}
	name = argv[optind];
	path = argv[optind + 1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strncmp(name, "scandir", 7) == 0)
		return do_scandir(name, path);
	if (strncmp(name, "glob", 4) == 0)
		return do_glob(name, path, globflags);
	if (strstr(name, "ftw"))
		return do_ftw(name, path, phys ? FTW_PHYS : 0);
	if (strstr(name, "fts"))
		return do_fts(name, path, phys);
	fprintf(stderr, "shimdrive_walk: unknown name %s\n", name);
	return 2;
}
