/*
 * gitindex.c - read the gitlinks out of a git index file, the list of
 * nested repositories that `git status` and `git diff` enter (they run
 * git again in each one, which reads that repository's config).
 *
 * The format is git's Documentation/gitformat-index.txt: a 12-byte
 * header ("DIRC", version, entry count), then the entries: ten 32-bit
 * fields (ctime, mtime, dev, ino, mode, uid, gid, size; mode is the
 * fifth), the object name, 16-bit flags (bit 14: extended, version 3 and
 * up, then 16 more bits of flags), the path.  Versions 2 and 3 end the
 * path with 1 to 8 NULs, padding the entry to a multiple of 8 bytes;
 * version 4 writes the path as a varint count of bytes to drop from the
 * end of the previous path, then the rest, NUL-terminated.  Extensions
 * and the trailing checksum after the entries are not read.
 *
 * The file comes from inside the sandbox: nothing here trusts a length.
 */
#include <string.h>

#include "enforce/policy/gitindex.h"

#define FIXED	   40 /* the ten 32-bit fields */
#define GITLINK	   0160000
#define TYPE_MASK  0170000
#define F_EXTENDED 0x4000

static unsigned long be32(const unsigned char *p)
{
	return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 |
	       (unsigned long)p[2] << 8 | p[3];
}

/* git's offset varint (varint.c); 0 and no advance on overflow or end. */
static size_t varint(const unsigned char **p, const unsigned char *end, int *ok)
{
	const unsigned char *s = *p;
	size_t val;
	unsigned char c;

	*ok = 0;
	if (s >= end)
		return 0;
	c = *s++;
	val = c & 127;
	while (c & 128) {
		val += 1;
		if (val > ((size_t)-1 >> 8) || s >= end)
			return 0;
		c = *s++;
		val = (val << 7) + (c & 127);
	}
	*p = s;
	*ok = 1;
	return val;
}

int gitindex_gitlinks(const unsigned char *buf, size_t len, size_t hashlen,
		      void (*fn)(const char *path, void *arg), void *arg)
{
	const unsigned char *p = buf + 12, *end = buf + len;
	char name[GITINDEX_NAME_MAX + 1] = "";
	unsigned long version, count;
	size_t prev = 0;
	int links = 0;

	if (len < 12 || memcmp(buf, "DIRC", 4) != 0)
		return -1;
	version = be32(buf + 4);
	count = be32(buf + 8);
	if (version < 2 || version > 4)
		return -1;
	for (unsigned long i = 0; i < count; i++) {
		const unsigned char *entry = p, *nul;
		size_t fixed = FIXED + hashlen + 2, n;
		unsigned long mode;
		unsigned int flags;

		if ((size_t)(end - p) < fixed)
			return -1;
		mode = be32(p + 24);
		flags = (unsigned int)(p[FIXED + hashlen] << 8 |
				       p[FIXED + hashlen + 1]);
		if ((flags & F_EXTENDED) && version >= 3)
			fixed += 2;
		if ((size_t)(end - p) < fixed)
			return -1;
		p += fixed;
		if (version == 4) {
			int ok;
			size_t drop = varint(&p, end, &ok);

			if (!ok || drop > prev)
				return -1;
			prev -= drop;
		} else {
			prev = 0;
		}
		nul = memchr(p, '\0', (size_t)(end - p));
		if (!nul)
			return -1;
		n = (size_t)(nul - p);
		if (prev + n > GITINDEX_NAME_MAX)
			return -1;
		memcpy(name + prev, p, n);
		prev += n;
		name[prev] = '\0';
		if (version == 4) {
			p = nul + 1;
		} else {
			/* entry padded to 8 bytes, the name NUL-ended */
			size_t total = (size_t)(nul - entry + 8) & ~(size_t)7;

			if ((size_t)(end - entry) < total)
				return -1;
			p = entry + total;
		}
		if ((mode & TYPE_MASK) == GITLINK) {
			fn(name, arg);
			links++;
		}
	}
	return links;
}
