/*
 * tally.c - what the command's reports said, counted while it runs
 * (tally.h): denials by rule and target, the programs that ran without
 * the shim and why, and the accesses learned (learn.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/proxy/proxy.h"
#include "enforce/report/report.h"
#include "shim/core/rule.h"
#include "shim/core/toolroot.h"

/* The most of @src that fits in @dst, never half a UTF-8 character. */
static void copy_text(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size) {
		n = size - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void tally_init(struct tally *t)
{
	t->denials = t->kernel_denials = 0;
	t->nunshimmed = t->ngroups = 0;
	t->noptions = t->options_lost = 0;
	t->last_option = TALLY_NO_OPTION;
	t->lookups = 0;
	t->nshadowed = 0;
	t->last_lookup = false;
	t->policy = NULL;
}

static const char *field(json_t *record, const char *name)
{
	const char *v = json_string_value(json_object_get(record, name));

	return v ? v : "";
}

static struct tally_group *group_of(struct tally *t, const char *rule)
{
	struct tally_group *g;

	for (size_t i = 0; i < t->ngroups; i++)
		if (strcmp(t->groups[i].rule, rule) == 0)
			return &t->groups[i];
	if (t->ngroups == TALLY_RULES_KEPT)
		return NULL; /* counted in the total all the same */
	g = &t->groups[t->ngroups++];
	copy_text(g->rule, sizeof(g->rule), rule);
	g->count = 0;
	g->ntargets = 0;
	return g;
}

static struct tally_target *target_of(struct tally_group *g, json_t *record,
				      int option)
{
	char what[sizeof(g->targets[0].what)];
	struct tally_target *tg;

	copy_text(what, sizeof(what), field(record, "resolved"));
	if (!*what)
		copy_text(what, sizeof(what), field(record, "destination"));
	if (!*what)
		copy_text(what, sizeof(what), field(record, "variable"));
	for (size_t i = 0; i < g->ntargets; i++)
		if (strcmp(g->targets[i].what, what) == 0 &&
		    g->targets[i].option == option)
			return &g->targets[i];
	if (g->ntargets == TALLY_PATHS_KEPT)
		return NULL; /* counted in the group all the same */
	tg = &g->targets[g->ntargets++];
	memcpy(tg->what, what, sizeof(what));
	tg->option = option;
	tg->count = 0;
	tg->acted = false;
	return tg;
}

/* The rights a flag grants (cli_parse.c): --write and --exec read too, and
 * --write lets the sockets beneath be connected to (policy.c). */
static unsigned int flag_rights(unsigned int need)
{
	if (need == RIGHT_U)
		return RIGHT_U;
	if (need & RIGHT_W)
		return RIGHT_R | RIGHT_W | RIGHT_U;
	if (need & RIGHT_X)
		return RIGHT_R | RIGHT_X;
	return RIGHT_R;
}

static bool same_option(const struct tally_option *a,
			const struct tally_option *b)
{
	return a->kind == b->kind && a->rights == b->rights &&
	       a->port == b->port && a->udp == b->udp &&
	       strcmp(a->path ? a->path : "", b->path ? b->path : "") == 0;
}

/* @o in the options, once; its index, or TALLY_LOST. */
static int option_add(struct tally *t, const struct tally_option *o)
{
	struct tally_option *n;

	for (size_t i = 0; i < t->noptions; i++)
		if (same_option(&t->options[i], o))
			return (int)i;
	if (t->noptions == TALLY_OPTIONS_MAX) {
		t->options_lost++;
		return TALLY_LOST;
	}
	n = &t->options[t->noptions];
	*n = *o;
	n->path = o->path ? strdup(o->path) : NULL;
	n->text = strdup(o->text);
	if ((o->path && !n->path) || !n->text) {
		free(n->path);
		free((char *)n->text);
		t->options_lost++;
		return TALLY_LOST;
	}
	return (int)t->noptions++;
}

/* The built-in profile granting @grant when it is a tool's root. */
static const char *tool_profile(const struct policy *p, const char *grant)
{
	char root[PATH_BUF];
	const struct toolroot *tr =
		p ? toolroot_of(p->home, grant, root) : NULL;

	return tr && strcmp(root, grant) == 0 ? tr->profile : NULL;
}

/* A path's option: from the operation, the need and the resolved path,
 * with the shim's own code, never from the record's text. */
static int path_option(struct tally *t, json_t *record)
{
	static char grant[PATH_BUF], text[2 * PATH_BUF];
	const char *resolved = field(record, "resolved");
	json_t *need = json_object_get(record, "need");
	struct strbuf sb = STRBUF(text, sizeof(text));
	const char *peer = field(record, "peer");
	const char *op = field(record, "operation"), *why;
	struct tally_option o = { .kind = TALLY_PATH };
	unsigned int n, flag;

	if (!*resolved || !json_is_integer(need))
		return TALLY_NO_OPTION;
	n = (unsigned int)json_integer_value(need) & (RIGHT_ALL | RIGHT_U);
	/* a link's other end decides where both can be (a forged one
	 * names no more than a grant of what the record names) */
	if (!*peer)
		peer = NULL;
	if (!rule_grant(t->policy, op, n, resolved, peer, grant, &flag)) {
		why = rule_why_none(t->policy, op, n, resolved, peer);
		return why && strcmp(why, RULE_NO_LINK) == 0 ? TALLY_NO_LINK
							     : TALLY_NO_OPTION;
	}
	if (!rule_put_flag(&sb, flag, grant))
		return TALLY_NO_OPTION;
	o.rights = flag_rights(flag);
	o.path = grant;
	o.text = text;
	o.profile = tool_profile(t->policy, grant);
	o.wide = strcmp(grant, "/") == 0 || strcmp(grant, "/proc") == 0 ||
		 (t->policy && t->policy->home &&
		  strcmp(grant, t->policy->home) == 0);
	return option_add(t, &o);
}

/* "with --allow-host HOST[:PORT]": the host checked as cli_parse.c checks the
 * flag, and quoted for the shell where it holds a glob's characters
 * ("*.example.com", "[::1]:8080"). */
static int host_option(struct tally *t, const char *spec)
{
	struct tally_option o = { .kind = TALLY_HOST };
	struct proxy_rule rule;
	char text[PROXY_HOST_MAX + 32];
	bool quote = strpbrk(spec, "*[]") != NULL;

	if (strlen(spec) >= PROXY_HOST_MAX || proxy_rule_parse(spec, &rule))
		return TALLY_NO_OPTION;
	snprintf(text, sizeof(text), "--allow-host %s%s%s", quote ? "'" : "",
		 spec, quote ? "'" : "");
	o.path = (char *)spec;
	o.text = text;
	return option_add(t, &o);
}

/* A network record's option, read as a kind and a port: "with --net",
 * "with --connect PORT", "with --bind PORT" (PORT or udp:PORT), or a
 * host: "with --allow-host HOST[:PORT]", and nothing else. */
static int net_option(struct tally *t, json_t *record)
{
	static const struct {
		const char *prefix;
		int kind;
	} kinds[] = { { "with --connect ", TALLY_CONNECT },
		      { "with --bind ", TALLY_BIND } };
	const char *allow = field(record, "allow");
	struct tally_option o = { .kind = TALLY_NET, .text = "--net" };
	char text[32];

	if (strcmp(allow, "with --net") == 0)
		return option_add(t, &o);
	if (strncmp(allow, "with --allow-host ", 18) == 0)
		return host_option(t, allow + 18);
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(kinds[i].prefix), digits;
		const char *d;

		/* the prefix first: a shorter text ends before allow + n */
		if (strncmp(allow, kinds[i].prefix, n) != 0)
			continue;
		d = allow + n;
		o.udp = strncmp(d, "udp:", 4) == 0;
		d += o.udp ? 4 : 0;
		digits = strspn(d, "0123456789");
		if (!digits || digits > 5 || d[digits] ||
		    (digits > 1 && d[0] == '0') || strtoul(d, NULL, 10) > 65535)
			continue;
		o.kind = kinds[i].kind;
		o.port = (unsigned int)strtoul(d, NULL, 10);
		snprintf(text, sizeof(text), "%s%s%u", kinds[i].prefix + 5,
			 o.udp ? "udp:" : "", o.port);
		o.text = text;
		return option_add(t, &o);
	}
	return TALLY_NO_GRANT;
}

