/*
 * strbuf.h - append to a fixed buffer, for messages and snapshots.
 *
 * No allocation, no stdio, no errno: usable in the shim's hooks and in
 * vfork children.  Each append is all or nothing: a piece that does not
 * fit is dropped whole, and so is every piece after it (the buffer
 * remembers it overflowed, in full).  So the buffer always holds len
 * bytes of whole pieces, NUL-terminated, never a piece cut short.
 */
#ifndef CORDON_STRBUF_H
#define CORDON_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf {
	char *buf;
	size_t cap, len;
	bool full;
};

#define STRBUF(b, n) ((struct strbuf){ .buf = (b), .cap = (n) })

void sb_put(struct strbuf *sb, const char *s, size_t n);
void sb_puts(struct strbuf *sb, const char *s);
void sb_uint(struct strbuf *sb, unsigned long v);

/* The length of the UTF-8 sequence at @s and its code point in *@cp;
 * 0 when it is none (a stray or truncated byte, an overlong form, a
 * surrogate, past U+10FFFF): what JSON parsers and terminals refuse. */
size_t sb_utf8(const unsigned char *s, uint32_t *cp);

/* Is @cp a C1 control, or what turns text around or breaks it unseen
 * (U+2028, U+2029, the bidirectional overrides and isolates)? */
bool sb_hidden(uint32_t cp);

/* How text from a program (a path, a name) is escaped. */
enum sb_esc {
	/* The inside of a JSON string: '"' and '\' escaped with a
	 * backslash; C0 bytes, DEL and bytes that are not UTF-8 (stray,
	 * overlong, surrogate, past U+10FFFF) as \u00XX. */
	SB_JSON,
	/* For a terminal, as the launcher writes what crosses the trust
	 * line (enforce/base/record.c, record_escape()): \n, \r, \t and \\ as
	 * such; other C0 bytes, DEL and bytes that are not UTF-8 as \xHH;
	 * C1 controls and the bidirectional overrides as \uHHHH; the rest
	 * of UTF-8 as it is.  The text stays one line. */
	SB_TERM,
	/* For a terminal, text sb_shell() quoted: as SB_TERM, but a
	 * backslash stays one (sb_shell() writes no raw control byte, so
	 * nothing else changes and the text still pastes as it was). */
	SB_QUOTED,
};

/* What sb_escape() puts in the middle of a text it shortens. */
#define SB_CUT	   "..."
#define SB_CUT_LEN 3

/* The bytes @s takes escaped (@how). */
size_t sb_escape_len(const char *s, enum sb_esc how);

/**
 * sb_escape - append @s escaped (@how), in at most @max bytes: when it
 * is longer, its start and its end with SB_CUT between them, cut
 * between escapes and characters, never inside one (nothing when @max
 * cannot hold SB_CUT).
 */
void sb_escape(struct strbuf *sb, const char *s, enum sb_esc how, size_t max);

/**
 * sb_shell - append @s as one word that a POSIX shell (bash, for the
 * third form) reads back as exactly @s: as it is when it holds only
 * [A-Za-z0-9_@%+=:,./-] (and is not empty); '...' when it is printable
 * UTF-8 (a ' as '\''); else bash's $'...', with \n, \t, \r, \\, \' and
 * \xHH for every other control byte, DEL, byte that is not UTF-8, and
 * byte of a C1 control or a bidirectional override.  The word holds no
 * raw control byte and no newline.  All or nothing, as every append.
 */
void sb_shell(struct strbuf *sb, const char *s);

/* @s, whole, as the inside of a JSON string (SB_JSON). */
void sb_json(struct strbuf *sb, const char *s);

/**
 * sb_share - lower the longest of the @n (at most 64) lengths in @len
 * until they add up to at most @budget: those no longer than an equal
 * share of what the others leave keep their length, the rest get that
 * share.  For texts that must fit one buffer together.
 */
void sb_share(size_t len[], size_t n, size_t budget);

#endif
