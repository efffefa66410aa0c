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

#include "enforce/record.h"
#include "enforce/summary.h"
#include "enforce/tally.h"
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
	snprintf(buf, ESCAPED_MAX, "; allow with %s",
		 t->options[tg->option].text);
	return buf;
}

/* The denials, grouped by rule, most frequent first. */
static void print_groups(struct tally *t, const char *const own[])
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
		fprintf(stderr, "cordon:   %s (%zu):\n", ESCAPE(esc, g->rule),
			g->count);
		for (size_t j = 0; j < g->ntargets && j < PATHS_SHOWN; j++) {
			const struct tally_target *tg = &g->targets[j];

			more -= tg->count;
			fprintf(stderr, "cordon:   %6zu  %s%s\n", tg->count,
				ESCAPE(esc, tg->what), allow(t, tg, own, esc2));
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

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* The header: never "recorded" for what the log did not take. */
static void print_header(const struct supervisor *s)
{
	size_t n = s->tally.denials, lost = s->denials_unwritten;

	size_t own = s->own_denials;

	fprintf(stderr, "cordon: %zu denial%s reported by %s, ", n, plural(n),
		own == 0   ? "the command's processes (the shim)"
		: own == n ? "cordon's supervisor (the broker, the proxy)"
			   : "the command's processes (the shim) and cordon's "
			     "supervisor (the broker, the proxy)");
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

/*
 * The last word: every option that allows what was refused, in one line
 * to paste (the harness parses it: "cordon: allow all of it with: ").
 */
static void print_options(const struct tally *t, const char *const own[])
{
	char *line = t->denials ? tally_options(t, own) : NULL;

	/* A program that cannot see a path gives up before it says what
	 * it meant to do with it (chmod, chown): when the run's last
	 * refusal was such a look-up, the next run, with the path seen,
	 * may meet the next one.  Learning runs it all at once. */
	if (line && t->last_lookup)
		fprintf(stderr,
			"cordon: a refused look-up may have stopped the "
			"command before it acted; to find every grant in one "
			"run: cordon learn -o PROFILE -- COMMAND\n");
	if (line)
		fprintf(stderr, "cordon: allow all of it with: %s\n", line);
	if (line && t->options_lost)
		fprintf(stderr,
			"cordon: and %zu more option%s past the %d kept (see "
			"the log)\n",
			t->options_lost, plural(t->options_lost),
			TALLY_OPTIONS_MAX);
	free(line);
}

void summary_print(struct supervisor *s)
{
	char esc[ESCAPED_MAX], dir[PATH_BUF];
	/* cordon's own audit log and state: no option grants them */
	const char *own[3] = { NULL };
	size_t n = 0;

	if (s->logpath[0])
		own[n++] = s->logpath;
	if (supervise_socket_dir(s, dir) == 0)
		own[n++] = dir;

	if (s->tally.denials) {
		print_header(s);
		print_groups(&s->tally, own);
	}
	for (size_t i = 0; i < s->tally.nunshimmed; i++)
		fprintf(stderr,
			"cordon: %s ran without the shim (%s): the kernel "
			"enforced its policy, but its denials are not "
			"explained\n",
			ESCAPE(esc, s->tally.unshimmed[i].program),
			s->tally.unshimmed[i].why);
	if (s->sigsys == SUPERVISE_KILLED_BY_SIGSYS)
		fprintf(stderr,
			"cordon: the kernel killed the command with SIGSYS: "
			"%s\n",
			SUPERVISE_SIGSYS_RULE);
	else if (s->sigsys == SUPERVISE_EXIT_159)
		fprintf(stderr, "cordon: %s\n", SUPERVISE_SIGSYS_RELAYED);
	print_losses(s);
	print_options(&s->tally, own);
}
