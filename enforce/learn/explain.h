/*
 * explain.h - `cordon explain`: the verdict of a run's policy on paths.
 */
#ifndef CORDON_EXPLAIN_H
#define CORDON_EXPLAIN_H

#include "enforce/cli/cli.h"

/**
 * explain_run - print, for each path (or port) of @c, the verdict, the
 * resolved path, the rule and the option that would change it.
 * Return: 0 when all are allowed, 1 otherwise, EXIT_CORDON when the
 * policy cannot be built.
 */
int explain_run(struct cli *c);

#endif
