/*
 * Unit tests of the records that cross the trust line (enforce/base/record.c):
 * what the shim really writes is kept and re-serialised with the source
 * the supervisor knows; anything else a program inside could send is
 * rejected; no control character survives into the log or onto the
 * terminal, and printable UTF-8 stays as it is.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/base/base.h"

/* A record as shim/audit.c builds it (report.c's denial). */
#define SHIM_RECORD                                                            \
	"{\"time\":1795424480.628,\"pid\":27712,\"ppid\":27710,"               \
	"\"program\":\"/usr/bin/cat\",\"operation\":\"open\","                 \
	"\"path\":\"secret\",\"resolved\":\"/home/u/secret\",\"need\":1,"      \
	"\"verdict\":\"deny\",\"rule\":\"outside the readable roots /usr, "    \
	"/etc\",\"allow\":\"with --read /home/u/secret\",\"layer\":\"shim\"}"

/* SHIM_RECORD with the field @key ("\"key\"") replaced by @field. */
static char *with(const char *key, const char *field)
{
	static char buf[RECORD_DATAGRAM_MAX * 2];
	const char *at = strstr(SHIM_RECORD, key), *val, *end;

	cr_assert_not_null(at, "no %s in the record", key);
	val = at + strlen(key) + 1; /* past the colon */
	end = *val == '"' ? strchr(val + 1, '"') + 1 : val + strcspn(val, ",}");
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - SHIM_RECORD),
		 SHIM_RECORD, field, end);
	return buf;
}

static const char *rejected(const char *rec)
{
	const char *why = NULL;
	json_t *r = record_parse(rec, strlen(rec), &why);

	cr_assert_null(r, "kept: %s", rec);
	cr_assert_not_null(why);
	return why;
}

static json_t *kept(const char *rec)
{
	const char *why = NULL;
	json_t *r = record_parse(rec, strlen(rec), &why);

	cr_assert_not_null(r, "rejected (%s): %s", why ? why : "?", rec);
	return r;
}

static char *dump(json_t *r)
{
	size_t len = 0;
	char *line = record_dump(r, &len);

	cr_assert_not_null(line);
	cr_assert_eq(len, strlen(line));
	return line;
}

Test(record, a_shim_record_is_kept_and_labelled_shim)
{
	json_t *r = kept(SHIM_RECORD "\n");
	char *line = dump(r);

	cr_assert_str_eq(
		line,
		"{\"time\":1795424480.628,\"pid\":27712,\"ppid\":27710,"
		"\"program\":\"/usr/bin/cat\",\"operation\":\"open\","
		"\"path\":\"secret\",\"resolved\":\"/home/u/secret\","
		"\"need\":1,\"verdict\":\"deny\",\"rule\":\"outside the "
		"readable roots /usr, /etc\",\"allow\":\"with --read "
		"/home/u/secret\",\"layer\":\"shim\",\"source\":\"shim\"}\n");
	free(line);
	json_decref(r);
}

Test(record, network_and_unshimmed_records_are_kept)
{
	const char *net =
		"{\"time\":1.5,\"pid\":3,\"ppid\":2,\"program\":\"/usr/bin/"
		"curl\",\"operation\":\"connect\",\"destination\":\"1.2.3.4:"
		"443\",\"verdict\":\"learn\",\"rule\":\"TCP port 443 is not "
		"granted\",\"allow\":\"with --connect "
		"443\",\"layer\":\"shim\"}";
	const char *note =
		"{\"time\":2,\"pid\":3,\"ppid\":2,\"program\":\"/bin/sh\","
		"\"operation\":\"exec-unshimmed\",\"path\":\"./st\","
		"\"resolved\":\"/w/st\",\"need\":4,\"verdict\":\"note\","
		"\"rule\":\"a static binary (no PT_INTERP): the shim cannot "
		"enter it; the kernel layer holds\",\"layer\":\"shim\"}";
	json_t *a = kept(net), *b = kept(note);

	cr_assert_str_eq(json_string_value(json_object_get(a, "source")),
			 "shim");
	cr_assert_str_eq(json_string_value(json_object_get(b, "verdict")),
			 "note");
	json_decref(a);
	json_decref(b);
}

Test(record, what_is_not_one_json_object_is_rejected)
{
	rejected("");
	rejected("junk");
	rejected("[" SHIM_RECORD "]");
	rejected("\"a string\"");
	rejected(SHIM_RECORD SHIM_RECORD);
	/* a control byte must be escaped inside a JSON string */
	rejected(with("\"rule\"", "\"rule\":\"a\033[2Jb\""));
	rejected(with("\"rule\"", "\"rule\":\"a\\u0000b\""));
}

Test(record, an_unknown_field_is_rejected)
{
	cr_assert_str_eq(rejected(with("\"rule\"", "\"rule\":\"r\",\"x\":1")),
			 "an unknown field");
	rejected(with("\"layer\"", "\"layer\":\"shim\",\"extra\":\"\""));
}

