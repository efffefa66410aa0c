/*
 * sbpl_host.h - what the Seatbelt profile (sbpl.h) needs to know about
 * the Mac it will run on, looked up by the caller
 * (enforce/darwin/host_darwin.c) and read by the generator's parts
 * (sbpl_gen.h).
 */
#ifndef CORDON_SBPL_HOST_H
#define CORDON_SBPL_HOST_H

/* What the profile needs to know about the machine it will run on.
 * Every path is absolute and already resolved (realpath); NULL when the
 * host has none. */
struct sbpl_host {
	/* Where /tmp, /var and /etc lead ("/private/tmp", ...): Seatbelt
	 * matches the path the kernel resolved, so a root under one of
	 * them is written with its target.  NULL: not a symlink here. */
	const char *tmp, *var, *etc;
	/* $HOME: preferences (CFPreferences, read through cfprefsd, not
	 * as files) are readable when the policy reads its
	 * Library/Preferences. */
	const char *home;
	/* The per-user temp and cache dirs (confstr
	 * _CS_DARWIN_USER_TEMP_DIR and _CS_DARWIN_USER_CACHE_DIR, under
	 * /private/var/folders), which macOS programs use whatever $TMPDIR
	 * says (clang's module cache is in the second): they get the
	 * rights the policy gives /tmp. */
	const char *tmpdir, *cachedir;
	/* The terminal the command inherits (/dev/ttys003). */
	const char *tty;
	/* The launcher's report socket, which the shim sends records to. */
	const char *report;
	/* NULL-terminated: prefixes the system defaults include on macOS
	 * (the Command Line Tools, the selected Xcode, Homebrew), readable
	 * and executable; NULL under --no-defaults. */
	const char *const *system;
};

#endif
