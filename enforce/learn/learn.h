/*
 * learn.h - `cordon learn` and `cordon explain` (enforce/learn/): a profile
 * learned from a real run, and the verdict of a run's policy on paths.
 *
 * One header, the folder's whole interface: the rest of cordon includes
 * this and nothing else of enforce/learn/.  Its parts, each with the file
 * that implements it, follow.
 */
#ifndef CORDON_LEARN_H
#define CORDON_LEARN_H

#include <jansson.h>
#include <stddef.h>

#include "enforce/cli/cli.h"
#include "shim/core/policy.h"

/*
 * learn.c - `cordon learn`: a minimal profile from a real run.
 */

/**
 * learn_start - before the run: note the moment it begins (what was
 * born since is the run's own), the workspace, the temp directory, the
 * mode of @c, and the command of @c with the interpreters of its "#!"
 * lines, which the launcher execs where no shim sees it.
 */
void learn_start(const struct cli *c);

/* Take note of a record the shim sent while learning. */
void learn_note(json_t *record);

/**
 * learn_write - fold what was noted into a profile at @out that grants
 * what @p lacked, and say so on stderr.
 * Return: 0, or -EIO with @err set.
 */
int learn_write(const char *out, const struct policy *p, char *err,
		size_t errlen);

/**
 * learn_kernel_policy - what the kernel layer holds while learning, for
 * the policy @p the options give: their own roots, the whole filesystem
 * readable and executable, $HOME, the workspace and the temp
 * directories writable (learn_start() first), the network (the seccomp
 * filter and the capability drop as always; no namespaces).  The system
 * directories stay unwritable even to root.  The shim records what @p
 * alone would refuse.  Built once; lives until exit.
 */
const struct policy *learn_kernel_policy(const struct policy *p);

/*
 * explain.c - `cordon explain`: the verdict of a run's policy on paths.
 */

/**
 * explain_run - print, for each path (or port) of @c, the verdict, the
 * resolved path, the rule and the option that would change it.
 * Return: 0 when all are allowed, 1 otherwise, EXIT_CORDON when the
 * policy cannot be built.
 */
int explain_run(struct cli *c);

/*
 * learn_out.c - a profile's file written through its directory, held
 * from before the run (learn's -o, and --ask's "always").
 */

/* Hold the directory of @out, before the command runs. */
void learn_out_hold(const char *out);

/* The profile now in the held directory (not through a link), or NULL
 * (none, unreadable, not a JSON object). */
json_t *learn_out_read(void);

/* Write @prof into a new file in the held directory, renamed over the
 * profile's name.  Return: 0, or -1. */
int learn_out_write(json_t *prof);

#endif
