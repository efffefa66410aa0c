/*
 * explain.c - `cordon explain`: what the policy a run would have decides
 * for each path (or port), in the words of the shim's denial lines.
 *
 *   cordon explain [--json] [--read|--write|--exec|--connect] PATH...
 *                  [OPTIONS]
 *
 * One line per path on stdout:
 *   allowed write ./out.o (/home/u/proj/out.o): granted by /home/u/proj (rwx)
 *   denied read ~/.ssh/id_rsa (/home/u/.ssh/id_rsa): outside the readable
 *     roots /usr, /etc, /opt, ...; allow with --read /home/u/.ssh/id_rsa
 * or, with --json, one JSON document (doc/schema/explain.schema.json)
 * that also holds, for each path, the verdict on reading, writing and
 * executing it.  Each verdict is decided once (struct verdict), by the
 * policy core the shim uses, then rendered as a line or as JSON: neither
 * rendering decides anything.
 * Exit status: 0 when every one is allowed, 1 otherwise, 125 when the
 * policy itself is wrong (a missing root, a bad option).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/learn/learn.h"
#include "enforce/base/base.h"
#include "enforce/policy/policy.h"
#include "shim/core/path.h"
#include "shim/core/rule.h"

#define RULE_BUF 1024

/* What the policy decides for one access to one path or port. */
struct verdict {
	int err;		  /* no verdict: -errno; 0 */
	const char *why;	  /* ... and why, when err */
	bool allowed;		  /* the access is granted */
	const struct root *root;  /* the root granting it, if one does */
	char rule[RULE_BUF];	  /* why: the refusal, or who grants it */
	char allow[2 * PATH_BUF]; /* the option that allows it, if denied */
};

static void decide_path(const struct policy *p, unsigned int need,
			const char *resolved, struct verdict *v)
{
	struct strbuf rule = STRBUF(v->rule, sizeof(v->rule));
	struct strbuf allow = STRBUF(v->allow, sizeof(v->allow));
	char rights[POLICY_RIGHTS_STR];

	v->err = 0;
	v->root = policy_allows(p, need, resolved)
			  ? rule_granting(p, resolved, need)
			  : NULL;
	v->allowed = v->root != NULL;
	v->allow[0] = '\0';
	if (v->allowed) {
		sb_puts(&rule, "granted by ");
		sb_puts(&rule, v->root->path);
		sb_puts(&rule, " (");
		sb_puts(&rule, policy_rights_str(v->root->rights, rights));
		sb_puts(&rule, ")");
		return;
	}
	rule_put(&rule, p, need, resolved);
	/* the option the shim's lines name: least grant, shell-quoted;
	 * none ("") when no option can allow it (rule_grant_path()) */
	if (!rule_put_option(&allow, p, NULL, need, resolved))
		v->allow[0] = '\0';
}

static void decide_port(const struct policy *p, unsigned int port, bool udp,
			struct verdict *v)
{
	struct strbuf rule = STRBUF(v->rule, sizeof(v->rule));
	struct strbuf allow = STRBUF(v->allow, sizeof(v->allow));

	v->err = 0;
	v->root = NULL;
	v->allow[0] = '\0';
	/* with hosts allowed, a port is reached on the namespace's loopback
	 * only (policy_tcp_allowed()): never a host outside, directly */
	if (p->net == NET_HOSTS) {
		v->allowed = false;
		sb_puts(&rule, "with --allow-host, the hosts named are reached "
			       "through cordon's proxy, and none directly");
		sb_puts(&allow, "--net");
		return;
	}
	v->allowed = udp ? policy_udp_allowed(p, false, port)
			 : policy_tcp_allowed(p, false, port);
	if (v->allowed) {
		sb_puts(&rule, p->net == NET_ON ? "the network is on"
						: "granted by --connect");
		return;
	}
	if (udp)
		rule_put_udp(&rule, p, false, port);
	else
		rule_put_tcp(&rule, p, false, port);
	sb_puts(&allow, udp ? "--connect udp:" : "--connect ");
	sb_uint(&allow, port);
}

