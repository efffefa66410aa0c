/*
 * launch.h - the steps every sandbox takes, a plain run's and a
 * session's alike: build the policy's roots and find out what the
 * kernel enforces (refusing what it cannot), the command's environment
 * and the shim, then fork the process that installs the boundary.
 */
#ifndef CORDON_LAUNCH_H
#define CORDON_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "enforce/cli/cli.h"
#include "enforce/report/supervise.h"
#include "shim/core/feature.h"

struct launch {
	struct feature_set fs;
	int kernel;  /* platform_features() */
	char **envp; /* the command's environment, shim included */
	size_t cap;  /* its room */
	struct supervisor *sup;
	void *served; /* the broker, once started */
};

/**
 * launch_prepare - roots, features (refusal or --best-effort's line),
 * notes, the platform's roots, the environment and the shim, for @c
 * into @l (@sup: the supervisor to bind).
 * Return: 0, or EXIT_CORDON after one line on stderr.
 */
int launch_prepare(struct cli *c, struct launch *l, struct supervisor *sup);

/**
 * launch_start - fork the sandbox: the child installs the boundary of
 * @c and calls @inside(@c, @l, @arg), leaving with what it returns;
 * the parent serves the broker (l->served) and returns the child's
 * pid, or -1 after one line on stderr (nothing left running).
 */
pid_t launch_start(struct cli *c, struct launch *l,
		   int (*inside)(struct cli *c, struct launch *l, void *arg),
		   void *arg);

/* Stop the broker launch_start() started. */
void launch_stop(struct launch *l);

#endif
