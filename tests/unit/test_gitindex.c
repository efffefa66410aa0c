/*
 * test_gitindex.c - the gitlinks read out of git index files built
 * here byte by byte (versions 2, 3 and 4), and refusals of broken ones.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "enforce/policy/gitindex.h"

#define HASH 20

struct idx {
	unsigned char b[4096];
	size_t n;
	char prev[256];
};

static void be32(struct idx *x, unsigned long v)
{
	x->b[x->n++] = (unsigned char)(v >> 24);
	x->b[x->n++] = (unsigned char)(v >> 16);
	x->b[x->n++] = (unsigned char)(v >> 8);
	x->b[x->n++] = (unsigned char)v;
}

static void header(struct idx *x, unsigned long version, unsigned long n)
{
	memset(x, 0, sizeof(*x));
	memcpy(x->b, "DIRC", 4);
	x->n = 4;
	be32(x, version);
	be32(x, n);
}

/* One entry of @mode named @name; version 4 compresses against the
 * previous name; @ext sets the extended flag (version 3). */
static void entry(struct idx *x, unsigned long version, unsigned long mode,
		  const char *name, bool ext)
{
	size_t start = x->n, len = strlen(name);

	/* ctime, mtime (16 bytes), dev, ino (8): the mode at byte 24 */
	x->n += 24;
	be32(x, mode);
	x->n = start + 40 + HASH; /* uid, gid, size, the name: zeroes */
	x->b[x->n++] = (unsigned char)((ext ? 0x40 : 0) | (len >> 8 & 0xf));
	x->b[x->n++] = (unsigned char)len;
	if (ext)
		x->n += 2;
	if (version == 4) {
		size_t common = 0, drop;

		while (x->prev[common] && x->prev[common] == name[common])
			common++;
		drop = strlen(x->prev) - common;
		x->b[x->n++] = (unsigned char)drop; /* < 128: one byte */
		memcpy(x->b + x->n, name + common, len - common + 1);
		x->n += len - common + 1;
		snprintf(x->prev, sizeof(x->prev), "%s", name);
		return;
	}
	memcpy(x->b + x->n, name, len);
	x->n += len;
	x->n = start + ((x->n - start + 8) & ~(size_t)7);
}

static char found[8][256];
static int nfound;

static void collect(const char *path, void *arg)
{
	(void)arg;
	if (nfound < 8)
		snprintf(found[nfound++], sizeof(found[0]), "%s", path);
}

static int links(struct idx *x)
{
	nfound = 0;
	return gitindex_gitlinks(x->b, x->n, HASH, collect, NULL);
}

Test(gitindex, version_2_reports_gitlinks_only)
{
	struct idx x;

	header(&x, 2, 3);
	entry(&x, 2, 0100644, "a/file", false);
	entry(&x, 2, 0160000, "sub", false);
	entry(&x, 2, 0120000, "link", false);
	cr_assert_eq(links(&x), 1);
	cr_assert_str_eq(found[0], "sub");
}

Test(gitindex, version_3_extended_flags)
{
	struct idx x;

	header(&x, 3, 2);
	entry(&x, 3, 0160000, "deep/er/mod", true);
	entry(&x, 3, 0160000, "z", false);
	cr_assert_eq(links(&x), 2);
	cr_assert_str_eq(found[0], "deep/er/mod");
	cr_assert_str_eq(found[1], "z");
}

Test(gitindex, version_4_prefix_compression)
{
	struct idx x;

	header(&x, 4, 3);
	entry(&x, 4, 0100644, "vendor/lib/a.c", false);
	entry(&x, 4, 0160000, "vendor/lib/mod", false);
	entry(&x, 4, 0160000, "vendor/other", false);
	cr_assert_eq(links(&x), 2);
	cr_assert_str_eq(found[0], "vendor/lib/mod");
	cr_assert_str_eq(found[1], "vendor/other");
}

Test(gitindex, refuses_what_is_no_index)
{
	struct idx x;

	header(&x, 2, 0);
	memcpy(x.b, "DIRX", 4);
	cr_assert_eq(links(&x), -1);
	header(&x, 5, 0);
	cr_assert_eq(links(&x), -1);
	cr_assert_eq(gitindex_gitlinks(x.b, 8, HASH, collect, NULL), -1);
}

Test(gitindex, an_entry_past_the_end_stops_the_walk)
{
	struct idx x;

	header(&x, 2, 3); /* says three, holds two */
	entry(&x, 2, 0160000, "first", false);
	entry(&x, 2, 0100644, "f", false);
	cr_assert_eq(links(&x), -1);
	cr_assert_eq(nfound, 1, "found before the end still counts");
	header(&x, 2, 1);
	entry(&x, 2, 0160000, "cut", false);
	x.n -= 5; /* the name's NUL and padding gone */
	cr_assert_eq(links(&x), -1);
}

Test(gitindex, version_4_cannot_drop_more_than_it_has)
{
	struct idx x;

	header(&x, 4, 1);
	entry(&x, 4, 0160000, "m", false);
	x.b[12 + 40 + HASH + 2] = 9; /* drop 9 bytes of "" */
	cr_assert_eq(links(&x), -1);
	cr_assert_eq(nfound, 0);
}

Test(gitindex, a_name_longer_than_the_limit_is_refused)
{
	static unsigned char big[16384];
	size_t n = 12 + 40 + HASH + 2;

	memcpy(big, "DIRC\0\0\0\2\0\0\0\1", 12);
	big[12 + 24] = 0; /* mode 0160000, big-endian at byte 24 */
	big[12 + 25] = 0;
	big[12 + 26] = 0xe0;
	memset(big + n, 'a', GITINDEX_NAME_MAX + 10);
	n += GITINDEX_NAME_MAX + 10;
	big[n++] = '\0';
	n = (n + 7) & ~(size_t)7;
	nfound = 0;
	cr_assert_eq(gitindex_gitlinks(big, n, HASH, collect, NULL), -1);
	cr_assert_eq(nfound, 0);
}
