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
#include <stdlib.h>
#include <string.h>

#include "enforce/base/base.h"
#include "enforce/report/report.h"
#include "shim/core/rule.h"

#define RULES_SHOWN 5
#define PATHS_SHOWN 4
/* record_escape() makes at most 4 bytes of 1 (\xHH) */
#define ESCAPED_MAX    (4 * 300 + 1)
#define ESCAPE(buf, s) record_escape(buf, sizeof(buf), s)

/* "; allow with OPTION" for @tg, into @buf: the option computed
 * outside (tally.c), quoted by sb_shell(): no raw control byte, and a
 * backslash in it is bash's, so it is printed as it is. */
static const char *allow(const struct tally *t, const struct tally_target *tg,
			 const char *const own[], char buf[ESCAPED_MAX])
{
	if (tg->option == TALLY_NO_OPTION)
		return "; " RULE_NO_OPTION;
	if (tg->option == TALLY_NO_LINK)
		return "; " RULE_NO_LINK;
	if (tg->option == TALLY_NO_GRANT)
		return "; no option allows this";
	if (tg->option < 0 || (size_t)tg->option >= t->noptions)
		return "";
	if (tally_is_own(t->options[tg->option].path, own))
		return "; " RULE_CORDONS;
	const struct tally_option *o = &t->options[tg->option];
	char said[128 + PATH_BUF / 8];

	/* what is said of it comes first: the line ends with the option,
	 * to paste as it is */
	said[0] = '\0';
	if (!tg->acted && !tally_needed(t, (size_t)tg->option))
		snprintf(said, sizeof(said),
			 " (a look-up the command went on from)");
	else if (o->profile)
		snprintf(said, sizeof(said),
			 " (the built-in profile %s holds it: -p %s)",
			 o->profile, o->profile);
	else if (o->wide)
		snprintf(said, sizeof(said),
			 " (WARNING: the option grants "
			 "all of %.200s)",
			 o->path);
	snprintf(buf, ESCAPED_MAX, "%s; allow with %s", said, o->text);
	return buf;
}

