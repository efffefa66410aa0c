/*
 * run.h - the story of a run (enforce/run/): the steps every sandbox takes
 * on its way in, a plain run's and a session's, `cordon wrap`, the shim loaded.
 *
 * One header, the folder's whole interface: the rest of cordon includes
 * this and nothing else of enforce/run/.  Its parts, each with the file
 * that implements it, follow.
 */
#ifndef CORDON_ENFORCE_RUN_H
#define CORDON_ENFORCE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "enforce/cli/cli.h"
#include "enforce/report/report.h"
#include "shim/core/feature.h"
#include "shim/core/path.h"
#include "shim/core/policy.h"

/*
 * launch.c - the steps every sandbox takes, a plain run's and a
 * session's alike: build the policy's roots and find out what the
 * kernel enforces (refusing what it cannot), the command's environment
 * and the shim, then fork the process that installs the boundary.
 */

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

/*
 * wrap.c - `cordon wrap`: what a program in any language spawns, after
 * clearing its environment, to run a command under a policy.
 */

/* Print {"argv": [...], "env": {...}} (--json) or the same as one shell
 * line; 0, or 125 after one line on stderr. */
int wrap_run(struct cli *c);

/*
 * shimenv.c - how the launcher loads the shim (libcordon.so,
 * libcordon.dylib) into the command.
 */

/**
 * shimenv_locate - find the shim's file (platform_shim_file()) next to
 * the running cordon (the build tree) or in ../lib/cordon (an installed
 * PREFIX).
 * Return: 0, or -ENOENT with @out holding the last place looked at.
 */
int shimenv_locate(char out[PATH_BUF]);

/**
 * shimenv_apply - add the loader's variable (preload.h: LD_PRELOAD or
 * DYLD_INSERT_LIBRARIES, with the shim @lib first, then any the
 * command's environment already had), ASAN_OPTIONS as env_asan_entry()
 * makes it where the OS needs it, and the policy snapshot to @envp,
 * which has room for @cap entries with the NULL.
 * Return: 0, -ENOMEM, or -E2BIG.
 */
int shimenv_apply(char **envp, size_t cap, const char *lib,
		  const char *snapshot);

/* The command's environment: @from (modes_environ()) scrubbed to the
 * allowlist of @p, with room for the shim's variables (LD_PRELOAD,
 * ASAN_OPTIONS, CORDON_POLICY); *@cap its size.  NULL when out of
 * memory. */
char **shimenv_scrubbed(const struct policy *p, char *const *from, size_t *cap);

/* Append to @envp (room for @cap entries with the NULL, as
 * shimenv_scrubbed() leaves) the proxy's variables it lacks: hosts
 * allowed where pid 1 could not capture. */
void shimenv_add_proxy(char **envp, size_t cap);

/**
 * shimenv_prepare - the shim for the command of @c: find its file and
 * grant it, bind the report socket (@sup), protect cordon's own files
 * where a writable root holds them, encode the policy and put the shim
 * and the snapshot into @envp (@cap entries); @fs says what the kernel
 * holds (the grants the shim's lines may name); the names of @from (the
 * environment before the scrub) that the scrub removed go in the
 * snapshot, for the shim's getenv.
 * Return: 0, or -errno after one line on stderr.
 */
int shimenv_prepare(struct cli *c, char *const *from, char **envp, size_t cap,
		    struct supervisor *sup, const struct feature_set *fs);

/*
 * ask.c - --ask: a refused host asked about on the controlling terminal,
 * outside the command's reach.
 */

enum { ASK_NO, ASK_YES, ASK_ALWAYS };

/* Open the terminal (stdin must be one) and hold @profile's directory
 * (NULL: "always" is not offered).  Return: 0, or -1 with @err set. */
int ask_start(const char *profile, char *err, size_t errlen);

/* Hold @profile's directory for "always" (NULL or "": none), as
 * ask_start() does; a session's supervisor, which has no terminal. */
void ask_hold(const char *profile);
bool ask_has_profile(void);

/* "always": @spec merged into the held profile's allow_hosts.  Return:
 * 0, or -1 (nothing held, or the profile cannot be written). */
int ask_save(const char *spec);

/* Ask about @spec (an --allow-host's text); blocks up to 30 s.  Return:
 * ASK_NO, ASK_YES or ASK_ALWAYS (written into the profile). */
int ask_host(const char *spec);

/* A line typed on @fd within 30 s, into @buf (NUL-ended); false for
 * none. */
bool ask_read_line(int fd, char *buf, size_t cap);

/* The terminal back to the launcher's process group, closed. */
void ask_stop(void);

#endif