Test(record, a_source_from_the_sender_is_rejected)
{
	const char *why = rejected(
		with("\"layer\"", "\"layer\":\"shim\",\"source\":\"kernel\""));

	cr_assert(strstr(why, "source"), "%s", why);
	rejected(with("\"layer\"", "\"layer\":\"shim\",\"source\":\"shim\""));
}

Test(record, a_field_of_the_wrong_type_is_rejected)
{
	rejected(with("\"pid\"", "\"pid\":\"27712\""));
	rejected(with("\"pid\"", "\"pid\":-1"));
	rejected(with("\"pid\"", "\"pid\":1.5"));
	rejected(with("\"pid\"", "\"pid\":99999999999"));
	rejected(with("\"ppid\"", "\"ppid\":null"));
	rejected(with("\"need\"", "\"need\":16"));
	rejected(with("\"need\"", "\"need\":\"1\""));
	rejected(with("\"time\"", "\"time\":\"now\""));
	rejected(with("\"time\"", "\"time\":-1"));
	rejected(with("\"program\"", "\"program\":[\"/bin/x\"]"));
	rejected(with("\"rule\"", "\"rule\":{}"));
	rejected(with("\"operation\"", "\"operation\":\"\""));
	rejected(with("\"operation\"", "\"operation\":\"open\\u001b\""));
	rejected(with("\"operation\"", "\"operation\":\"a b\""));
}

Test(record, a_bad_verdict_or_layer_is_rejected)
{
	rejected(with("\"verdict\"", "\"verdict\":\"allow\""));
	rejected(with("\"verdict\"", "\"verdict\":\"DENY\""));
	rejected(with("\"layer\"", "\"layer\":\"launcher\""));
	rejected(with("\"layer\"", "\"layer\":\"kernel \""));
	json_decref(kept(with("\"layer\"", "\"layer\":\"kernel\"")));
}

Test(record, a_missing_or_doubled_field_is_rejected)
{
	static const char no_rule[] =
		"{\"time\":1,\"pid\":1,\"ppid\":1,\"program\":\"\","
		"\"operation\":\"open\",\"path\":\"/p\",\"resolved\":\"/p\","
		"\"need\":1,\"verdict\":\"deny\",\"layer\":\"shim\"}";

	cr_assert_str_eq(rejected(no_rule), "a required field is missing");
	/* a duplicate key: jansson refuses it (JSON_REJECT_DUPLICATES) */
	cr_assert_str_eq(rejected(with("\"rule\"", "\"verdict\":\"deny\"")),
			 "not JSON");
	rejected(with("\"layer\"", "\"layer\":\"shim\",\"layer\":\"shim\""));
	cr_assert_str_eq(
		rejected(with("\"need\"", "\"destination\":\"1.2.3.4:80\"")),
		"not one of a path, a destination and a variable");
	cr_assert_str_eq(rejected(with("\"layer\"", "\"layer\":\"shim\","
						    "\"destination\":\"x\"")),
			 "not one of a path, a destination and a variable");
}

Test(record, strings_are_bounded)
{
	static char big[RECORD_TEXT_MAX + 64], field[RECORD_TEXT_MAX + 128];

	memset(big, 'a', RECORD_TEXT_MAX);
	big[RECORD_TEXT_MAX] = '\0';
	snprintf(field, sizeof(field), "\"rule\":\"%s\"", big);
	json_decref(kept(with("\"rule\"", field)));
	big[RECORD_TEXT_MAX] = 'a';
	big[RECORD_TEXT_MAX + 1] = '\0';
	snprintf(field, sizeof(field), "\"rule\":\"%s\"", big);
	rejected(with("\"rule\"", field));
	memset(big, 'o', RECORD_NAME_MAX + 1);
	big[RECORD_NAME_MAX + 1] = '\0';
	snprintf(field, sizeof(field), "\"operation\":\"%s\"", big);
	rejected(with("\"operation\"", field));
}

Test(record, a_datagram_longer_than_a_record_is_rejected)
{
	const char *why = NULL;

	cr_assert_null(
		record_parse(SHIM_RECORD, RECORD_DATAGRAM_MAX + 1, &why));
	cr_assert_str_eq(why, "longer than a record may be");
}

Test(record, no_control_character_reaches_the_log)
{
	json_t *r = kept(with("\"rule\"", "\"rule\":\"a\\u001b[2J\\u0007\\r"
					  "\\ncordon: ok\x7f\xc2\x9b"
					  "\xe2\x80\xae\""));
	char *line = dump(r);

	cr_assert(strstr(line, "\"rule\":\"a\\u001B[2J\\u0007\\r\\ncordon: "
			       "ok\\u007f\\u009b\\u202e\""),
		  "%s", line);
	for (const char *p = line; *p; p++)
		cr_assert(*p == '\n' ? p[1] == '\0'
				     : (unsigned char)*p >= 0x20 && *p != 0x7f,
			  "raw byte 0x%02x in %s", (unsigned char)*p, line);
	free(line);
	json_decref(r);
}