/* A port as given: 0..65535, digits only; "udp:" before a UDP one. */
static int parse_port(const char *given, unsigned int *port, bool *udp)
{
	unsigned long n;
	char *end;

	*udp = strncmp(given, "udp:", 4) == 0;
	given += *udp ? 4 : 0;
	errno = 0;
	n = strtoul(given, &end, 10);
	if (errno || *end || end == given || *given < '0' || *given > '9' ||
	    n > 65535)
		return -EINVAL;
	*port = (unsigned int)n;
	return 0;
}

/* ---- text ---------------------------------------------------------- */

#define TERM_MAX (2 * PATH_BUF) /* of one text, escaped, on a line */

/* @s for the terminal: one line, control characters escaped, a text
 * longer than TERM_MAX shortened in its middle. */
static void put_term(struct strbuf *sb, const char *s)
{
	sb_escape(sb, s, SB_TERM, TERM_MAX);
}

static void put_paths(struct strbuf *sb, const char *given,
		      const char *resolved)
{
	put_term(sb, given);
	if (strcmp(given, resolved) != 0) {
		sb_puts(sb, " (");
		put_term(sb, resolved);
		sb_puts(sb, ")");
	}
}

/* "allowed read GIVEN (RESOLVED): RULE", "denied ...: RULE; allow with
 * OPTION", "error read GIVEN: REASON". */
static void print_line(const char *word, const char *given,
		       const char *resolved, const struct verdict *v)
{
	char line[4 * TERM_MAX + 64];
	struct strbuf sb = STRBUF(line, sizeof(line));

	sb_puts(&sb, v->err ? "error " : v->allowed ? "allowed " : "denied ");
	sb_puts(&sb, word);
	sb_puts(&sb, " ");
	if (v->err) {
		put_term(&sb, given);
		sb_puts(&sb, ": ");
		sb_puts(&sb, v->why);
	} else {
		put_paths(&sb, given, resolved ? resolved : given);
		sb_puts(&sb, ": ");
		put_term(&sb, v->rule);
		if (!v->allowed && v->allow[0]) {
			sb_puts(&sb, "; allow with ");
			sb_escape(&sb, v->allow, SB_QUOTED, TERM_MAX);
		} else if (!v->allowed) {
			sb_puts(&sb, "; " RULE_NO_OPTION);
		}
	}
	printf("%s\n", line);
}

/* ---- JSON ---------------------------------------------------------- */

/*
 * @s as a JSON string.  jansson takes UTF-8 only; bytes that are not
 * are given as the shim's records give them (SB_JSON: \u00XX), so that a
 * name shows the same in explain and in the audit log.
 */
static json_t *text(const char *s)
{
	json_t *v = json_string(s);
	size_t n;
	char *buf;
	struct strbuf sb;

	if (v)
		return v;
	n = sb_escape_len(s, SB_JSON) + 3;
	buf = malloc(n);
	if (!buf)
		return NULL;
	sb = STRBUF(buf, n);
	sb_puts(&sb, "\"");
	sb_json(&sb, s);
	sb_puts(&sb, "\"");
	v = sb.full ? NULL : json_loadb(buf, sb.len, JSON_DECODE_ANY, NULL);
	free(buf);
	return v;
}

/* Set @key of @obj to @v (taken); false when either is missing. */
static bool put(json_t *obj, const char *key, json_t *v)
{
	return obj && v && json_object_set_new(obj, key, v) == 0;
}

