/*
 * fuzz_path.c - libFuzzer target for path_normalize() and path_resolve().
 *
 * The input, NUL-terminated, is normalised (as given and with a "/" in
 * front) and resolved from a small fixture tree created once under /tmp,
 * which is also the cwd: the tree of tests/unit/test_path.c, plus "deep"
 * (results near PATH_BUF), "longlink" (a 3004-byte target) and, kept
 * open, a deleted file at fd 100 and a pipe at fd 101.  The seeds in
 * corpus/fuzz_path name them.  Invariants, abort() on violation:
 *
 *  - path_normalize: the result is absolute, has no "//", "." or ".."
 *    component, no trailing slash unless it is "/", and normalising it
 *    again changes nothing; in place gives the same.
 *  - path_resolve: the result is absolute and normalised; AT_FDCWD and a
 *    dirfd on the same directory agree; when realpath(3) succeeds the
 *    results are equal; when the kernel finds the path (stat, or lstat
 *    for PATH_NOFOLLOW) the result names the same inode, and an ELOOP or
 *    ENOTDIR is also the kernel's answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/core/path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fixture[64];
static int fixture_fd = -1;

static void fail(const char *what, const char *in, const char *out)
{
	fprintf(stderr, "fuzz_path: %s\n  in:  \"%s\"\n  out: \"%s\"\n", what,
		in, out ? out : "");
	abort();
}

static int rm_one(const char *p, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(p) : unlink(p);
}

static void cleanup(void)
{
	nftw(fixture, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void make(const char *name)
{
	if (mkdirat(fixture_fd, name, 0755))
		abort();
}

static void touch(const char *name)
{
	int fd = openat(fixture_fd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		abort();
	close(fd);
}

static void link_to(const char *target, const char *name)
{
	if (symlinkat(target, fixture_fd, name))
		abort();
}

/*
 * T/deep -> d1/d2/.../d14, each di a short link to a 250-byte directory
 * name: a few bytes of input reach results near PATH_BUF.
 */
static void make_deep(void)
{
	char name[256], rel[PATH_BUF], link[PATH_BUF], target[64] = "";
	size_t n = 0;

	memset(name, 'A', 250);
	name[250] = '\0';
	for (int i = 1; i <= 14; i++, n += 251) {
		name[0] = (char)('A' + i);
		snprintf(rel + n, sizeof(rel) - n, "%s", name);
		make(rel);
		snprintf(link, sizeof(link), "%.*sd%d", (int)n, rel, i);
		link_to(name, link);
		rel[n + 250] = '/';
		snprintf(target + strlen(target),
			 sizeof(target) - strlen(target), "%sd%d",
			 i > 1 ? "/" : "", i);
	}
	link_to(target, "deep");
}

/* "././.../proj", 3004 bytes: its target and a long rest do not fit. */
static const char *longlink_target(void)
{
	static char target[3100];

	for (int i = 0; i < 1500; i++)
		memcpy(target + 2 * i, "./", 2);
	memcpy(target + 3000, "proj", 5);
	return target;
}

/*
 * Left open on purpose at fixed numbers, for the seeds: fd 100 a deleted
 * file, fd 101 a pipe, as /proc/self/fd/100 and /proc/self/fd/101.
 */
static void open_pathless(void)
{
	int fds[2], fd;

	if (pipe(fds) || dup2(fds[0], 101) < 0)
		abort();
	close(fds[0]);
	close(fds[1]);
	touch("gone");
	fd = openat(fixture_fd, "gone", O_RDONLY);
	if (fd < 0 || dup2(fd, 100) < 0 || unlinkat(fixture_fd, "gone", 0))
		abort();
	close(fd);
}

/* The tree of tests/unit/test_path.c, smaller. */
static void setup(void)
{
	char tmpl[] = "/tmp/cordon-fuzz-XXXXXX", *t, abs[128];

	if (!mkdtemp(tmpl) || !(t = realpath(tmpl, NULL)))
		abort();
	snprintf(fixture, sizeof(fixture), "%s", t);
	free(t);
	fixture_fd = open(fixture, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fixture_fd < 0 || chdir(fixture))
		abort();
	atexit(cleanup);
	make("proj");
	make("secret");
	make("secret/sub");
	touch("proj/file");
	touch("secret/key");
	touch("secret/sub/inner");
	link_to("../secret/sub", "proj/link");
	snprintf(abs, sizeof(abs), "%s/secret", fixture);
	link_to(abs, "proj/abs");
	link_to("file", "proj/filelink");
	link_to("..", "proj/up");
	link_to("/proc/self/cwd", "proj/cwdlink");
	link_to("nowhere", "dangling");
	link_to("loop2", "loop1");
	link_to("loop1", "loop2");
	link_to("a:b", "colon");
	make_deep();
	link_to(longlink_target(), "longlink");
	open_pathless();
}

