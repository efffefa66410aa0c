/*
 * env.c - scrub an environment to the policy's allowlist.
 *
 * Shared by the launcher (once, before exec) and the shim (on every exec
 * a program makes, possibly in a vfork child): nothing here allocates,
 * locks or changes errno.  Patterns are a full name or a prefix ending
 * in '*'; fnmatch(3) is avoided because it may allocate.
 */
#include <errno.h>
#include <string.h>

#include "shim/core/env.h"

#define STR_(x)	 #x
#define STR(x)	 STR_(x)
#define PROXY_AT "127.0.0.1:" STR(POLICY_PROXY_PORT)

const char *const env_proxy_sets[ENV_PROXY_N + 1] = {
	"HTTP_PROXY=http://" PROXY_AT,
	"http_proxy=http://" PROXY_AT,
	"HTTPS_PROXY=http://" PROXY_AT,
	"https_proxy=http://" PROXY_AT,
	"ALL_PROXY=socks5h://" PROXY_AT,
	"all_proxy=socks5h://" PROXY_AT,
	"NO_PROXY=localhost,127.0.0.1,::1",
	"no_proxy=localhost,127.0.0.1,::1",
	NULL,
};

const char *const env_default_allow[] = {
	"PATH",
	"HOME",
	"USER",
	"LOGNAME",
	"SHELL",
	"TERM",
	"COLORTERM",
	"LANG",
	"LANGUAGE",
	"LC_*",
	"TZ",
	"TMPDIR",
	"PWD",
	"SHLVL",
	"COLUMNS",
	"LINES",
	"NO_COLOR",
	"EDITOR",
	"VISUAL",
	"PAGER",
	"LESS",
	"HOSTNAME",
	"SOURCE_DATE_EPOCH",
	NULL,
};

size_t env_name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? (size_t)(eq - entry) : strlen(entry);
}

bool env_is_name(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return strncmp(entry, name, n) == 0 &&
	       (entry[n] == '=' || entry[n] == '\0');
}

const char *env_asan_entry(const char *entry, char *buf, size_t len)
{
	static const char order[] = "verify_asan_link_order=0";
	size_t n;

	if (!entry || !strchr(entry, '='))
		return ASAN_VAR "=verify_asan_link_order=0";
	if (strstr(entry, "verify_asan_link_order"))
		return entry;
	n = strlen(entry);
	if (n + sizeof(order) + 1 > len)
		return entry;
	memcpy(buf, entry, n);
	if (entry[n - 1] != '=')
		buf[n++] = ':';
	memcpy(buf + n, order, sizeof(order));
	return buf;
}

/* Does the name of @entry (length @len) match @pattern? */
static bool matches(const char *entry, size_t len, const char *pattern)
{
	size_t n = env_name_len(pattern);

	if (n > 0 && pattern[n - 1] == '*')
		return len >= n - 1 && strncmp(entry, pattern, n - 1) == 0;
	return len == n && strncmp(entry, pattern, n) == 0;
}

bool env_name_listed(const struct policy *p, const char *entry)
{
	size_t len = env_name_len(entry);

	for (size_t i = 0; i < p->nenv_names; i++)
		if (matches(entry, len, p->env_names[i]))
			return true;
	return false;
}

bool env_name_allowed(const struct policy *p, const char *entry)
{
	size_t len = env_name_len(entry);

	if (p->env == ENV_INHERIT)
		return true;
	for (size_t i = 0; env_default_allow[i]; i++)
		if (matches(entry, len, env_default_allow[i]))
			return true;
	return env_name_listed(p, entry);
}

/* Is the name of @entry set explicitly by the policy? */
static bool is_overridden(const struct policy *p, const char *entry)
{
	size_t len = env_name_len(entry);

	for (size_t i = 0; i < p->nenv_sets; i++)
		if (matches(entry, len, p->env_sets[i]))
			return true;
	return false;
}

int env_filter(const struct policy *p, char *const *envp, const char **out,
	       size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; envp && envp[i]; i++) {
		if (!strchr(envp[i], '=') || is_overridden(p, envp[i]) ||
		    !env_name_allowed(p, envp[i]))
			continue;
		if (n + 1 >= cap)
			return -E2BIG;
		out[n++] = envp[i];
	}
	for (size_t i = 0; i < p->nenv_sets; i++) {
		if (n + 1 >= cap)
			return -E2BIG;
		out[n++] = p->env_sets[i];
	}
	out[n] = NULL;
	return (int)n;
}

const char *env_value(char *const *envp, const char *name)
{
	for (size_t i = 0; envp && envp[i]; i++)
		if (env_is_name(envp[i], name))
			return envp[i] + strlen(name) + 1;
	return NULL;
}
