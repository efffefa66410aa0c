/*
 * sockgate.h - on Linux, the broker (broker.h) put between the command
 * and every connect or send that names an address: its feature, its
 * hand-over from the sandboxed process to the supervisor, and its
 * service there.  platform_linux.c's part of the platform gate.
 */
#ifndef CORDON_SOCKGATE_H
#define CORDON_SOCKGATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "shim/core/feature.h"
#include "shim/core/policy.h"

/* The "broker" feature: seccomp user notification that waits killable
 * only once received (Linux 5.19). */
void sockgate_features(struct feature_set *s);

/**
 * sockgate_install - in the sandboxed process, after the seccomp filter
 * and before the capability drop: install the broker's filter and hand
 * its listener over @gate (the child's end of the platform gate), then
 * close both (@net: the policy's, broker_install()).  Nothing here may connect
 * or send with an address before the supervisor serves the listener. Return: 0,
 * or -errno with @err set.
 */
int sockgate_install(int gate, enum net_mode net, char *err, size_t errlen);

/**
 * sockgate_serve - in the supervisor: take the listener from @gate (the
 * parent's end; waits until the child gave it or ended) and serve it
 * with @p.  *@handle is NULL when the child ended without giving one.
 * Return: 0, or -errno.
 */
int sockgate_serve(int gate, const struct policy *p,
		   void (*record)(void *arg, json_t *rec), void *arg,
		   void **handle);

void sockgate_stop(void *handle);

#endif
