/*
 * feature.c - the list of kernel features a policy needs and has here;
 * the reasons to refuse a run are guarantee.c's (feature_missing()).
 */
#include <string.h>

#include "shim/core/feature.h"

void feature_add(struct feature_set *s, struct feature f)
{
	if (s->n < FEATURE_MAX)
		s->f[s->n++] = f;
}

void feature_guarantee(struct feature_set *s, struct guarantee g)
{
	if (s->ng < FEATURE_GUARANTEES)
		s->g[s->ng++] = g;
}

const struct feature *feature_find(const struct feature_set *s,
				   const char *name)
{
	for (size_t i = 0; name && i < s->n; i++)
		if (strcmp(s->f[i].name, name) == 0)
			return &s->f[i];
	return NULL;
}

const struct guarantee *guarantee_find(const struct feature_set *s,
				       const char *name)
{
	for (size_t i = 0; name && i < s->ng; i++)
		if (strcmp(s->g[i].name, name) == 0)
			return &s->g[i];
	return NULL;
}

bool feature_layer_ok(const struct feature_set *s, const char *layer)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->f[i].layer, layer) == 0 && !s->f[i].available)
			return false;
	return true;
}
