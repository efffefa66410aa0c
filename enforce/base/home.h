/*
 * home.h - where the user's files and cordon's own state are (home.c):
 * the home directory, "~" expanded, the state directory, and mkdir -p.
 * Every part of the launcher asks here; nothing here decides a policy.
 */
#ifndef CORDON_HOME_H
#define CORDON_HOME_H

#include <sys/types.h>

#include "shim/core/path.h"

/* $HOME when it is absolute, else the password database's; NULL when
 * neither says. */
const char *home_dir(void);

/* @path with a leading "~" (alone or before '/') replaced by
 * home_dir(), into @out.  Return: 0, -ENOENT (no home), -ENAMETOOLONG. */
int home_expand(const char *path, char out[PATH_BUF]);

/* cordon's state directory: $XDG_STATE_HOME/cordon when that is
 * absolute, else ~/.local/state/cordon.  Only its name: nothing made. */
int home_state_dir(char out[PATH_BUF]);

/* home_state_dir(), made (0700) if missing.  Return: 0, or -errno. */
int home_state_make(char out[PATH_BUF]);

/* mkdir -p @path; what it creates gets @mode.  Return: 0, or -errno. */
int home_mkdirs(char *path, mode_t mode);

#endif