/* "-e NAME" for a variable the scrub removed (getenv): the name as
 * record.c let it in. */
static int var_option(struct tally *t, const char *name)
{
	struct tally_option o = { .kind = TALLY_ENV };
	char text[300];

	if (strlen(name) > 255)
		return TALLY_NO_OPTION;
	snprintf(text, sizeof(text), "-e %s", name);
	o.path = (char *)name;
	o.text = text;
	return option_add(t, &o);
}

void tally_shadowed(struct tally *t, const char *dir)
{
	if (t->nshadowed < TALLY_SHADOWED_MAX && strlen(dir) < 512)
		memcpy(t->shadowed[t->nshadowed++], dir, strlen(dir) + 1);
}

/* Is @path right in a PATH entry that shadows commands?  A look-up
 * there made the command run another program than the user's. */
static bool in_shadowed(const struct tally *t, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	for (size_t i = 0; n && i < t->nshadowed; i++)
		if (strlen(t->shadowed[i]) == n &&
		    strncmp(t->shadowed[i], path, n) == 0)
			return true;
	return false;
}

static void count(struct tally *t, json_t *record)
{
	const char *var = field(record, "variable");
	int option = *var			     ? var_option(t, var)
		     : *field(record, "destination") ? net_option(t, record)
						     : path_option(t, record);
	struct tally_group *g = group_of(t, field(record, "rule"));
	struct tally_target *tg;

	bool probe = json_is_true(json_object_get(record, "probe")) &&
		     !in_shadowed(t, field(record, "resolved"));

	t->last_option = option;
	t->lookups += probe;
	if (option >= 0 && !probe)
		t->options[option].acted = true;
	if (!g)
		return;
	g->count++;
	tg = target_of(g, record, option);
	if (tg) {
		tg->count++;
		tg->acted |= !probe;
	}
}

