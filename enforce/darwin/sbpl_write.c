/*
 * sbpl_write.c - the writers of the Seatbelt profile generator: SBPL
 * rules, filters and strings, and the host's paths as Seatbelt matches
 * them.  sbpl.c (the policy's rules) and sbpl_base.c (what every
 * process needs) both write through these, and neither is called back
 * from here.  Pure: nothing is looked up, nothing is global.
 *
 * SBPL strings are read by libsandbox's TinyScheme reader: '"' and '\'
 * are escaped with a backslash, control characters are written \xHH
 * (two hex digits, the reader's byte escape), UTF-8 passes as it is
 * (byte by byte, which a reader that knows UTF-8 and one that does not
 * both keep); a path that is not UTF-8 is refused: APFS and HFS+ store
 * names in Unicode, and \xHH above 0x7f would mean different bytes to
 * the two readers.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "enforce/darwin/sbpl_gen.h"

void sbpl_fail(struct gen *g, int ret, const char *path, const char *why)
{
	if (g->ret)
		return;
	g->ret = ret;
	snprintf(g->err, g->errlen,
		 "cannot write the Seatbelt profile for '%s': %s", path, why);
}

/*
 * @path as Seatbelt sees it: on macOS /tmp, /var and /etc are symbolic
 * links into /private, and rules match the path the kernel resolved.
 */
int sbpl_map(const struct sbpl_host *h, const char *path, char out[SBPL_PATH])
{
	const char *const links[][2] = {
		{ "/tmp", h->tmp },
		{ "/var", h->var },
		{ "/etc", h->etc },
	};
	const char *to = "", *rest = path;
	int n;

	if (path[0] != '/')
		return -EINVAL;
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		if (links[i][1] && path_is_within(path, links[i][0])) {
			to = links[i][1];
			rest = path + strlen(links[i][0]);
		}
	}
	n = snprintf(out, SBPL_PATH, "%s%s", to, rest);
	return n < 0 || n >= SBPL_PATH ? -ENAMETOOLONG : 0;
}

/* Length of the well-formed UTF-8 sequence (RFC 3629) at @s, or 0. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong forms, no surrogates, nothing above U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* @s as an SBPL string literal, quotes included. */
static void put_str(struct gen *g, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s;

	sb_puts(g->out, "\"");
	while (*p) {
		size_t n = *p < 0x80 ? 1 : utf8_seq(p);
		char esc[4] = { '\\', 'x', hex[*p >> 4], hex[*p & 15] };

		if (n == 0) {
			sbpl_fail(g, -EILSEQ, s,
				  "not UTF-8 (Seatbelt matches UTF-8 paths "
				  "only)");
			return;
		}
		if (*p == '"' || *p == '\\') {
			sb_put(g->out, "\\", 1);
			sb_put(g->out, (const char *)p, 1);
		} else if (*p < 0x20 || *p == 0x7f) {
			sb_put(g->out, esc, sizeof(esc));
		} else {
			sb_put(g->out, (const char *)p, n);
		}
		p += n;
	}
	sb_puts(g->out, "\"");
}

static void put_filter(struct gen *g, const char *kind, const char *s)
{
	sb_puts(g->out, "(");
	sb_puts(g->out, kind);
	sb_puts(g->out, " ");
	put_str(g, s);
	sb_puts(g->out, ")");
}

/* "(ACTION OPS" ... ")": each filter of a rule on a line of its own. */
void sbpl_open_rule(struct gen *g, const char *action, const char *ops)
{
	sb_puts(g->out, "(");
	sb_puts(g->out, action);
	sb_puts(g->out, " ");
	sb_puts(g->out, ops);
}

void sbpl_next_filter(struct gen *g, const char *kind, const char *s)
{
	sb_puts(g->out, "\n\t");
	put_filter(g, kind, s);
}

/* "(local unix-socket (subpath ...))" and the like, on a line of its
 * own (@line) or after the operations. */
void sbpl_socket_filter(struct gen *g, bool line, const char *side,
			const char *kind, const char *s)
{
	sb_puts(g->out, line ? "\n\t(" : " (");
	sb_puts(g->out, side);
	sb_puts(g->out, " unix-socket ");
	put_filter(g, kind, s);
	sb_puts(g->out, ")");
}

void sbpl_close_rule(struct gen *g)
{
	sb_puts(g->out, ")\n");
}

/* A rule with one filter, on one line. */
void sbpl_rule(struct gen *g, const char *action, const char *ops,
	       const char *kind, const char *s)
{
	sbpl_open_rule(g, action, ops);
	sb_puts(g->out, " ");
	put_filter(g, kind, s);
	sbpl_close_rule(g);
}

/* A host path (a fixed one, or one the caller looked up), mapped. */
const char *sbpl_host_path(struct gen *g, const char *path, char *buf)
{
	int ret = sbpl_map(g->h, path, buf);

	if (ret)
		sbpl_fail(g, ret, path,
			  ret == -EINVAL ? "not absolute" : strerror(-ret));
	return ret ? "/" : buf;
}

const char *sbpl_tmp_of(const struct gen *g)
{
	return g->h->tmp ? g->h->tmp : "/tmp";
}
