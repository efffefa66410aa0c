/*
 * summary.c - what the launcher says when the command ends: how many
 * denials the command's processes reported and where they were
 * recorded, grouped by the rule that refused them, with the paths (or
 * destinations) refused most and the option that would allow each;
 * which programs ran without the shim (static binaries, other ELF
 * classes; on macOS, SIP-protected ones), whose denials only the
 * kernel saw; a kill by the seccomp filter; and what the log lacks
 * (reports dropped, rejected or not written).  One screen at most;
 * nothing at all when there is nothing to say.
 *
 * Every string here came from inside the sandbox: it never reaches the
 * terminal but through record_escape().
 */
#include <stdio.h>
#include <string.h>

#include "enforce/learn.h"
#include "enforce/record.h"
#include "enforce/supervise.h"

#define RULES_KEPT  32 /* distinct rules counted */
#define PATHS_KEPT  32 /* distinct paths counted per rule */
#define RULES_SHOWN 5
#define PATHS_SHOWN 4
/* record_escape() makes at most 4 bytes of 1 (\xHH) */
#define ESCAPED_MAX    (4 * 300 + 1)
#define ESCAPE(buf, s) record_escape(buf, sizeof(buf), s)

struct target {
	char what[256];	 /* the resolved path, or the destination */
	char allow[300]; /* "with --read /x" */
	size_t count;
};

struct rule_group {
	char rule[256];
	size_t count;
	struct target targets[PATHS_KEPT];
	size_t ntargets;
};

static struct rule_group groups[RULES_KEPT];
static size_t ngroups;

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

static const char *field(json_t *record, const char *name)
{
	const char *v = json_string_value(json_object_get(record, name));

	return v ? v : "";
}

static void count(json_t *record)
{
	const char *rule = field(record, "rule");
	const char *what = field(record, "resolved");
	struct rule_group *g = NULL;
	struct target *t = NULL;

	if (!*what)
		what = field(record, "destination");
	for (size_t i = 0; i < ngroups && !g; i++)
		if (strcmp(groups[i].rule, rule) == 0)
			g = &groups[i];
	if (!g && ngroups < RULES_KEPT) {
		g = &groups[ngroups++];
		copy_text(g->rule, sizeof(g->rule), rule);
	}
	if (!g)
		return; /* counted in the total all the same */
	g->count++;
	for (size_t i = 0; i < g->ntargets && !t; i++)
		if (strcmp(g->targets[i].what, what) == 0)
			t = &g->targets[i];
	if (!t && g->ntargets < PATHS_KEPT) {
		t = &g->targets[g->ntargets++];
		copy_text(t->what, sizeof(t->what), what);
		copy_text(t->allow, sizeof(t->allow), field(record, "allow"));
	}
	if (t)
		t->count++;
}

static int by_count_group(const void *a, const void *b)
{
	const struct rule_group *x = a, *y = b;

	return (x->count < y->count) - (x->count > y->count);
}

static int by_count_target(const void *a, const void *b)
{
	const struct target *x = a, *y = b;

	return (x->count < y->count) - (x->count > y->count);
}

