/*
 * toolroot.h - the roots of the toolchains and caches that live in a
 * home directory (rustup's, cargo's, pyenv's, npm's, pip's, ...): where
 * a grant for one of their files belongs, with the right that makes the
 * tool work there, and the built-in profile that holds it.  One table
 * for the shim's lines, the launcher's summary, `cordon learn` and the
 * built-in profiles' protections.  Allocates nothing; async-signal-safe.
 */
#ifndef CORDON_TOOLROOT_H
#define CORDON_TOOLROOT_H

#include <stdbool.h>

#include "shim/core/path.h"

struct toolroot {
	const char *sub;     /* below $HOME; "*" as the last name: any one
			      * directory there (~/.cache/NAME) */
	unsigned int right;  /* RIGHT_X: programs run there (a toolchain);
			      * RIGHT_W: a cache the tool writes */
	const char *profile; /* the built-in profile granting it, or NULL */
};

/**
 * toolroot_of - the known tool root holding the canonical @path, for
 * the canonical home directory @home (NULL or "": none known), its path
 * written to @out (PATH_BUF).  The most specific one wins
 * (~/.npm/_npx before ~/.npm).
 * Return: the entry, or NULL when @path lies in none.
 */
const struct toolroot *toolroot_of(const char *home, const char *path,
				   char out[PATH_BUF]);

/**
 * toolroot_need - the need a grant at @tr must give, for a denial of
 * @need there: a read in a toolchain is an exec of it (its programs and
 * the libraries they map), a read in a cache a write of it; a write or
 * an exec stays what it is.
 */
unsigned int toolroot_need(const struct toolroot *tr, unsigned int need);

/* A need only an option's flag has: the directory is not there, and
 * --create makes it (rule.h's RULE_CREATE). */
#define TOOLROOT_CREATE 0x100u

/**
 * toolroot_grant - where a grant for the refusal of @need at the
 * canonical @resolved by @operation goes, when a tool's root decides:
 * a refusal under ~/.rustup is granted ~/.rustup with exec, one under
 * ~/.npm/_cacache ~/.npm with write, from the first line; a cache not
 * there yet is made (--create ~/.cache/pip), never granted through its
 * parent; a directory made right in $HOME (or /) is made, not granted
 * through all of $HOME.  @out holds the grant found so far (rule.c) and
 * receives the tool's; *@flag receives the need the option grants
 * (TOOLROOT_CREATE with RIGHT_R | RIGHT_W for a --create).  @home
 * canonical, or NULL.
 */
void toolroot_grant(const char *home, const char *operation, unsigned int need,
		    const char *resolved, char out[PATH_BUF],
		    unsigned int *flag);

/* The files under $HOME that a shell or PATH runs outside the sandbox
 * (~/.cargo/env, ~/.cargo/bin, ~/.local/bin, pyenv's shims, ...):
 * never writable by a profile, learned or built in; NULL-terminated,
 * below $HOME. */
extern const char *const toolroot_protected[];

#endif
