/*
 * modes.h - what the ci mode brings beyond roots: a fresh temp dir of
 * its own per run (or per session), and a fixed environment.  The
 * full-dev mode is the toolchains' built-in profiles (profile.c).
 */
#ifndef CORDON_MODES_H
#define CORDON_MODES_H

#include <stddef.h>

#include "enforce/cli/cli.h"

/**
 * modes_prepare - for the ci mode, make the fresh temp dir (mode 0700,
 * in cordon's state directory: citmp.h, holding home/ and tmp/); for
 * every other mode, make sure that directory exists (so that the roots
 * protect it), and nothing else.
 * Return: 0, or -errno with one line in @err.
 */
int modes_prepare(const struct cli *c, char *err, size_t errlen);

/* The ci run's temp dir, or NULL (another mode, or none made). */
const char *modes_ci_dir(void);

/**
 * modes_environ - the environment the command's is scrubbed from
 * (shimenv_scrubbed): this process's, or for ci a fixed one (PATH, HOME
 * and TMPDIR in the fresh dir, LANG, TZ, CI) with the variables @c
 * passes by name (--env NAME, PREFIX*) from this process's on top.
 * Return: a NULL-terminated array that lives until modes_cleanup(); NULL
 * when out of memory.
 */
char **modes_environ(struct cli *c);

/* Remove the ci temp dir and everything in it (once nothing runs in
 * it any more: the command's PID namespace is gone), and free the
 * environment modes_environ() made. */
void modes_cleanup(void);

#endif
