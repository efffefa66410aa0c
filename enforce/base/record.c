/*
 * record.c - the audit records that cross the trust line (record.h):
 * validate what a shim sent from inside, re-serialise it with the
 * source the supervisor knows, and escape its text for a terminal.
 *
 * Everything here reads hostile input: a static binary inside the
 * sandbox can send any datagram to the report socket.  Nothing a sender
 * wrote reaches the log or the terminal as it came: only the known
 * fields, each of its type and bounded, re-serialised by jansson with
 * every control character escaped.  Never trust a field to say where a
 * record came from: "source" is the supervisor's alone.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "enforce/base/base.h"
#include "shim/core/policy.h"
#include "shim/core/strbuf.h"

enum kind {
	K_TIME,	   /* number >= 0 */
	K_PID,	   /* integer 0..RECORD_PID_MAX */
	K_NEED,	   /* integer 0..15 */
	K_TEXT,	   /* string of at most RECORD_TEXT_MAX bytes */
	K_NAME,	   /* an operation's name */
	K_VERDICT, /* deny, learn, note */
	K_LAYER,   /* shim, kernel */
	K_VAR,	   /* a variable's name, as -e takes it */
	K_TRUE,	   /* true, or absent */
};

/* Which records carry a field: all, those on a path, those on a
 * destination, those on a variable (getenv), or any. */
enum group { G_ALL, G_PATH, G_NET, G_VAR, G_ANY };

/* In the order the shim writes them (shim/audit.c). */
static const struct field {
	const char *key;
	enum kind kind;
	enum group group;
} fields[] = {
	{ "time", K_TIME, G_ALL },	  { "pid", K_PID, G_ALL },
	{ "ppid", K_PID, G_ALL },	  { "pgid", K_PID, G_ANY },
	{ "program", K_TEXT, G_ALL },	  { "operation", K_NAME, G_ALL },
	{ "destination", K_TEXT, G_NET }, { "variable", K_VAR, G_VAR },
	{ "path", K_TEXT, G_PATH },	  { "resolved", K_TEXT, G_PATH },
	{ "need", K_NEED, G_PATH },	  { "peer", K_TEXT, G_ANY },
	{ "probe", K_TRUE, G_ANY },	  { "verdict", K_VERDICT, G_ALL },
	{ "rule", K_TEXT, G_ALL },	  { "allow", K_TEXT, G_ANY },
	{ "layer", K_LAYER, G_ALL },
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static const char *const source_names[] = {
	[RECORD_SHIM] = "shim",
	[RECORD_LAUNCHER] = "launcher",
	[RECORD_KERNEL] = "kernel",
};

static const struct field *find_field(const char *key)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (strcmp(fields[i].key, key) == 0)
			return &fields[i];
	return NULL;
}

static bool is_one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(s, *set) == 0)
			return true;
	return false;
}

static bool is_name(const char *s, size_t len)
{
	if (len == 0 || len > RECORD_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_.$-") == len;
}

static bool is_integer_in(json_t *v, json_int_t max)
{
	return json_is_integer(v) && json_integer_value(v) >= 0 &&
	       json_integer_value(v) <= max;
}

static bool is_valid(const struct field *f, json_t *v)
{
	static const char *const verdicts[] = { "deny", "learn", "note", NULL };
	static const char *const layers[] = { "shim", "kernel", NULL };
	const char *s = json_string_value(v);
	size_t len = json_string_length(v);

	switch (f->kind) {
	case K_TIME:
		return json_is_number(v) && json_number_value(v) >= 0;
	case K_PID:
		return is_integer_in(v, RECORD_PID_MAX);
	case K_NEED:
		return is_integer_in(v, RIGHT_ALL | RIGHT_U);
	case K_TEXT:
		return s && len <= RECORD_TEXT_MAX;
	case K_NAME:
		return s && is_name(s, len);
	case K_VERDICT:
		return s && is_one_of(s, verdicts);
	case K_LAYER:
		return s && is_one_of(s, layers);
	case K_TRUE:
		return json_is_true(v);
	case K_VAR:
		return s && len > 0 && len < 256 &&
		       strspn(s,
			      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			      "abcdefghijklmnopqrstuvwxyz0123456789_") == len &&
		       (s[0] < '0' || s[0] > '9');
	}
	return false;
}

/* Every field known and valid; the reason when one is not. */
static const char *check_fields(json_t *obj)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v)
	{
		const struct field *f = find_field(key);

		if (!f)
			return strcmp(key, "source") == 0
				       ? "a source field (only the supervisor "
					 "names the source)"
				       : "an unknown field";
		if (!is_valid(f, v))
			return "a field of the wrong type or size";
	}
	return NULL;
}