static bool has_bad_component(const char *p)
{
	return strstr(p, "//") || strstr(p, "/./") || strstr(p, "/../");
}

static bool ends_with(const char *p, const char *end)
{
	size_t n = strlen(p), m = strlen(end);

	return n >= m && !strcmp(p + n - m, end);
}

static void check_normalized(const char *in, const char *out)
{
	char again[PATH_BUF];

	if (out[0] != '/')
		fail("normalize: not absolute", in, out);
	if (has_bad_component(out) || ends_with(out, "/.") ||
	    ends_with(out, "/.."))
		fail("normalize: \"//\", \".\" or \"..\" left", in, out);
	if (strcmp(out, "/") && ends_with(out, "/"))
		fail("normalize: trailing slash", in, out);
	if (path_normalize(out, again) || strcmp(out, again))
		fail("normalize: not idempotent", in, out);
}

static void fuzz_normalize(const char *in)
{
	char out[PATH_BUF], same[PATH_BUF];
	int ret = path_normalize(in, out);

	if (in[0] != '/' && ret != -EINVAL)
		fail("normalize: relative path accepted", in, out);
	if (strlen(in) >= PATH_BUF && ret != -ENAMETOOLONG)
		fail("normalize: too long accepted", in, out);
	if (ret)
		return;
	check_normalized(in, out);
	snprintf(same, sizeof(same), "%s", in);
	if (path_normalize(same, same) || strcmp(same, out))
		fail("normalize: in place differs", in, same);
}

static void same_inode(const char *in, const char *out, bool nofollow)
{
	struct stat a, b;
	int (*st)(const char *, struct stat *) = nofollow ? lstat : stat;
	int ra = st(in, &a);

	if (ra && (errno == ELOOP || errno == ENOTDIR))
		fail("resolve: succeeds where the kernel fails", in, out);
	if (ra)
		return;
	if (st(out, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		fail("resolve: another inode than the kernel's", in, out);
}

/* Our failure where the kernel finds the path must be a known case. */
static void kernel_agrees_on_error(const char *in, int ret, bool nofollow)
{
	struct stat st;
	int ra = nofollow ? lstat(in, &st) : stat(in, &st);
	int err = ra ? errno : 0;

	if ((ret == -ELOOP || ret == -ENOTDIR) && err != -ret)
		fail("resolve: ELOOP/ENOTDIR the kernel does not give", in,
		     strerror(err));
	/* /proc magic links to pipes and sockets: no path, on purpose */
	if (!ra && ret != -ENOENT && ret != -ENAMETOOLONG)
		fail("resolve: fails where the kernel succeeds", in,
		     strerror(-ret));
}

static void fuzz_resolve(const char *in, int flags)
{
	char out[PATH_BUF], at[PATH_BUF], norm[PATH_BUF], rp[PATH_MAX];
	bool nofollow = flags & PATH_NOFOLLOW;
	int ret = path_resolve(AT_FDCWD, in, flags, out);

	if (path_resolve(fixture_fd, in, flags, at) != ret || strcmp(at, out))
		fail("resolve: dirfd and cwd differ", in, at);
	if (ret) {
		kernel_agrees_on_error(in, ret, nofollow);
		return;
	}
	if (out[0] != '/' || path_normalize(out, norm) || strcmp(out, norm))
		fail("resolve: result not absolute and normal", in, out);
	same_inode(in, out, nofollow);
	if (!nofollow && realpath(in, rp) && strcmp(rp, out))
		fail("resolve: realpath differs", in, rp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in;

	if (fixture_fd < 0)
		setup();
	in = malloc(size + 2);
	if (!in)
		return 0;
	in[0] = '/';
	memcpy(in + 1, data, size);
	in[size + 1] = '\0';
	fuzz_normalize(in);
	fuzz_normalize(in + 1);
	fuzz_resolve(in + 1, 0);
	fuzz_resolve(in + 1, PATH_NOFOLLOW);
	free(in);
	return 0;
}
