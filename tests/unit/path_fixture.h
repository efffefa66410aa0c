/*
 * path_fixture.h - the tree the path_resolve() tests run in (see
 * test_path.c's opening comment), made fresh for each test under a
 * mkdtemp directory T, with the process's cwd at T.  Included by
 * test_path.c and test_path_diff.c only.
 */
#ifndef CORDON_TEST_PATH_FIXTURE_H
#define CORDON_TEST_PATH_FIXTURE_H

#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/core/path.h"
#include "tmptree.h"

#define CHAIN_LEN     41
#define LONGLINK_DOTS 1500 /* "./" pairs in longlink's target */

static char T[256]; /* short, so that T/<name> always fits */
static int tfd = -1;

static inline void must(int ret, const char *what)
{
	cr_assert(ret == 0, "fixture: %s: %s", what, strerror(errno));
}

static inline void mk_file(const char *rel)
{
	int fd =
		openat(tfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	cr_assert(fd >= 0, "fixture: %s: %s", rel, strerror(errno));
	close(fd);
}

static inline void mk_link(const char *target, const char *rel)
{
	must(symlinkat(target, tfd, rel), rel);
}

static inline void mk_chain(void)
{
	char name[32], target[32];

	must(mkdirat(tfd, "chain", 0755), "chain");
	for (int i = 0; i < CHAIN_LEN; i++) {
		snprintf(name, sizeof(name), "chain/c%d", i);
		if (i == CHAIN_LEN - 1)
			snprintf(target, sizeof(target), "../proj/file");
		else
			snprintf(target, sizeof(target), "c%d", i + 1);
		mk_link(target, name);
	}
}

static inline void mk_longlink(void)
{
	static char target[2 * LONGLINK_DOTS + 8];
	size_t n = 0;

	for (int i = 0; i < LONGLINK_DOTS; i++) {
		target[n++] = '.';
		target[n++] = '/';
	}
	memcpy(target + n, "proj", 5);
	mk_link(target, "longlink");
}

static inline void setup(void)
{
	char tmpl[] = "/tmp/cordon-path-XXXXXX";
	char abs[PATH_BUF], *t;

	cr_assert(mkdtemp(tmpl), "mkdtemp: %s", strerror(errno));
	t = realpath(tmpl, NULL);
	cr_assert(t && strlen(t) < sizeof(T), "realpath: %s", strerror(errno));
	memcpy(T, t, strlen(t) + 1);
	free(t);
	tfd = open(T, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(tfd >= 0);
	must(chdir(T), "chdir");
	must(mkdirat(tfd, "proj", 0755), "proj");
	must(mkdirat(tfd, "secret", 0755), "secret");
	must(mkdirat(tfd, "secret/sub", 0755), "secret/sub");
	must(mkdirat(tfd, "noperm", 0755), "noperm");
	mk_file("proj/file");
	mk_file("secret/key");
	mk_file("secret/sub/inner");
	mk_file("noperm/inner");
	must(fchmodat(tfd, "noperm", 0, 0), "chmod noperm");
	mk_link("../secret/sub", "proj/link");
	snprintf(abs, sizeof(abs), "%s/secret", T);
	mk_link(abs, "proj/abs");
	mk_link("file", "proj/filelink");
	mk_link("..", "proj/up");
	mk_link("/proc/self/cwd", "proj/cwdlink");
	mk_link("nowhere", "dangling");
	mk_link("loop2", "loop1");
	mk_link("loop1", "loop2");
	mk_link("self", "self");
	mk_link("a:b", "colon");
	mk_chain();
	mk_longlink();
}

static inline void teardown(void)
{
	char p[PATH_BUF];

	if (!T[0])
		return;
	snprintf(p, sizeof(p), "%s/noperm", T);
	chmod(p, 0755);
	tmptree_remove(T);
	close(tfd);
}

#endif
