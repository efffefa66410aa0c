/*
 * preload.h - how this OS's dynamic loader is told to load the shim into
 * a program: the variable, how its list is written, and what must come
 * with it.
 *
 * Shared by both layers: the launcher puts the shim into the command
 * (enforce/run/shimenv.c), the shim puts it back into every child
 * (exec_env.c).  Each OS defines preload_os in a file of its own
 * (preload_linux.c, preload_darwin.c); the Makefile picks it.
 */
#ifndef CORDON_PRELOAD_H
#define CORDON_PRELOAD_H

#include <stdbool.h>

struct preload {
	const char *var;  /* "LD_PRELOAD", "DYLD_INSERT_LIBRARIES" */
	const char *seps; /* the characters the loader splits its list on */
	const char *join; /* put between cordon's entry and the program's */
	bool asan;	  /* ASAN_OPTIONS must let the shim load first */
};

extern const struct preload preload_os;

#endif
