/*
 * summary.h - what the launcher says when the command ends (summary.c),
 * from the supervisor's counts and its tally of the reports.
 */
#ifndef CORDON_SUMMARY_H
#define CORDON_SUMMARY_H

#include "enforce/supervise.h"

/* The end-of-run summary on stderr; nothing when there is nothing. */
void summary_print(struct supervisor *s);

#endif
