/*
 * record.h - audit records that cross the trust line: each datagram a
 * shim sends from inside the sandbox is validated against the shape the
 * shim writes (shim/audit.c) and re-serialised by the supervisor, which
 * alone says where a record came from ("source").  The text of a record
 * is escaped again before it reaches a terminal.
 *
 * A record from inside is kept only when it is one JSON object (no
 * duplicate keys, no NUL in a string) holding exactly these fields:
 *   time       number >= 0 (seconds since the epoch)         required
 *   pid, ppid  integer 0..RECORD_PID_MAX                      required
 *   program    string, at most RECORD_TEXT_MAX bytes          required
 *   operation  1..RECORD_NAME_MAX bytes of [A-Za-z0-9_.$-]    required
 *   verdict    "deny", "learn" (cordon learn) or "note"
 *              (the exec-unshimmed records)                   required
 *   rule       string, at most RECORD_TEXT_MAX bytes          required
 *   layer      "shim" or "kernel"                             required
 *   allow      string, at most RECORD_TEXT_MAX bytes          optional
 * and either a network destination
 *   destination  string, at most RECORD_TEXT_MAX bytes
 * or a path, with neither of the other two missing
 *   path, resolved  strings, at most RECORD_TEXT_MAX bytes
 *   need            integer 0..15 (RIGHT_R | RIGHT_W | RIGHT_X | RIGHT_U)
 * Anything else is rejected, including a "source" field: only the
 * supervisor writes one, so a sender that names itself is forging.
 */
#ifndef CORDON_RECORD_H
#define CORDON_RECORD_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

#define RECORD_DATAGRAM_MAX 16384   /* a longer datagram is rejected */
#define RECORD_TEXT_MAX	    4096    /* bytes of a path, a rule, a program */
#define RECORD_NAME_MAX	    64	    /* bytes of an operation's name */
#define RECORD_PID_MAX	    4194304 /* PID_MAX_LIMIT */

/* Where a record came from: written by the supervisor, never read. */
enum record_source {
	RECORD_SHIM,	 /* sent over the report socket from inside */
	RECORD_LAUNCHER, /* the supervisor's own note */
	RECORD_KERNEL,	 /* what the kernel told the supervisor */
};

/**
 * record_parse - validate the datagram @buf (@len bytes, a trailing
 * newline allowed) from inside the sandbox.
 *
 * Return: a new object holding the known fields in the shim's order and
 * "source": "shim", or NULL with @why (when not NULL) set to a static
 * reason.
 */
json_t *record_parse(const char *buf, size_t len, const char **why);

/**
 * record_new - a record the supervisor writes itself: the time,
 * @operation, @verdict, @rule, the fields of @more (an object, or NULL;
 * still the caller's) and "source" naming @source (RECORD_LAUNCHER or
 * RECORD_KERNEL).
 * Return: the new object, or NULL when out of memory.
 */
json_t *record_new(enum record_source source, const char *operation,
		   const char *verdict, const char *rule, json_t *more);

/**
 * record_dump - @rec as one log line: compact JSON ending in '\n', with
 * every control character (C0, DEL, C1) escaped as \u00XX, so that no
 * raw control byte reaches the log.  Free with free().
 * Return: the line, its length in @len; NULL when out of memory.
 */
char *record_dump(const json_t *rec, size_t *len);

/**
 * record_escape - @in (text from inside) for a terminal, into @out
 * (@outlen bytes, NUL-terminated, at least 1): \n, \r, \t and \\ as
 * such, other C0 bytes, DEL and bytes that are not UTF-8 as \xHH, C1
 * controls and the bidirectional overrides as \uHHHH; printable UTF-8
 * stays as it is.  Text that does not fit is cut before an escape or a
 * character, never inside one.
 * Return: @out.
 */
char *record_escape(char *out, size_t outlen, const char *in);

#endif
