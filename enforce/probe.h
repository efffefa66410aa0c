/*
 * probe.h - `cordon probe [--json]`.
 */
#ifndef CORDON_PROBE_H
#define CORDON_PROBE_H

#include "enforce/cli.h"

/* Run the probe; print a table (or JSON with --json).
 * Return: 0 all holds, 1 something does not, 125 the probe failed. */
int probe_run(const struct cli *cli);

#endif