/* The denials, grouped by rule, most frequent first. */
static void print_groups(size_t total)
{
	char esc[ESCAPED_MAX], esc2[ESCAPED_MAX];
	size_t rest = total;

	qsort(groups, ngroups, sizeof(groups[0]), by_count_group);
	for (size_t i = 0; i < ngroups && i < RULES_SHOWN; i++) {
		struct rule_group *g = &groups[i];
		/* counted against the group's own total, not the targets
		 * kept: past PATHS_KEPT distinct ones they are not */
		size_t more = g->count;

		rest -= g->count;
		qsort(g->targets, g->ntargets, sizeof(g->targets[0]),
		      by_count_target);
		fprintf(stderr, "cordon:   %s (%zu):\n", ESCAPE(esc, g->rule),
			g->count);
		for (size_t j = 0; j < g->ntargets && j < PATHS_SHOWN; j++) {
			const struct target *t = &g->targets[j];

			more -= t->count;
			fprintf(stderr, "cordon:   %6zu  %s%s%s\n", t->count,
				ESCAPE(esc, t->what),
				*t->allow ? "; allow " : "",
				ESCAPE(esc2, t->allow));
		}
		if (more)
			fprintf(stderr,
				"cordon:   %6zu  on other paths (see the "
				"log)\n",
				more);
	}
	/* every denial, under rules past RULES_KEPT too */
	if (rest)
		fprintf(stderr,
			"cordon:   and %zu more under other rules (see the "
			"log)\n",
			rest);
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

static void note_unshimmed(struct supervisor *s, const char *program,
			   const char *rule)
{
	for (size_t i = 0; i < s->nunshimmed; i++)
		if (strcmp(s->unshimmed[i].program, program) == 0)
			return;
	if (s->nunshimmed < SUPERVISE_UNSHIMMED_MAX) {
		copy_text(s->unshimmed[s->nunshimmed].program,
			  sizeof(s->unshimmed[0].program), program);
		s->unshimmed[s->nunshimmed++].why = unshimmed_why(rule);
	}
}

void supervise_note(struct supervisor *s, json_t *record)
{
	const char *op =
		json_string_value(json_object_get(record, "operation"));
	const char *verdict =
		json_string_value(json_object_get(record, "verdict"));
	const char *layer = json_string_value(json_object_get(record, "layer"));
	const char *path = json_string_value(json_object_get(record, "path"));

	if (op && path && strcmp(op, "exec-unshimmed") == 0) {
		note_unshimmed(s, path, field(record, "rule"));
		return;
	}
	if (verdict && strcmp(verdict, "learn") == 0) {
		learn_note(record);
		return;
	}
	if (!verdict || strcmp(verdict, "deny") != 0)
		return;
	s->denials++;
	if (layer && strcmp(layer, "kernel") == 0)
		s->kernel_denials++;
	count(record);
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* The header: never "recorded" for what the log did not take. */
static void print_header(const struct supervisor *s)
{
	size_t n = s->denials, lost = s->denials_unwritten;

	fprintf(stderr,
		"cordon: %zu denial%s reported by the command's processes "
		"(the shim), ",
		n, plural(n));
	if (!lost)
		fprintf(stderr, "recorded in %s:\n", s->logpath);
	else if (lost < n)
		fprintf(stderr, "%zu recorded in %s:\n", n - lost, s->logpath);
	else
		fprintf(stderr, "none recorded in %s:\n", s->logpath);
}

/* What the log lacks, and why. */
static void print_losses(const struct supervisor *s)
{
	if (s->unwritten)
		fprintf(stderr,
			"cordon: %zu record%s could not be written to "
			"%s: %s\n",
			s->unwritten, plural(s->unwritten), s->logpath,
			strerror(s->write_err));
	if (s->dropped)
		fprintf(stderr,
			"cordon: %zu report%s dropped (over the limit of %d "
			"records or %u MiB per run)\n",
			s->dropped, plural(s->dropped), SUPERVISE_RECORDS_MAX,
			SUPERVISE_BYTES_MAX >> 20);
	if (s->rejected)
		fprintf(stderr,
			"cordon: %zu report%s rejected (not valid records)\n",
			s->rejected, plural(s->rejected));
}

void supervise_summary(const struct supervisor *s)
{
	char esc[ESCAPED_MAX];

	if (s->denials) {
		print_header(s);
		print_groups(s->denials);
	}
	for (size_t i = 0; i < s->nunshimmed; i++)
		fprintf(stderr,
			"cordon: %s ran without the shim (%s): the kernel "
			"enforced its policy, but its denials are not "
			"explained\n",
			ESCAPE(esc, s->unshimmed[i].program),
			s->unshimmed[i].why);
	if (s->sigsys == SUPERVISE_KILLED_BY_SIGSYS)
		fprintf(stderr,
			"cordon: the kernel killed the command with SIGSYS: "
			"%s\n",
			SUPERVISE_SIGSYS_RULE);
	else if (s->sigsys == SUPERVISE_EXIT_159)
		fprintf(stderr, "cordon: %s\n", SUPERVISE_SIGSYS_RELAYED);
	print_losses(s);
}
