/*
 * tally.h - what the command's reports said, counted while it runs:
 * supervise.c notes each report it keeps, summary.c prints the count
 * when the command ends.
 *
 * Every string here came from inside the sandbox: it is kept as text
 * and escaped only where it is printed.
 */
#ifndef CORDON_TALLY_H
#define CORDON_TALLY_H

#include <jansson.h>
#include <stddef.h>

#define TALLY_UNSHIMMED_MAX 16
#define TALLY_RULES_KEPT    32 /* distinct rules counted */
#define TALLY_PATHS_KEPT    32 /* distinct paths counted per rule */

struct tally_target {
	char what[256];	 /* the resolved path, or the destination */
	char allow[300]; /* "with --read /x" */
	size_t count;
};

struct tally_group {
	char rule[256];
	size_t count; /* every denial under the rule, kept targets or not */
	struct tally_target targets[TALLY_PATHS_KEPT];
	size_t ntargets;
};

struct tally {
	size_t denials;	       /* of the kept reports, denials */
	size_t kernel_denials; /* of them, observed as the kernel's */
	struct {
		char program[256];
		const char *why; /* "static or foreign binary", "SIP: ..." */
	} unshimmed[TALLY_UNSHIMMED_MAX];
	size_t nunshimmed;
	struct tally_group groups[TALLY_RULES_KEPT];
	size_t ngroups;
};

/* Start counting: the counts only.  A group, a target or a program is
 * set up as it is taken, so the tables (570 KB) are not touched before
 * a report needs them: clearing them cost every start a quarter of a
 * millisecond in page faults. */
void tally_init(struct tally *t);

/* Count @record, a report kept from the shim: a denial under its rule
 * and target, a program run without the shim, or a learned access
 * (learn.h). */
void tally_note(struct tally *t, json_t *record);

/* Put the groups, and the targets of each, most frequent first. */
void tally_sort(struct tally *t);

#endif
