/*
 * feature.c - the list of kernel features a policy needs and gets.
 */
#include <string.h>

#include "shim/core/feature.h"

void feature_add(struct feature_set *s, struct feature f)
{
	if (s->n < FEATURE_MAX)
		s->f[s->n++] = f;
}

size_t feature_missing(const struct feature_set *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->f[i].needed && !s->f[i].available && !s->f[i].advisory)
			n++;
	return n;
}

bool feature_layer_ok(const struct feature_set *s, const char *layer)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->f[i].layer, layer) == 0 && !s->f[i].available)
			return false;
	return true;
}
