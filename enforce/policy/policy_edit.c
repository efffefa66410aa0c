/*
 * policy_edit.c - building a policy in the launcher: roots added (a
 * copy of each path) and freed.  It allocates, so it is no part of the
 * policy core (shim/core/policy.c), whose decisions run in every hook
 * and between vfork and exec; the shim used alone adds its roots into
 * its own storage (shim/standalone.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/policy/policy.h"
#include "shim/core/env.h"

int policy_add_root(struct policy *p, const char *path, unsigned int rights,
		    enum root_origin origin, bool is_dir)
{
	char *copy;

	for (size_t i = 0; i < p->nroots; i++) {
		struct root *r = &p->roots[i];

		/* a protected path stays a root of its own */
		if (strcmp(r->path, path) == 0 &&
		    (origin == ORIGIN_PROTECTED) ==
			    (r->origin == ORIGIN_PROTECTED)) {
			r->rights |= rights;
			if (origin == ORIGIN_USER)
				r->origin = ORIGIN_USER;
			return 0;
		}
	}
	if (p->nroots == POLICY_MAX_ROOTS)
		return -E2BIG;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	p->roots[p->nroots++] = (struct root){
		.path = copy,
		.rights = rights,
		.origin = origin,
		.is_dir = is_dir,
	};
	return 0;
}

void policy_free(struct policy *p)
{
	for (size_t i = 0; i < p->nroots; i++)
		free(p->roots[i].path);
	p->nroots = 0;
	for (size_t i = 0; i < p->nenv_names; i++)
		free(p->env_names[i]);
	p->nenv_names = 0;
	for (size_t i = 0; i < p->nenv_sets; i++)
		free(p->env_sets[i]);
	p->nenv_sets = 0;
	for (size_t i = 0; i < p->nhosts; i++)
		free(p->hosts[i]);
	p->nhosts = 0;
	free(p->home);
	p->home = NULL;
}

int policy_proxy_env(struct policy *p)
{
	for (size_t i = 0; env_proxy_sets[i]; i++) {
		const char *set = env_proxy_sets[i];
		size_t len = (size_t)(strchr(set, '=') - set), j = 0;
		char *copy;

		while (j < p->nenv_sets &&
		       strncmp(p->env_sets[j], set, len + 1) != 0)
			j++;
		if (j == POLICY_MAX_ENV)
			return -E2BIG;
		copy = strdup(set);
		if (!copy)
			return -ENOMEM;
		if (j < p->nenv_sets)
			free(p->env_sets[j]); /* the proxy's, not the user's */
		else
			p->nenv_sets++;
		p->env_sets[j] = copy;
	}
	return 0;
}
