/*
 * feature.h - what a policy needs from the kernel, and what it gets.
 *
 * Every enforcement layer (Landlock, seccomp, prctl, the namespaces, the
 * broker) describes what it can enforce on this kernel as a list of
 * features.  A guarantee may be held by more than one mechanism (a
 * Landlock right, or the namespaces cordon builds anyway): the launcher
 * fails closed only on a needed guarantee that no mechanism holds here;
 * `cordon probe` prints the same list, each row with what holds it.
 */
#ifndef CORDON_FEATURE_H
#define CORDON_FEATURE_H

#include <stdbool.h>
#include <stddef.h>

#define FEATURE_MAX	 32
#define FEATURE_ALSO_MAX 2

/* The rows that other layers add, named where a Landlock row says it is
 * held by them too (feature.also): one spelling for both. */
#define FEATURE_FS_RULES  "filesystem read, write and execute rules"
#define FEATURE_RO_MOUNTS "metadata of files outside the writable roots"
#define FEATURE_PIDNS	  "processes outside (/proc, pids)"
#define FEATURE_NON_TCP	  "UDP, raw and other non-TCP sockets"
#define FEATURE_BROKER	  "UNIX socket files bound after the start"

struct feature {
	const char *layer; /* "landlock", "seccomp", "prctl" */
	const char *name;  /* what it enforces, in a user's words */
	const char *needs; /* what brings it: "Landlock ABI 3 (Linux 6.2)" */
	bool needed;	   /* by the policy at hand */
	bool available;	   /* on the running kernel */
	bool advisory;	   /* reported, never a reason to refuse */
	bool gap;	   /* no layer on any kernel here closes it: listed
			    * by the probe, never noted at each run */
	/* Other rows (by name) whose mechanism holds the same guarantee
	 * for this policy: where this one is not available, any of them
	 * available holds it (feature_held()). */
	const char *also[FEATURE_ALSO_MAX];
};

struct feature_set {
	struct feature f[FEATURE_MAX];
	size_t n;
};

/* Append a feature; silently capped at FEATURE_MAX (a programming error
 * caught by the unit tests). */
void feature_add(struct feature_set *s, struct feature f);

/* True when every feature of @layer is available. */
bool feature_layer_ok(const struct feature_set *s, const char *layer);

/* The row named @name (NULL: none), or NULL. */
const struct feature *feature_find(const struct feature_set *s,
				   const char *name);

/* Is the guarantee of @f held on this kernel: @f available, or one of
 * its also rows (another mechanism) available? */
bool feature_held(const struct feature_set *s, const struct feature *f);

/* The first also row of @f that is available, or NULL. */
const struct feature *feature_holder(const struct feature_set *s,
				     const struct feature *f);

/* Number of needed, non-advisory features that nothing holds. */
size_t feature_missing(const struct feature_set *s);

#endif
