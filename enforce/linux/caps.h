/*
 * caps.h - no capabilities inside the sandbox, for root as for a user.
 */
#ifndef CORDON_CAPS_H
#define CORDON_CAPS_H

#include <stdbool.h>
#include <stddef.h>

#include "shim/core/feature.h"

/* Describe the capability layer on this system: always available;
 * with @exact (cordon probe), needed when the launcher holds any
 * capability, as root does; otherwise counted as needed without asking
 * (the drop runs at every start anyway). */
void caps_features(struct feature_set *s, bool exact);

/**
 * caps_drop - empty every capability set of the calling thread: the
 * effective, permitted, inheritable and ambient sets and the bounding
 * set, so that nothing the command runs can regain one.  Uses
 * libcap-ng.  Return: 0, or -1 with @err set.
 */
int caps_drop(char *err, size_t errlen);

#endif
