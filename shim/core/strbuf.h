/*
 * strbuf.h - append to a fixed buffer, for messages and snapshots.
 *
 * No allocation, no stdio, no errno: usable in the shim's hooks and in
 * vfork children.  A buffer that fills up stays NUL-terminated and
 * remembers it overflowed.
 */
#ifndef CORDON_STRBUF_H
#define CORDON_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t cap, len;
	bool full;
};

#define STRBUF(b, n) ((struct strbuf){ .buf = (b), .cap = (n) })

void sb_put(struct strbuf *sb, const char *s, size_t n);
void sb_puts(struct strbuf *sb, const char *s);
void sb_uint(struct strbuf *sb, unsigned long v);
/* @s as the inside of a JSON string: quotes, backslashes and control
 * bytes escaped; bytes that are not UTF-8 escaped as \u00XX. */
void sb_json(struct strbuf *sb, const char *s);

#endif
