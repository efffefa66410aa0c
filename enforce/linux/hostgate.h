/*
 * hostgate.h - --allow-host wired into a run: the command's network
 * namespace with its loopback alone, the proxy's listening socket made
 * there by pid 1 and handed out through the platform gate (sockgate.c),
 * and the proxy (proxy.h) served by the supervisor, outside.
 */
#ifndef CORDON_HOSTGATE_H
#define CORDON_HOSTGATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "shim/core/feature.h"
#include "shim/core/policy.h"

/* The "hosts" row: needed with hosts allowed; a network namespace
 * (@netns_ok: ns.c tried one) where the loopback can be raised. */
void hostgate_features(const struct policy *p, bool netns_ok,
		       struct feature_set *s);

/**
 * hostgate_listen - in pid 1, just after unshare(CLONE_NEWNET): raise the
 * loopback and listen on 127.0.0.1:POLICY_PROXY_PORT.
 * Return: the listening socket (close-on-exec), or -errno with @err set.
 */
int hostgate_listen(char *err, size_t errlen);

/**
 * hostgate_serve - in the supervisor: serve @listen_fd (taken) with the
 * rules of @p's hosts.  Each refusal is a denial line on stderr (once
 * per destination, unless quiet) and a record to @record(@arg).
 * Return: 0 with *@handle, or -errno.
 */
int hostgate_serve(int listen_fd, const struct policy *p,
		   void (*record)(void *arg, json_t *rec), void *arg,
		   void **handle);

void hostgate_stop(void *handle);

/**
 * hostgate_line - the denial line of the proxy's refusal @rec, ended by
 * a newline and a NUL, escaped for a terminal, in @buf (@cap: 1024 is
 * enough).
 * Return: its length, or 0 when @rec is no refusal of the proxy.
 */
size_t hostgate_line(const json_t *rec, char *buf, size_t cap);

#endif
