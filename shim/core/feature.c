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

const struct feature *feature_find(const struct feature_set *s,
				   const char *name)
{
	for (size_t i = 0; name && i < s->n; i++)
		if (strcmp(s->f[i].name, name) == 0)
			return &s->f[i];
	return NULL;
}

const struct feature *feature_holder(const struct feature_set *s,
				     const struct feature *f)
{
	for (size_t k = 0; k < FEATURE_ALSO_MAX && f->also[k]; k++) {
		const struct feature *by = feature_find(s, f->also[k]);

		if (by && by != f && by->available)
			return by;
	}
	return NULL;
}

bool feature_held(const struct feature_set *s, const struct feature *f)
{
	return f->available || feature_holder(s, f) != NULL;
}

size_t feature_missing(const struct feature_set *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->f[i].needed && !s->f[i].advisory &&
		    !feature_held(s, &s->f[i]))
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
