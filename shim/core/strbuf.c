/*
 * strbuf.c - bounded appends (see strbuf.h).  jansson would allocate,
 * and this runs where allocation is forbidden, hence the small JSON
 * string escaper here.
 */
#include <string.h>

#include "shim/core/strbuf.h"

void sb_put(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->cap == 0)
		return;
	if (sb->full || n >= sb->cap - sb->len) {
		sb->full = true;
		return;
	}
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_puts(struct strbuf *sb, const char *s)
{
	sb_put(sb, s, strlen(s));
}

void sb_uint(struct strbuf *sb, unsigned long v)
{
	char d[24];
	size_t i = sizeof(d);

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sb_put(sb, d + i, sizeof(d) - i);
}

/* Length of the valid UTF-8 sequence at @s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4	 ? 4
		   : s[0] >= 0xe0		 ? 3
		   : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
						 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void sb_json(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = *p < 0x80 ? 1 : utf8_len(p);
		char e[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };

		if (*p == '"' || *p == '\\') {
			sb_put(sb, "\\", 1);
			sb_put(sb, (const char *)p, 1);
		} else if (*p < 0x20 || *p == 0x7f || n == 0) {
			sb_put(sb, e, sizeof(e));
			n = 1;
		} else {
			sb_put(sb, (const char *)p, n);
		}
		p += n;
	}
}
