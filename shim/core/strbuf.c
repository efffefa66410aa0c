/*
 * strbuf.c - bounded appends (see strbuf.h).  jansson would allocate,
 * and this runs where allocation is forbidden, hence the small escapers
 * here: for JSON (the audit record) and for a terminal (the denial
 * line), which may shorten a text in its middle to fit.
 */
#include <stdint.h>
#include <string.h>

#include "shim/core/strbuf.h"

/* The longest escape of one character: "\u2028", or 4 bytes of UTF-8. */
#define UNIT_MAX 8

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

/*
 * The length of the UTF-8 sequence at @s, its code point in *@cp; 0
 * when it is none (a stray or truncated byte, an overlong form, a
 * surrogate, past U+10FFFF): what JSON parsers and terminals refuse.
 */
size_t sb_utf8(const unsigned char *s, uint32_t *cp)
{
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4	 ? 4
		   : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
		   : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
						 : 0;
	uint32_t c;

	if (n == 0)
		return 0;
	c = s[0] & (0x7fu >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* a NUL stops here too */
		c = c << 6 | (s[i] & 0x3fu);
	}
	if (c < min[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* C1 controls, and what turns text around or breaks it unseen. */
bool sb_hidden(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static size_t hex(char *out, const char *prefix, uint32_t v, int digits)
{
	static const char digit[] = "0123456789abcdef";
	size_t n = strlen(prefix);

	memcpy(out, prefix, n);
	for (int i = digits - 1; i >= 0; i--, v >>= 4)
		out[n + (size_t)i] = digit[v & 15];
	return n + (size_t)digits;
}

static size_t pair(char *out, char a, char b)
{
	out[0] = a;
	out[1] = b;
	return 2;
}

/* The escape of the character at @p into @out, and its length; in *@n
 * the bytes of @p it stands for (at least 1: @p is not at its end). */
static size_t unit(const unsigned char *p, enum sb_esc how, char out[UNIT_MAX],
		   size_t *n)
{
	uint32_t cp = 0;
	size_t u = *p < 0x80 ? 1 : sb_utf8(p, &cp);

	*n = u ? u : 1;
	if (how == SB_JSON) {
		if (*p == '"' || *p == '\\')
			return pair(out, '\\', (char)*p);
		if (*p < 0x20 || *p == 0x7f || u == 0)
			return hex(out, "\\u00", *p, 2);
	} else {
		if (*p == '\\' && how == SB_QUOTED) {
			out[0] = '\\';
			return 1;
		}
		if (*p == '\\' || *p == '\n' || *p == '\r' || *p == '\t')
			return pair(out, '\\',
				    *p == '\\'	 ? '\\'
				    : *p == '\n' ? 'n'
				    : *p == '\r' ? 'r'
						 : 't');
		if (*p < 0x20 || *p == 0x7f || u == 0)
			return hex(out, "\\x", *p, 2);
		if (u > 1 && sb_hidden(cp))
			return hex(out, "\\u", cp, 4);
	}
	memcpy(out, p, *n);
	return *n;
}

size_t sb_escape_len(const char *s, enum sb_esc how)
{
	const unsigned char *p = (const unsigned char *)s;
	char e[UNIT_MAX];
	size_t total = 0, n;

	for (; *p; p += n)
		total += unit(p, how, e, &n);
	return total;
}

void sb_escape(struct strbuf *sb, const char *s, enum sb_esc how, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t total = sb_escape_len(s, how), at = 0, head, tail, len, n;
	char e[UNIT_MAX];

	if (total > max && max < SB_CUT_LEN)
		return;
	head = total > max ? (max - SB_CUT_LEN) / 2 : total;
	tail = total > max ? max - SB_CUT_LEN - head : 0;
	for (; *p; p += n, at += len) {
		len = unit(p, how, e, &n);
		if (at + len > head)
			break;
		sb_put(sb, e, len);
	}
	if (!*p)
		return;
	sb_put(sb, SB_CUT, SB_CUT_LEN);
	/* the end: from the first escape after which the rest fits */
	for (; *p && total - at > tail; p += n, at += len)
		len = unit(p, how, e, &n);
	for (; *p; p += n)
		sb_put(sb, e, unit(p, how, e, &n));
}

/* How sb_shell() writes a word. */
enum quoting { BARE, SINGLE, DOLLAR };

static bool is_bare(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("_@%+=:,./-", c));
}

/* Is the character at @p (@n bytes) written as bytes in $'...'? */
static bool needs_hex(const unsigned char *p, size_t *n)
{
	uint32_t cp = 0;
	size_t u = *p < 0x80 ? 1 : sb_utf8(p, &cp);

	*n = u ? u : 1;
	return *p < 0x20 || *p == 0x7f || u == 0 || (u > 1 && sb_hidden(cp));
}

static enum quoting quoting_of(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	enum quoting q = *p ? BARE : SINGLE;
	size_t n;

	for (; *p; p += n) {
		if (needs_hex(p, &n))
			return DOLLAR;
		if (n > 1 || !is_bare(*p))
			q = SINGLE;
	}
	return q;
}

static void emit(char *out, size_t *len, const void *s, size_t n)
{
	if (out)
		memcpy(out + *len, s, n);
	*len += n;
}

/* The word for @s quoted as @q into @out (NULL: only its length). */
static size_t shell_word(const char *s, enum quoting q, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	char e[UNIT_MAX];
	size_t len = 0, n, k;

#define EMIT(str, cnt) emit(out, &len, (str), (cnt))

	if (q == BARE) {
		EMIT(s, strlen(s));
		return len;
	}
	EMIT(q == DOLLAR ? "$'" : "'", q == DOLLAR ? 2u : 1u);
	for (; *p; p += n) {
		bool hexed = needs_hex(p, &n);

		if (hexed) { /* only in $'...': quoting_of() saw it */
			for (size_t i = 0; i < n; i++) {
				k = p[i] == '\n'   ? pair(e, '\\', 'n')
				    : p[i] == '\t' ? pair(e, '\\', 't')
				    : p[i] == '\r' ? pair(e, '\\', 'r')
						   : hex(e, "\\x", p[i], 2);
				EMIT(e, k);
			}
		} else if (*p == '\'' && q == SINGLE) {
			EMIT("'\\''", 4u);
		} else if ((*p == '\'' || *p == '\\') && q == DOLLAR) {
			EMIT(e, pair(e, '\\', (char)*p));
		} else {
			EMIT(p, n);
		}
	}
	EMIT("'", 1u);
#undef EMIT
	return len;
}

void sb_shell(struct strbuf *sb, const char *s)
{
	enum quoting q = quoting_of(s);
	size_t n = shell_word(s, q, NULL);

	if (sb->cap == 0)
		return;
	if (sb->full || n >= sb->cap - sb->len) {
		sb->full = true;
		return;
	}
	shell_word(s, q, sb->buf + sb->len);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_json(struct strbuf *sb, const char *s)
{
	sb_escape(sb, s, SB_JSON, SIZE_MAX);
}

void sb_share(size_t len[], size_t n, size_t budget)
{
	uint64_t fixed = 0;
	size_t left = budget, open = n;
	bool more = true;

	if (n > 64)
		return;
	/* Fix every length within an equal share of what is left: the
	 * share only grows as short ones are fixed.  The rest get it. */
	while (more && open) {
		more = false;
		for (size_t i = 0; i < n; i++) {
			if ((fixed >> i & 1) || len[i] > left / open)
				continue;
			left -= len[i];
			open--;
			fixed |= (uint64_t)1 << i;
			more = true;
			if (!open)
				break;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!(fixed >> i & 1))
			len[i] = left / open;
}
