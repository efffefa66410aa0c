/*
 * env.h - the environment policy, shared by the launcher and the shim.
 *
 * The launcher scrubs the command's environment to an allowlist; the
 * shim applies the same filter to every envp a program passes to exec.
 * env_filter() therefore allocates nothing: it fills a caller-provided
 * array of pointers into the strings it was given.
 */
#ifndef CORDON_ENV_H
#define CORDON_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "shim/core/policy.h"

/* The names passed through by default, "LC_*" style prefixes included. */
extern const char *const env_default_allow[];

/* With hosts allowed (NET_HOSTS), the variables that send a command's
 * HTTP, HTTPS and SOCKS traffic to cordon's proxy, upper and lower case
 * ("HTTP_PROXY=http://127.0.0.1:3128", ...; ENV_PROXY_N of them, then
 * NULL): set by the launcher, carried by the shim across every exec. */
#define ENV_PROXY_N 8
extern const char *const env_proxy_sets[ENV_PROXY_N + 1];

/**
 * env_name_allowed - true when the variable @entry ("NAME=VALUE" or
 * "NAME") passes the policy: the default allowlist, or a --env pattern
 * (a name, or a prefix ending in '*').  Under ENV_INHERIT everything
 * passes.
 */
bool env_name_allowed(const struct policy *p, const char *entry);

/* True when a --env name or PREFIX* of @p (not the default allowlist)
 * passes @entry. */
bool env_name_listed(const struct policy *p, const char *entry);

/**
 * env_filter - build the environment a command receives.
 * @p: the policy (names, patterns, NAME=VALUE settings).
 * @envp: the environment offered (may be NULL).
 * @out: receives pointers into @envp and into p->env_sets, NULL-terminated.
 * @cap: capacity of @out, the terminating NULL included.
 *
 * Settings from p->env_sets replace variables of the same name.
 * Return: the number of variables, or -E2BIG when @cap is too small.
 */
int env_filter(const struct policy *p, char *const *envp, const char **out,
	       size_t cap);

/* The length of the name of @entry ("NAME=VALUE" or "NAME"). */
size_t env_name_len(const char *entry);

/* True when @entry ("NAME=..." or "NAME") names @name. */
bool env_is_name(const char *entry, const char *name);

/* The value of @name in @envp (NULL-terminated; NULL is empty), as
 * getenv() reads environ: for an envp that is not environ (a
 * constructor's, under -z initfirst, runs before libc sets environ).
 * Return: the value, or NULL when @name is absent. */
const char *env_value(char *const *envp, const char *name);

#define ASAN_VAR "ASAN_OPTIONS"

/**
 * env_asan_entry - the ASAN_OPTIONS entry a shimmed program gets, from
 * its own @entry (NULL when it has none).  GCC's dynamic ASan runtime
 * refuses to start unless it is the first library loaded, and the shim
 * is preloaded before it (catalog D-12): verify_asan_link_order=0 is
 * added, unless the program chose a value itself.  Composed in @buf
 * when needed; allocates nothing.
 *
 * Return: the entry to use ("ASAN_OPTIONS=...").
 */
const char *env_asan_entry(const char *entry, char *buf, size_t len);

#endif
