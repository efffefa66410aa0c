/*
 * tally.c - what the command's reports said, counted while it runs
 * (tally.h): denials by rule and target, the programs that ran without
 * the shim and why, and the accesses learned (learn.c).
 */
#include <stdlib.h>
#include <string.h>

#include "enforce/learn.h"
#include "enforce/tally.h"

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

static struct tally_target *target_of(struct tally_group *g, json_t *record)
{
	const char *what = field(record, "resolved");
	struct tally_target *tg;

	if (!*what)
		what = field(record, "destination");
	for (size_t i = 0; i < g->ntargets; i++)
		if (strcmp(g->targets[i].what, what) == 0)
			return &g->targets[i];
	if (g->ntargets == TALLY_PATHS_KEPT)
		return NULL; /* counted in the group all the same */
	tg = &g->targets[g->ntargets++];
	copy_text(tg->what, sizeof(tg->what), what);
	copy_text(tg->allow, sizeof(tg->allow), field(record, "allow"));
	tg->count = 0;
	return tg;
}

static void count(struct tally *t, json_t *record)
{
	struct tally_group *g = group_of(t, field(record, "rule"));
	struct tally_target *tg;

	if (!g)
		return;
	g->count++;
	tg = target_of(g, record);
	if (tg)
		tg->count++;
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
		learn_note(record);
		return;
	}
	if (strcmp(verdict, "deny") != 0)
		return;
	t->denials++;
	if (strcmp(field(record, "layer"), "kernel") == 0)
		t->kernel_denials++;
	count(t, record);
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