/*
 * Why @rule (an "exec-unshimmed" record's) kept the shim out, for the
 * summary.  The macOS shim names SIP in it (exec_env_darwin.c); every
 * other reason (Linux: static binaries, other ELF classes and machines)
 * reads as before.
 */
static const char *unshimmed_why(const char *rule)
{
	if (strstr(rule, "(SIP)"))
		return "SIP: Apple's binaries drop DYLD_INSERT_LIBRARIES; "
		       "Seatbelt alone holds there";
	return "static or foreign binary";
}

static void note_unshimmed(struct tally *t, const char *program,
			   const char *rule)
{
	for (size_t i = 0; i < t->nunshimmed; i++)
		if (strcmp(t->unshimmed[i].program, program) == 0)
			return;
	if (t->nunshimmed < TALLY_UNSHIMMED_MAX) {
		copy_text(t->unshimmed[t->nunshimmed].program,
			  sizeof(t->unshimmed[0].program), program);
		t->unshimmed[t->nunshimmed++].why = unshimmed_why(rule);
	}
}

/* Who takes the "learn" records (cordon learn: learn.c), if anyone. */
static void (*learner)(json_t *record);

void tally_learn_to(void (*note)(json_t *record))
{
	learner = note;
}

void tally_note(struct tally *t, json_t *record)
{
	const char *op = field(record, "operation");
	const char *verdict = field(record, "verdict");
	const char *path = field(record, "path");

	if (*path && strcmp(op, "exec-unshimmed") == 0) {
		note_unshimmed(t, path, field(record, "rule"));
		return;
	}
	if (strcmp(verdict, "learn") == 0) {
		if (learner)
			learner(record);
		return;
	}
	if (strcmp(verdict, "deny") != 0)
		return;
	t->denials++;
	if (strcmp(field(record, "layer"), "kernel") == 0)
		t->kernel_denials++;
	t->last_lookup =
		*field(record, "resolved") &&
		json_integer_value(json_object_get(record, "need")) == 0;
	count(t, record);
}

/* Does a protection lie at, above or below @path?  A root above it
 * does not lift it: an option there is kept. */
static bool near_protection(const struct policy *p, const char *path)
{
	for (size_t i = 0; p && i < p->nroots; i++)
		if (p->roots[i].origin == ORIGIN_PROTECTED &&
		    (path_is_within(p->roots[i].path, path) ||
		     path_is_within(path, p->roots[i].path)))
			return true;
	return false;
}

