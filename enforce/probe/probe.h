/*
 * probe.h - `cordon probe [--json] [--mode MODE]` (enforce/probe/): what
 * this host enforces, proven by live attempts.  The folder's whole interface.
 */
#ifndef CORDON_PROBE_H
#define CORDON_PROBE_H

#include <jansson.h>

#include "enforce/cli/cli.h"
#include "shim/core/feature.h"

/* Run the probe; print a table (or JSON with --json).
 * Return: 0 all holds, 1 something does not, 125 the probe failed. */
int probe_run(const struct cli *cli);

/**
 * probe_mode_run - `cordon probe --mode MODE [--json]`: whether this
 * host enforces the policy of @cli (its mode and options) in full, in
 * part (--best-effort would run it, without what is missing) or not at
 * all (no Landlock filesystem rules: no boundary).  Nothing is
 * attempted: the answer is the launcher's own refusal check.
 * Return: 0 full, 1 partial or unavailable, 125 bad options.
 */
int probe_mode_run(struct cli *cli);

/* The same answer as JSON, for a policy whose features are @fs on a
 * kernel in @state: {"enforcement", "missing": [...]}.  NULL when out
 * of memory. */
json_t *probe_mode_json(const struct feature_set *fs, int state);

#endif
