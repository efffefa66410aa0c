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
 * and before the capability drop: install the broker's filter (when
 * @broker; @net: the policy's, broker_install()) and hand its listener
 * over @gate (the child's end of the platform gate), then the proxy's
 * listening socket @proxy (-1: none; hostgate.h), then close them all.
 * Nothing here may connect or send with an address before the
 * supervisor serves the listener.
 * Return: 0, or -errno with @err set.
 */
int sockgate_install(int gate, bool broker, enum net_mode net, int proxy,
		     char *err, size_t errlen);

/**
 * sockgate_serve - in the supervisor: take the listener and the proxy's
 * socket from @gate (the parent's end; waits until the child gave them
 * or ended) and serve them with @p, the broker and the proxy.
 * Return: 0, or -errno.
 */
int sockgate_serve(int gate, const struct policy *p,
		   void (*record)(void *arg, json_t *rec), void *arg,
		   void **handle);

void sockgate_stop(void *handle);

#endif