Test(record, utf8_text_is_kept_in_the_log)
{
	json_t *r = kept(with("\"path\"", "\"path\":\"caf\xc3\xa9/\xe6\x97\xa5"
					  "\xf0\x9f\x93\x81\""));
	char *line = dump(r);

	cr_assert(
		strstr(line,
		       "\"path\":\"caf\xc3\xa9/\xe6\x97\xa5\xf0\x9f\x93\x81\""),
		"%s", line);
	free(line);
	json_decref(r);
}

Test(record, records_of_the_supervisor_name_their_source)
{
	json_t *more = json_pack("{s:i}", "dropped", 3);
	json_t *l = record_new(RECORD_LAUNCHER, "report", "note", "3 dropped",
			       more);
	json_t *k =
		record_new(RECORD_KERNEL, "syscall", "deny", "killed", NULL);

	cr_assert_str_eq(json_string_value(json_object_get(l, "source")),
			 "launcher");
	cr_assert_eq(json_integer_value(json_object_get(l, "dropped")), 3);
	cr_assert_str_eq(json_string_value(json_object_get(k, "source")),
			 "kernel");
	cr_assert_str_eq(json_string_value(json_object_get(k, "operation")),
			 "syscall");
	cr_assert(json_is_number(json_object_get(k, "time")));
	json_decref(more);
	json_decref(l);
	json_decref(k);
}

static const char *esc(const char *in)
{
	static char out[256];

	return record_escape(out, sizeof(out), in);
}

Test(record, escape_shows_control_characters)
{
	cr_assert_str_eq(esc("a\033[2Jb"), "a\\x1b[2Jb");
	cr_assert_str_eq(esc("bell\a"), "bell\\x07");
	cr_assert_str_eq(esc("x\ry\nz\t"), "x\\ry\\nz\\t");
	cr_assert_str_eq(esc("del\x7f"), "del\\x7f");
	cr_assert_str_eq(esc("back\\slash"), "back\\\\slash");
	cr_assert_str_eq(esc("csi\xc2\x9b"), "csi\\u009b");
	cr_assert_str_eq(esc("rlo\xe2\x80\xae"), "rlo\\u202e");
	cr_assert_str_eq(esc("bad\xff\xc3"), "bad\\xff\\xc3");
	cr_assert_str_eq(esc("overlong\xc0\xaf"), "overlong\\xc0\\xaf");
}

Test(record, escape_keeps_printable_utf8)
{
	cr_assert_str_eq(esc("/home/u/caf\xc3\xa9"), "/home/u/caf\xc3\xa9");
	cr_assert_str_eq(esc("\xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\x81"),
			 "\xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\x81");
	cr_assert_str_eq(esc("with --read /x"), "with --read /x");
}

Test(record, escape_cuts_before_an_escape_never_inside)
{
	char out[6];

	cr_assert_str_eq(record_escape(out, sizeof(out), "ab\033cd"), "ab");
	cr_assert_str_eq(record_escape(out, sizeof(out), "abcd\xc3\xa9"),
			 "abcd");
	cr_assert_str_eq(record_escape(out, sizeof(out), "abcdefg"), "abcde");
	cr_assert_str_eq(record_escape(out, 1, "abc"), "");
}

/* A variable the scrub removed (getenv): a name as -e takes it, in
 * place of a path or a destination, never beside one. */
Test(record, a_variable_record_is_a_name_alone)
{
	static const char var[] =
		"{\"time\":1,\"pid\":1,\"ppid\":1,\"program\":\"/bin/x\","
		"\"operation\":\"getenv\",\"variable\":\"PKG_CONFIG_PATH\","
		"\"verdict\":\"deny\",\"rule\":\"removed\","
		"\"allow\":\"with -e PKG_CONFIG_PATH\",\"layer\":\"shim\"}";
	static const char *const names[] = { "",    "1A",    "A-B", "A=B",
					     "A B", "A\\nB", NULL };
	char bad[sizeof(var) + 64];
	json_t *r = kept(var);

	cr_assert_str_eq(json_string_value(json_object_get(r, "variable")),
			 "PKG_CONFIG_PATH");
	json_decref(r);
	for (size_t i = 0; names[i]; i++) {
		snprintf(bad, sizeof(bad),
			 "{\"time\":1,\"pid\":1,\"ppid\":1,\"program\":\"\","
			 "\"operation\":\"getenv\",\"variable\":\"%s\","
			 "\"verdict\":\"deny\",\"rule\":\"r\",\"layer\":"
			 "\"shim\"}",
			 names[i]);
		rejected(bad);
	}
	cr_assert_str_eq(rejected(with("\"layer\"", "\"layer\":\"shim\","
						    "\"variable\":\"X\"")),
			 "not one of a path, a destination and a variable");
}

/* "probe" is true or absent. */
Test(record, a_lookup_is_marked_true_or_not_at_all)
{
	json_t *r = kept(
		with("\"verdict\"", "\"probe\":true,\"verdict\":\"deny\""));

	cr_assert(json_is_true(json_object_get(r, "probe")));
	json_decref(r);
	rejected(with("\"verdict\"", "\"probe\":false,\"verdict\":\"deny\""));
	rejected(with("\"verdict\"", "\"probe\":1,\"verdict\":\"deny\""));
}
