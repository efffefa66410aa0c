/*
 * test_path_lexical.c - what needs no file system: path_normalize()
 * (lexical) and path_search_next() (the one PATH walk).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "shim/core/path.h"

static void norm_ok(const char *in, const char *want)
{
	char out[PATH_BUF], same[PATH_BUF];
	int ret = path_normalize(in, out);

	cr_assert_eq(ret, 0, "path_normalize(\"%s\") = %d", in, ret);
	cr_assert_str_eq(out, want, "path_normalize(\"%s\")", in);
	snprintf(same, sizeof(same), "%s", in);
	cr_assert_eq(path_normalize(same, same), 0);
	cr_assert_str_eq(same, want, "in place: \"%s\"", in);
}

Test(normalize, lexical)
{
	norm_ok("/", "/");
	norm_ok("//", "/");
	norm_ok("/.", "/");
	norm_ok("/..", "/");
	norm_ok("/a/b/", "/a/b");
	norm_ok("/a/./b", "/a/b");
	norm_ok("/a/../b", "/b");
	norm_ok("/../../a", "/a");
	norm_ok("/a/b/../../..", "/");
	norm_ok("/a//b///c", "/a/b/c");
	norm_ok("/.../a/.b/..c/b.", "/.../a/.b/..c/b.");
	norm_ok("/a/b/c/../../d/./e/..", "/a/d");
	/* Lexical: a symlink is not looked at. */
	norm_ok("/proc/self/cwd/..", "/proc/self");
	/* Normal already (one scan, copied as is), and its near misses. */
	norm_ok("/a/b/c", "/a/b/c");
	norm_ok("/.a/..b/c.d/...", "/.a/..b/c.d/...");
	norm_ok("/a/b/.", "/a/b");
	norm_ok("/a/b/..", "/a");
	norm_ok("/a./", "/a.");
	norm_ok("/a/./", "/a");
	norm_ok("/a/..//b", "/b");
}

Test(normalize, errors)
{
	char p[PATH_BUF + 1], out[PATH_BUF];

	cr_assert_eq(path_normalize("a/b", out), -EINVAL);
	cr_assert_eq(path_normalize("", out), -EINVAL);
	cr_assert_eq(path_normalize(NULL, out), -EFAULT);
	memset(p, 'a', PATH_BUF);
	p[0] = '/';
	p[PATH_BUF] = '\0';
	cr_assert_eq(path_normalize(p, out), -ENAMETOOLONG);
	p[PATH_BUF - 1] = '\0';
	cr_assert_eq(path_normalize(p, out), 0);
	cr_assert_str_eq(out, p);
}

Test(path_search, every_entry_in_order_and_the_cwd_for_an_empty_one)
{
	const char *cur = "/usr/bin::/bin:";
	char out[PATH_BUF];

	cr_assert(path_search_next(&cur, "sh", out));
	cr_assert_str_eq(out, "/usr/bin/sh");
	cr_assert(path_search_next(&cur, "sh", out));
	cr_assert_str_eq(out, "./sh");
	cr_assert(path_search_next(&cur, "sh", out));
	cr_assert_str_eq(out, "/bin/sh");
	cr_assert(path_search_next(&cur, "sh", out),
		  "a trailing ':' is the cwd");
	cr_assert_str_eq(out, "./sh");
	cr_assert_not(path_search_next(&cur, "sh", out));
	cr_assert_null(cur);
}

Test(path_search, a_candidate_too_long_is_skipped)
{
	static char list[PATH_BUF + 16];
	const char *cur = list;
	char out[PATH_BUF];

	memset(list, 'a', PATH_BUF);
	list[0] = '/';
	memcpy(list + PATH_BUF, ":/bin", 6);
	cr_assert(path_search_next(&cur, "sh", out));
	cr_assert_str_eq(out, "/bin/sh");
	cr_assert_not(path_search_next(&cur, "sh", out));
}
