/*
 * summary.h - what the launcher says when the command ends (summary.c),
 * from the supervisor's counts and its tally of the reports.
 */
#ifndef CORDON_SUMMARY_H
#define CORDON_SUMMARY_H

#include <stdint.h>

#include "enforce/report/supervise.h"

/* The end-of-run summary on stderr; nothing when there is nothing. */
void summary_print(struct supervisor *s);

/**
 * summary_of_call - the summary of one call of a session, from its own
 * tally @t (NULL: none; @own_denials of them the supervisor's) and what
 * each source did not write of it (@lost, or NULL): the lines a plain
 * run prints at its end, naming the call, for the caller to print.
 * The log's errors are the session's, said at its end.
 * Return: the text (free() it), or NULL when there is nothing to say.
 */
char *summary_of_call(const struct supervisor *s, struct tally *t,
		      size_t own_denials, const char *session, uint32_t call,
		      const struct budget_count lost[BUDGET_SOURCES]);

#endif
