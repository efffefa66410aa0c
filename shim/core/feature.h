/*
 * feature.h - what a policy needs from the kernel, and what it gets.
 *
 * Every enforcement layer (Landlock, seccomp, prctl) describes what it
 * can enforce on this kernel as a list of features.  The launcher fails
 * closed on a needed feature that is not available; `cordon probe`
 * prints the same list.
 */
#ifndef CORDON_FEATURE_H
#define CORDON_FEATURE_H

#include <stdbool.h>
#include <stddef.h>

#define FEATURE_MAX 32

struct feature {
	const char *layer; /* "landlock", "seccomp", "prctl" */
	const char *name;  /* what it enforces, in a user's words */
	const char *needs; /* what brings it: "Landlock ABI 3 (Linux 6.2)" */
	bool needed;	   /* by the policy at hand */
	bool available;	   /* on the running kernel */
	bool advisory;	   /* reported, never a reason to refuse */
	bool gap;	   /* no layer on any kernel here closes it: listed
			    * by the probe, never noted at each run */
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

/* Number of needed, non-advisory features that are not available. */
size_t feature_missing(const struct feature_set *s);

#endif