/* The denials, grouped by rule, most frequent first. */
static void print_groups(FILE *out, struct tally *t, const char *const own[])
{
	char esc[ESCAPED_MAX], esc2[ESCAPED_MAX];
	size_t rest = t->denials;

	tally_sort(t);
	for (size_t i = 0; i < t->ngroups && i < RULES_SHOWN; i++) {
		const struct tally_group *g = &t->groups[i];
		/* counted against the group's own total, not the targets
		 * kept: past PATHS_KEPT distinct ones they are not */
		size_t more = g->count;

		rest -= g->count;
		fprintf(out, "cordon:   %s (%zu):\n", ESCAPE(esc, g->rule),
			g->count);
		for (size_t j = 0; j < g->ntargets && j < PATHS_SHOWN; j++) {
			const struct tally_target *tg = &g->targets[j];

			more -= tg->count;
			fprintf(out, "cordon:   %6zu  %s%s\n", tg->count,
				ESCAPE(esc, tg->what), allow(t, tg, own, esc2));
		}
		if (more)
			fprintf(out,
				"cordon:   %6zu  on other paths (see the "
				"log)\n",
				more);
	}
	/* every denial, under rules past RULES_KEPT too */
	if (rest)
		fprintf(out,
			"cordon:   and %zu more under other rules (see the "
			"log)\n",
			rest);
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* The header: never "recorded" for what the log did not take; @n
 * denials, @own of them the supervisor's, @lost not in the log at
 * @logpath; @call: "" or " (call N of session ID)". */
static void print_header(FILE *out, size_t n, size_t own, size_t lost,
			 const char *logpath, const char *call)
{
	fprintf(out, "cordon: %zu denial%s%s reported by %s, ", n, plural(n),
		call,
		own == 0   ? "the command's processes (the shim)"
		: own == n ? "cordon's supervisor (the broker, the proxy)"
			   : "the command's processes (the shim) and cordon's "
			     "supervisor (the broker, the proxy)");
	if (!lost)
		fprintf(out, "recorded in %s:\n", logpath);
	else if (lost < n)
		fprintf(out, "%zu recorded in %s:\n", n - lost, logpath);
	else
		fprintf(out, "none recorded in %s:\n", logpath);
}

/* What the log lacks of each source (@lost, BUDGET_SOURCES of them:
 * a run's, a session's call's), and why: @scale times a run's limits,
 * @per "run" or "call". */
static void print_drops(FILE *out, const struct budget_count *lost,
			size_t scale, const char *per)
{
	const struct budget_count *c = &lost[BUDGET_SHIM];

	if (c->over + c->repeats)
		fprintf(out,
			"cordon: %zu report%s dropped (over the limit of %zu "
			"records or %zu MiB per %s)\n",
			c->over + c->repeats, plural(c->over + c->repeats),
			BUDGET_SHIM_RECORDS * scale,
			(size_t)(BUDGET_SHIM_BYTES * scale) >> 20, per);
	if (c->rejected)
		fprintf(out,
			"cordon: %zu report%s rejected (not valid records)\n",
			c->rejected, plural(c->rejected));
	for (int src = BUDGET_SHIM + 1; src < BUDGET_SOURCES; src++) {
		c = &lost[src];
		if (!c->repeats && !c->over)
			continue;
		fprintf(out,
			"cordon: %zu record%s of the %s not in the log: %zu "
			"repeat%s of one recorded, counted in its \"dropped\" "
			"record; %zu over the limit of %zu records or %zu MiB "
			"per %s\n",
			c->repeats + c->over, plural(c->repeats + c->over),
			budget_name(src), c->repeats, plural(c->repeats),
			c->over, BUDGET_OWN_RECORDS * scale,
			(size_t)(BUDGET_OWN_BYTES * scale) >> 20, per);
	}
}

/* What the log lacks, and why. */
static void print_losses(FILE *out, const struct supervisor *s)
{
	if (s->unwritten)
		fprintf(out,
			"cordon: %zu record%s could not be written to "
			"%s: %s\n",
			s->unwritten, plural(s->unwritten), s->logpath,
			strerror(s->write_err));
	print_drops(out, s->budget.all, s->budget.scale,
		    s->budget.scale > 1 ? "session" : "run");
}

/* Does the summed-up line hold an option granting all of /, $HOME or
 * /proc? */
static bool wide_in(const struct tally *t, const char *const own[])
{
	for (size_t i = 0; i < t->noptions; i++)
		if (t->options[i].wide && tally_needed(t, i) &&
		    !tally_is_own(t->options[i].path, own))
			return true;
	return false;
}

/* Did the summed-up line leave a look-up's option out? */
static bool skipped_lookups(const struct tally *t)
{
	for (size_t i = 0; i < t->noptions; i++)
		if (!tally_needed(t, i))
			return true;
	return false;
}

/*
 * The last word: every option that allows what was refused, in one line
 * to paste (the harness parses it: "cordon: allow all of it with: ").
 */
static bool print_options(FILE *out, const struct tally *t,
			  const char *const own[])
{
	char *line = t->denials ? tally_options(t, own) : NULL;
	bool any = line != NULL;

	/* A program that cannot see a path gives up before it says what
	 * it meant to do with it (chmod, chown): when the run's last
	 * refusal was such a look-up, the next run, with the path seen,
	 * may meet the next one.  Learning runs it all at once. */
	if (line && t->last_lookup)
		fprintf(out,
			"cordon: a refused look-up may have stopped the "
			"command before it acted; to find every grant in one "
			"run: cordon learn -o PROFILE -- COMMAND\n");
	/* what is said of the line comes before it: it stays the last */
	if (line && wide_in(t, own))
		fprintf(out,
			"cordon: WARNING: the line below grants all of /, "
			"$HOME or /proc for one refusal; the program may need "
			"less (cordon learn finds out)\n");
	if (line && skipped_lookups(t))
		fprintf(out,
			"cordon: look-ups the command went on from (a stat, "
			"an access(), a bind to port 0) are not in the line "
			"below: it may not need them\n");
	else if (t->denials && !line && skipped_lookups(t))
		fprintf(out,
			"cordon: each refusal was a look-up the command went "
			"on from (a stat, an access(), a bind to port 0): it "
			"may need none of them\n");
	if (line)
		fprintf(out, "cordon: allow all of it with: %s\n", line);
	if (line && t->options_lost)
		fprintf(out,
			"cordon: and %zu more option%s past the %d kept (see "
			"the log)\n",
			t->options_lost, plural(t->options_lost),
			TALLY_OPTIONS_MAX);
	free(line);
	return any;
}

/* The denials of @t, which programs ran unshimmed, the options. */
static void print_tally(FILE *out, struct tally *t, const char *const own[])
{
	char esc[ESCAPED_MAX];

	if (t->denials)
		print_groups(out, t, own);
	for (size_t i = 0; i < t->nunshimmed; i++)
		fprintf(out,
			"cordon: %s ran without the shim (%s): the kernel "
			"enforced its policy, but its denials are not "
			"explained\n",
			ESCAPE(esc, t->unshimmed[i].program),
			t->unshimmed[i].why);
}

/* cordon's own audit log and state, which no option grants, in @own. */
static void own_paths(const struct supervisor *s, const char *own[3],
		      char dir[PATH_BUF])
{
	size_t n = 0;

	own[0] = own[1] = own[2] = NULL;
	if (s->logpath[0])
		own[n++] = s->logpath;
	if (supervise_socket_dir(s, dir) == 0)
		own[n++] = dir;
}

void summary_print(struct supervisor *s)
{
	char dir[PATH_BUF];
	const char *own[3];

	own_paths(s, own, dir);
	if (s->tally.denials)
		print_header(stderr, s->tally.denials, s->own_denials,
			     s->denials_unwritten, s->logpath, "");
	print_tally(stderr, &s->tally, own);
	if (s->sigsys == SUPERVISE_KILLED_BY_SIGSYS)
		fprintf(stderr,
			"cordon: the kernel killed the command with SIGSYS: "
			"%s\n",
			SUPERVISE_SIGSYS_RULE);
	else if (s->sigsys == SUPERVISE_EXIT_159)
		fprintf(stderr, "cordon: %s\n", SUPERVISE_SIGSYS_RELAYED);
	print_losses(stderr, s);
	print_options(stderr, &s->tally, own);
}

char *summary_of_call(const struct supervisor *s, struct tally *t,
		      size_t own_denials, const char *session, uint32_t call,
		      const struct budget_count lost[BUDGET_SOURCES])
{
	bool drops = false;
	char dir[PATH_BUF], which[128];
	const char *own[3];
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	for (int src = 0; lost && src < BUDGET_SOURCES; src++)
		drops |= budget_lost(&lost[src]);
	if (!drops && (!t || (!t->denials && !t->nunshimmed)))
		return NULL;
	out = open_memstream(&text, &len);
	if (!out)
		return NULL;
	own_paths(s, own, dir);
	snprintf(which, sizeof(which), " (call %u of session %s)", call,
		 session);
	if (t && t->denials)
		print_header(out, t->denials, own_denials, 0, s->logpath,
			     which);
	if (t)
		print_tally(out, t, own);
	if (drops)
		print_drops(out, lost, 1, "call");
	if (t && print_options(out, t, own))
		fprintf(out, "cordon: a session's policy is its own from its "
			     "start: start one with these options (cordon "
			     "session start OPTIONS)\n");
	if (fclose(out) != 0 || !len) {
		free(text);
		return NULL;
	}
	return text;
}
