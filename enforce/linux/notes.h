/*
 * notes.h - what cordon says before a run (notes.c).
 */
#ifndef CORDON_NOTES_H
#define CORDON_NOTES_H

#include "enforce/cli/cli.h"
#include "shim/core/feature.h"

/* The refusal (exit 125 follows): what the kernel in @state cannot
 * enforce of what the policy needs, and the hints. */
void notes_refusal(const struct feature_set *fs, int state);

/* --best-effort: the one loud line of what is not enforced. */
void notes_best_effort(const struct feature_set *fs, int state);

/* Before a run, unless quiet: what is advisory and missing, a
 * workspace that is the whole home, git directories past the limit. */
void notes_before_run(const struct cli *c, const struct feature_set *fs);

#endif
