/*
 * summary.c - what the launcher says when the command ends: how many
 * denials were recorded and where, grouped by the rule that refused
 * them, with the paths (or destinations) refused most and the option
 * that would allow each; and which programs ran without the shim
 * (static binaries, other ELF classes; on macOS, SIP-protected ones),
 * whose denials only the kernel saw.  One screen at most; nothing at all when
 * there is nothing to say.
 */
#include <stdio.h>
#include <string.h>

#include "learn.h"
#include "supervise.h"

#define RULES_KEPT  32 /* distinct rules counted */
#define PATHS_KEPT  32 /* distinct paths counted per rule */
#define RULES_SHOWN 5
#define PATHS_SHOWN 4

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
		snprintf(g->rule, sizeof(g->rule), "%s", rule);
	}
	if (!g)
		return; /* counted in the total all the same */
	g->count++;
	for (size_t i = 0; i < g->ntargets && !t; i++)
		if (strcmp(g->targets[i].what, what) == 0)
			t = &g->targets[i];
	if (!t && g->ntargets < PATHS_KEPT) {
		t = &g->targets[g->ntargets++];
		snprintf(t->what, sizeof(t->what), "%s", what);
		snprintf(t->allow, sizeof(t->allow), "%s",
			 field(record, "allow"));
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
static void print_groups(void)
{
	size_t rest = 0;

	qsort(groups, ngroups, sizeof(groups[0]), by_count_group);
	for (size_t i = 0; i < ngroups; i++) {
		struct rule_group *g = &groups[i];
		size_t more = 0;

		if (i >= RULES_SHOWN) {
			rest += g->count;
			continue;
		}
		qsort(g->targets, g->ntargets, sizeof(g->targets[0]),
		      by_count_target);
		fprintf(stderr, "cordon:   %s (%zu):\n", g->rule, g->count);
		for (size_t j = 0; j < g->ntargets; j++) {
			const struct target *t = &g->targets[j];

			if (j >= PATHS_SHOWN) {
				more += t->count;
				continue;
			}
			fprintf(stderr, "cordon:   %6zu  %s%s%s\n", t->count,
				t->what, *t->allow ? "; allow " : "", t->allow);
		}
		if (more)
			fprintf(stderr,
				"cordon:   %6zu  on other paths (see the "
				"log)\n",
				more);
	}
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
		snprintf(s->unshimmed[s->nunshimmed].program,
			 sizeof(s->unshimmed[0].program), "%s", program);
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

void supervise_summary(const struct supervisor *s)
{
	if (s->denials) {
		fprintf(stderr, "cordon: %zu denial%s recorded in %s:\n",
			s->denials, s->denials == 1 ? "" : "s", s->logpath);
		print_groups();
	}
	for (size_t i = 0; i < s->nunshimmed; i++)
		fprintf(stderr,
			"cordon: %s ran without the shim (%s): the kernel "
			"enforced its policy, but its denials are not "
			"explained\n",
			s->unshimmed[i].program, s->unshimmed[i].why);
}
