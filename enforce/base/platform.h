/*
 * platform.h - the kernel boundary of one OS, as the launcher sees it.
 *
 * main.c knows only this seam.  On Linux (platform_linux.c) it is
 * Landlock, the seccomp filter, the capability drop and the namespaces;
 * on macOS (darwin/platform_darwin.c) it is the Seatbelt profile of
 * sbpl.c applied with sandbox_init().  It also names the running
 * executable and the shim's file, which differ by OS.  Each OS implements every
 * function here in a file of its own; the Makefile picks the files.
 */
#ifndef CORDON_PLATFORM_H
#define CORDON_PLATFORM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "shim/core/feature.h"
#include "shim/core/path.h"
#include "shim/core/policy.h"

/**
 * platform_features - find out what this kernel enforces, and describe
 * for policy @p what is needed and what holds into @s.
 * Return: the kernel's state, an opaque value that platform_enforce(),
 * platform_describe() and platform_hint() take (on Linux: the Landlock
 * ABI, or a negative errno when there is none).
 */
int platform_features(const struct policy *p, struct feature_set *s);

/**
 * platform_enforce - put the calling process (and what it will exec)
 * inside the boundary of @p: everything @s says holds, and nothing
 * less, or nothing at all.  @keep is the launcher's report socket (NULL
 * without the shim); @learning widens nothing here but leaves out what
 * would hide from the shim what it must record; @gate is the child's
 * end of the gate (platform_gate()), or -1.
 * Return: 0, or nonzero with one line in @err (empty when the refusal
 * of what @s counted on is said already).
 */
int platform_enforce(const struct policy *p, const struct feature_set *s,
		     int state, const char *keep, bool learning, int gate,
		     char *err, size_t errlen);

/**
 * platform_gate - does the boundary @s describes need a part in the
 * supervisor (on Linux: the broker of connects and sends to socket
 * files, sockgate.h)?  Then main.c makes a stream socketpair before the
 * fork, gives one end to platform_enforce() and the other, once forked,
 * to platform_gate_serve().  Never while @learning.
 */
bool platform_gate(const struct feature_set *s, const struct policy *p,
		   bool learning);

/* Serve the gate's end @fd with @p, records to @record(@arg); *@handle
 * for platform_gate_stop().  Return: 0, or -errno. */
int platform_gate_serve(int fd, const struct policy *p,
			void (*record)(void *arg, json_t *rec), void *arg,
			void **handle);
void platform_gate_stop(void *handle);

/**
 * platform_roots - add to @p what exists only inside the boundary @s
 * describes (on Linux, with the namespaces: the controlling terminal
 * under /dev/console, devices.h); @learning as for platform_fork().
 * Return: 0, or -errno.
 */
int platform_roots(struct policy *p, const struct feature_set *s,
		   bool learning);

/**
 * platform_fork - fork() the process that will call platform_enforce()
 * with the same @s and @learning, made the cheapest way the platform
 * has (on Linux: born in its namespaces already).
 * Return: as fork(); -2 when the kernel refused what @s counted on (the
 * refusal is said: the caller leaves with 125).
 */
pid_t platform_fork(const struct feature_set *s, bool learning);

/**
 * platform_stays - true when the process platform_enforce() left must
 * outlive the command (on Linux: pid 1 of the command's PID namespace).
 * spawn_exec() then runs the command as its child, and
 * platform_relay() waits for it and leaves with its status.
 */
bool platform_stays(void);
void platform_relay(pid_t child) __attribute__((noreturn));

/* "Linux 6.1.0, Landlock ABI 2", "macOS 14.5, Seatbelt": the host, for
 * the refusal and --best-effort lines. */
void platform_describe(int state, char *buf, size_t len);

/* A hint line (without "hint: ") for a kernel in @state, or NULL. */
const char *platform_hint(int state);

/**
 * platform_self_exe - the path of the running executable (cordon
 * itself), which its protection and the search for the shim start from.
 * Return: 0 with the path in @out, or -errno.
 */
int platform_self_exe(char out[PATH_BUF]);

/* The shim's file name on this OS: "libcordon.so", "libcordon.dylib". */
const char *platform_shim_file(void);

#endif