/* Every field a record must have, and a path or a destination. */
static const char *check_shape(json_t *obj)
{
	size_t path = 0, net = 0, var = 0;

	for (size_t i = 0; i < NFIELDS; i++) {
		bool has = json_object_get(obj, fields[i].key) != NULL;

		if (fields[i].group == G_ALL && !has)
			return "a required field is missing";
		path += fields[i].group == G_PATH && has;
		net += fields[i].group == G_NET && has;
		var += fields[i].group == G_VAR && has;
	}
	if (!((path == 3 && net == 0 && var == 0) ||
	      (path == 0 && net == 1 && var == 0) ||
	      (path == 0 && net == 0 && var == 1)))
		return "not one of a path, a destination and a variable";
	return NULL;
}

/* The validated fields of @in, in the shim's order, and the source. */
static json_t *rebuild(json_t *in)
{
	json_t *out = json_object();

	if (!out)
		return NULL;
	for (size_t i = 0; i < NFIELDS; i++) {
		json_t *v = json_object_get(in, fields[i].key);

		if (v && json_object_set(out, fields[i].key, v) < 0)
			goto fail;
	}
	if (json_object_set_new(out, "source",
				json_string(source_names[RECORD_SHIM])) < 0)
		goto fail;
	return out;
fail:
	json_decref(out);
	return NULL;
}

json_t *record_parse(const char *buf, size_t len, const char **why)
{
	const char *reason = NULL;
	json_error_t e;
	json_t *in, *out = NULL;

	if (len > RECORD_DATAGRAM_MAX) {
		reason = "longer than a record may be";
		goto done;
	}
	in = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);
	if (!in)
		reason = "not JSON";
	else if (!json_is_object(in))
		reason = "not a JSON object";
	else if (!(reason = check_fields(in)) && !(reason = check_shape(in)))
		out = rebuild(in);
	if (in && !reason && !out)
		reason = "out of memory";
	json_decref(in);
done:
	if (why)
		*why = reason;
	return out;
}

/* Now, in seconds, to the millisecond, as the shim writes it. */
static double now(void)
{
	struct timespec ts = { 0, 0 };

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000000) / 1000.0;
}

json_t *record_new(enum record_source source, const char *operation,
		   const char *verdict, const char *rule, json_t *more)
{
	json_t *rec =
		json_pack("{s:f, s:s, s:s, s:s}", "time", now(), "operation",
			  operation, "verdict", verdict, "rule", rule);

	if (rec && more && json_object_update(rec, more) < 0)
		goto fail;
	if (rec && json_object_set_new(rec, "source",
				       json_string(source_names[source])) < 0)
		goto fail;
	return rec;
fail:
	json_decref(rec);
	return NULL;
}

static void put_hex(struct strbuf *sb, const char *prefix, uint32_t v,
		    int digits)
{
	static const char hex[] = "0123456789abcdef";
	char d[8];

	for (int i = digits - 1; i >= 0; i--, v >>= 4)
		d[i] = hex[v & 15];
	sb_puts(sb, prefix);
	sb_put(sb, d, (size_t)digits);
}

char *record_escape(char *out, size_t outlen, const char *in)
{
	struct strbuf sb = STRBUF(out, outlen);

	if (outlen)
		out[0] = '\0';
	/* escape by escape, up to the first that does not fit */
	sb_escape(&sb, in, SB_TERM, SIZE_MAX);
	return out;
}

/*
 * @s (jansson's output) into @sb with what JSON leaves raw and a terminal
 * would act on escaped: DEL and the hidden code points, which can only
 * be inside strings there.  Return: the length that takes.
 */
static size_t escape_json(const unsigned char *s, struct strbuf *sb)
{
	size_t len = 0;
	uint32_t cp = 0;

	while (*s) {
		size_t n = *s < 0x80 ? 1 : sb_utf8(s, &cp);

		if (*s == 0x7f || (n > 1 && sb_hidden(cp))) {
			put_hex(sb, "\\u", *s == 0x7f ? 0x7f : cp, 4);
			len += 6;
		} else {
			n = n ? n : 1; /* jansson wrote UTF-8: cannot be */
			sb_put(sb, (const char *)s, n);
			len += n;
		}
		s += n ? n : 1;
	}
	return len;
}

char *record_dump(const json_t *rec, size_t *len)
{
	char *json = json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER |
					     JSON_REAL_PRECISION(13));
	struct strbuf none = STRBUF(NULL, 0), sb;
	char *line = NULL;
	size_t n;

	if (!json)
		return NULL;
	n = escape_json((const unsigned char *)json, &none);
	if (n < SIZE_MAX - 2)
		line = malloc(n + 2);
	if (line) {
		sb = STRBUF(line, n + 2);
		escape_json((const unsigned char *)json, &sb);
		sb_put(&sb, "\n", 1);
		*len = sb.len;
	}
	free(json);
	return line;
}
