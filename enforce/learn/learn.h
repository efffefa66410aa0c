/*
 * learn.h - `cordon learn`: a minimal profile from a real run.
 */
#ifndef CORDON_LEARN_H
#define CORDON_LEARN_H

#include <jansson.h>
#include <stddef.h>

#include "enforce/cli/cli.h"
#include "shim/core/policy.h"

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

#endif