static bool has_kind(const struct tally *t, int kind)
{
	for (size_t i = 0; i < t->noptions; i++)
		if ((int)t->options[i].kind == kind)
			return true;
	return false;
}

/* Does another option of @t grant all that options[@i] does? */
static bool implied(const struct tally *t, size_t i)
{
	const struct tally_option *a = &t->options[i];

	if (a->kind == TALLY_ENV)
		return false;
	if (a->kind != TALLY_PATH)
		return a->kind != TALLY_NET && has_kind(t, TALLY_NET);
	if (near_protection(t->policy, a->path))
		return false;
	for (size_t j = 0; j < t->noptions; j++) {
		const struct tally_option *b = &t->options[j];

		if (j != i && b->kind == TALLY_PATH && tally_needed(t, j) &&
		    (b->rights & a->rights) == a->rights &&
		    path_is_within(a->path, b->path))
			return true;
	}
	return false;
}

/* @s after what @out holds (sized by tally_options()). */
static void put(char *out, const char *s)
{
	size_t at = strlen(out);

	memcpy(out + at, s, strlen(s) + 1);
}

/* The ports of @kind, in one option: " --connect 80,443,udp:53" (the
 * TCP ones first: "udp:" holds for the items after it). */
static void put_ports(const struct tally *t, int kind, char *out)
{
	size_t n = 0;
	char port[16];

	for (int udp = 0; udp < 2; udp++) {
		for (size_t i = 0; i < t->noptions; i++) {
			const struct tally_option *o = &t->options[i];

			if ((int)o->kind != kind || o->udp != udp ||
			    !tally_needed(t, i) || implied(t, i))
				continue;
			put(out, n++			 ? ","
				 : kind == TALLY_CONNECT ? " --connect "
							 : " --bind ");
			snprintf(port, sizeof(port), "%s%u", udp ? "udp:" : "",
				 o->port);
			put(out, port);
		}
	}
}

bool tally_needed(const struct tally *t, size_t i)
{
	/* a look-up is no reason, unless the run's last refusal was one:
	 * it may be what stopped the command */
	return t->options[i].acted || (int)i == t->last_option;
}

bool tally_is_own(const char *path, const char *const own[])
{
	for (size_t i = 0; path && own && own[i]; i++)
		if (path_is_within(path, own[i]))
			return true;
	return false;
}

char *tally_options(const struct tally *t, const char *const own[])
{
	size_t len = 32;
	char *out;

	for (size_t i = 0; i < t->noptions; i++)
		len += strlen(t->options[i].text) + 1;
	out = calloc(1, len);
	if (!out)
		return NULL;
	for (size_t i = 0; i < t->noptions; i++) {
		const struct tally_option *o = &t->options[i];

		if ((o->kind == TALLY_PATH || o->kind == TALLY_NET ||
		     o->kind == TALLY_HOST || o->kind == TALLY_ENV) &&
		    tally_needed(t, i) && !implied(t, i) &&
		    !tally_is_own(o->path, own)) {
			put(out, " ");
			put(out, o->text);
		}
	}
	put_ports(t, TALLY_CONNECT, out);
	put_ports(t, TALLY_BIND, out);
	if (!*out) {
		free(out);
		return NULL;
	}
	memmove(out, out + 1, strlen(out)); /* the leading space */
	return out;
}

static int by_count_group(const void *a, const void *b)
{
	const struct tally_group *x = a, *y = b;

	return (x->count < y->count) - (x->count > y->count);
}

static int by_count_target(const void *a, const void *b)
{
	const struct tally_target *x = a, *y = b;

	return (x->count < y->count) - (x->count > y->count);
}

void tally_sort(struct tally *t)
{
	qsort(t->groups, t->ngroups, sizeof(t->groups[0]), by_count_group);
	for (size_t i = 0; i < t->ngroups; i++)
		qsort(t->groups[i].targets, t->groups[i].ntargets,
		      sizeof(t->groups[i].targets[0]), by_count_target);
}

void tally_free(struct tally *t)
{
	for (size_t i = 0; i < t->noptions; i++) {
		free(t->options[i].path);
		free((char *)t->options[i].text);
	}
	t->noptions = 0;
}