static json_t *verdict_json(const struct verdict *v)
{
	json_t *o = json_object();
	char rights[POLICY_RIGHTS_STR];
	bool ok = put(o, "allowed", json_boolean(v->allowed)) &&
		  put(o, "rule", text(v->rule));

	if (ok && v->root)
		ok = put(o, "root", text(v->root->path)) &&
		     put(o, "rights",
			 json_string(
				 policy_rights_str(v->root->rights, rights)));
	if (ok && !v->allowed && v->allow[0])
		ok = put(o, "allow", text(v->allow));
	else if (ok && !v->allowed)
		ok = put(o, "no_option", json_string(RULE_NO_OPTION));
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static const unsigned int rights_asked[] = { RIGHT_R, RIGHT_W, RIGHT_X };

/* One path: as given, resolved, the verdict on @need, and on each right. */
static json_t *path_json(const struct policy *p, unsigned int need,
			 const char *given, const char *resolved,
			 const struct verdict *asked)
{
	json_t *o = json_object();
	bool ok = put(o, "path", text(given));
	struct verdict v;

	if (ok && asked->err)
		ok = put(o, "allowed", json_false()) &&
		     put(o, "error", json_string(asked->why));
	else if (ok)
		ok = put(o, "resolved", text(resolved)) &&
		     put(o, "allowed", json_boolean(asked->allowed));
	for (size_t i = 0; ok && !asked->err && i < 3; i++) {
		if (rights_asked[i] != need)
			decide_path(p, rights_asked[i], resolved, &v);
		ok = put(o, rule_word(rights_asked[i]),
			 verdict_json(rights_asked[i] == need ? asked : &v));
	}
	if (ok && !asked->err && need == RIGHT_U)
		ok = put(o, "connect-unix", verdict_json(asked));
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *port_json(const char *given, unsigned int port,
			 const struct verdict *v)
{
	json_t *o = json_object();
	bool ok = put(o, "given", text(given));

	if (ok && v->err) {
		ok = put(o, "allowed", json_false()) &&
		     put(o, "error", json_string(v->why));
	} else if (ok) {
		ok = put(o, "port", json_integer(port)) &&
		     put(o, "allowed", json_boolean(v->allowed)) &&
		     put(o, "rule", text(v->rule));
		if (ok && !v->allowed)
			ok = put(o, "allow", text(v->allow));
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The access asked about, as the text and the document name it. */
static const char *access_word(const struct cli *c)
{
	if (c->explain_connect)
		return "connect";
	return c->explain_need == RIGHT_U ? "connect-unix"
					  : rule_word(c->explain_need);
}

/* The document: what was asked, whether all is allowed, the answers. */
static int print_json(const struct cli *c, json_t *answers, bool all)
{
	const char *access = access_word(c);
	json_t *doc = json_object();
	size_t len = 0;
	char *s = NULL;

	if (put(doc, "access", json_string(access)) &&
	    put(doc, "allowed", json_boolean(all)) &&
	    put(doc, c->explain_connect ? "ports" : "paths",
		json_incref(answers)))
		s = record_dump(doc, &len);
	json_decref(doc);
	if (!s)
		return -ENOMEM;
	fwrite(s, 1, len, stdout);
	free(s);
	return 0;
}

/* ---- both ---------------------------------------------------------- */

/* Decide on @given, print its line or append its JSON to @answers.
 * Return: 1 allowed, 0 not, -ENOMEM. */
static int explain_one(const struct cli *c, const char *given, json_t *answers)
{
	const struct policy *p = &c->policy;
	char resolved[PATH_BUF];
	unsigned int port = 0;
	struct verdict v = { .err = 0 };
	bool udp = false;
	json_t *o;

	if (c->explain_connect) {
		v.err = parse_port(given, &port, &udp);
		v.why = "not a port (PORT, or udp:PORT)";
		if (!v.err)
			decide_port(p, port, udp, &v);
		if (!answers)
			print_line("connect", given, NULL, &v);
		o = answers ? port_json(given, port, &v) : NULL;
	} else {
		v.err = path_resolve(AT_FDCWD, given, 0, resolved);
		v.why = strerror(-v.err);
		if (!v.err)
			decide_path(p, c->explain_need, resolved, &v);
		if (!answers)
			print_line(access_word(c), given,
				   v.err ? NULL : resolved, &v);
		o = answers ? path_json(p, c->explain_need, given, resolved, &v)
			    : NULL;
	}
	if (answers && (!o || json_array_append_new(answers, o) < 0))
		return -ENOMEM;
	return !v.err && v.allowed;
}

int explain_run(struct cli *c)
{
	char err[512 + PATH_BUF];
	json_t *answers = NULL;
	bool all = true;
	int ret = 0;

	if (roots_build(c, &c->policy, err, sizeof(err))) {
		say_error("%s", err);
		return EXIT_CORDON;
	}
	if (c->json && !(answers = json_array()))
		ret = -ENOMEM;
	for (size_t i = 0; ret >= 0 && i < c->nexplain; i++) {
		ret = explain_one(c, c->explain_args[i], answers);
		all = all && ret == 1;
	}
	if (ret >= 0 && answers)
		ret = print_json(c, answers, all);
	json_decref(answers);
	if (ret < 0) {
		say_error("explain: %s", strerror(-ret));
		return EXIT_CORDON;
	}
	return all ? 0 : 1;
}
