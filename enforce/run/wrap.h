/*
 * wrap.h - `cordon wrap`: what a program in any language spawns, after
 * clearing its environment, to run a command under a policy.
 */
#ifndef CORDON_WRAP_H
#define CORDON_WRAP_H

#include "enforce/cli/cli.h"

/* Print {"argv": [...], "env": {...}} (--json) or the same as one shell
 * line; 0, or 125 after one line on stderr. */
int wrap_run(struct cli *c);

#endif
