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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shim/core/policy.h"

#define TALLY_UNSHIMMED_MAX 16
#define TALLY_RULES_KEPT    32	/* distinct rules counted */
#define TALLY_PATHS_KEPT    32	/* distinct paths counted per rule */
#define TALLY_OPTIONS_MAX   256 /* distinct options kept */
#define TALLY_PORTS_MAX	    64	/* as the policy's port lists */

/* No option allows the target (RULE_NO_OPTION), or it was not kept. */
#define TALLY_NO_OPTION (-1)
#define TALLY_LOST	(-2)
#define TALLY_NO_LINK	(-3) /* RULE_NO_LINK: a hard link across mounts */
/* No option, for a reason of the record's own (a raw socket, an
 * abstract UNIX socket of a process outside): its rule says it. */
#define TALLY_NO_GRANT (-4)

struct tally_target {
	char what[256]; /* the resolved path, or the destination */
	int option;	/* in tally.options, or TALLY_NO_OPTION, TALLY_LOST */
	size_t count;
};

/*
 * An option that allows a denial, computed outside from the record's
 * operation, need and resolved path (rule_put_option(), the shim's own
 * code) or from its network option read as a port: never the record's
 * text, which came from inside.
 */
struct tally_option {
	enum {
		TALLY_PATH,
		TALLY_NET,
		TALLY_CONNECT,
		TALLY_BIND,
		TALLY_HOST
	} kind;
	unsigned int rights; /* a path's: the flag's RIGHT_* */
	char *path;	   /* a path's, canonical; a host's rule (allocated) */
	const char *text;  /* "--write '/a b'", "--connect 443" (allocated) */
	unsigned int port; /* TALLY_CONNECT, TALLY_BIND */
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
	bool last_lookup;      /* the last of them a path only to be seen */
	struct {
		char program[256];
		const char *why; /* "static or foreign binary", "SIP: ..." */
	} unshimmed[TALLY_UNSHIMMED_MAX];
	size_t nunshimmed;
	struct tally_group groups[TALLY_RULES_KEPT];
	size_t ngroups;
	/* the run's policy (its protections decide an option), set by the
	 * launcher before the first report; NULL: none known */
	const struct policy *policy;
	struct tally_option options[TALLY_OPTIONS_MAX];
	size_t noptions;
	size_t options_lost; /* distinct options past TALLY_OPTIONS_MAX */
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

/* Hand every "learn" record tally_note() sees to @note (NULL: drop
 * them): `cordon learn` (learn.c) registers itself here, so that the
 * reports never call up into it. */
void tally_learn_to(void (*note)(json_t *record));

/* Does @path lie in one of @own (NULL-ended: cordon's audit log and
 * state), which no option grants? */
bool tally_is_own(const char *path, const char *const own[]);

/**
 * tally_options - every option of @t that no other implies (a root
 * grants the union of the rights of every root above a path: a --write
 * of a directory implies a --read below it; an option naming or lying
 * below a protection is kept, a root above one does not lift it) and
 * that names nothing in @own (tally_is_own()), the ports of each kind in
 * one list, separated by spaces: "--read /a --write '/b c' --connect
 * 80,443".  Free with free().
 * Return: the text, or NULL when there is none (or no memory).
 */
char *tally_options(const struct tally *t, const char *const own[]);

/* Free what the options of @t hold (a tally that does not live until
 * the end: a session's call's). */
void tally_free(struct tally *t);

/* Put the groups, and the targets of each, most frequent first. */
void tally_sort(struct tally *t);

#endif
