/*
 * probe_guarantees.c - the first section of `cordon probe`: each
 * guarantee of the default policy and what holds it on this host
 * ("held by Landlock and the mount namespace"), or what would
 * (feature.h's decision, the launcher's own); and the same as JSON.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "enforce/probe/probe_checks.h"

void probe_guarantees_print(const struct feature_set *fs)
{
	printf("%-62s %s\n", "GUARANTEE", "HELD BY");
	for (size_t i = 0; i < fs->ng; i++) {
		const struct guarantee *g = &fs->g[i];
		const char *words[GUARANTEE_BY_MAX];
		size_t n = guarantee_holders(fs, g, words, GUARANTEE_BY_MAX);
		char text[1024];

		if (!g->needed)
			printf("%-62s not needed\n", g->name);
		else if (n)
			printf("%-62s held by %s\n", g->name,
			       guarantee_join(words, n, " and ", text,
					      sizeof(text)));
		else
			printf("%-62s NOT HELD: needs %s\n", g->name,
			       guarantee_would(fs, g, text, sizeof(text)));
	}
	printf("\n");
}

json_t *probe_guarantees_json(const struct feature_set *fs)
{
	json_t *all = json_array();

	for (size_t i = 0; all && i < fs->ng; i++) {
		const struct guarantee *g = &fs->g[i];
		const char *words[GUARANTEE_BY_MAX];
		size_t n = guarantee_holders(fs, g, words, GUARANTEE_BY_MAX);
		json_t *by = json_array();
		char would[1024];

		for (size_t k = 0; by && k < n; k++)
			json_array_append_new(by, json_string(words[k]));
		json_array_append_new(
			all,
			json_pack("{s:s, s:b, s:b, s:o*, s:s?}", "guarantee",
				  g->name, "needed", g->needed, "held", n > 0,
				  "held_by", by, "would_hold",
				  n ? NULL
				    : guarantee_would(fs, g, would,
						      sizeof(would))));
	}
	return all;
}

bool probe_guarantees_ok(const struct feature_set *fs)
{
	return feature_missing(fs) == 0;
}

const char *probe_stood_in_by(const struct feature_set *fs,
			      const struct feature *f, const char *guarantee,
			      char *out, size_t len)
{
	const char *words[FEATURE_GUARANTEES * GUARANTEE_BY_MAX];
	size_t n = 0;

	for (size_t i = 0; i < fs->ng; i++) {
		const char *some[GUARANTEE_BY_MAX];
		size_t k = 0;

		if (fs->g[i].needed && guarantee_serves(&fs->g[i], f) &&
		    (!guarantee || strcmp(fs->g[i].name, guarantee) == 0))
			k = guarantee_holders(fs, &fs->g[i], some,
					      GUARANTEE_BY_MAX);
		for (size_t j = 0; j < k; j++) {
			bool again = false;

			for (size_t m = 0; m < n; m++)
				again = again || strcmp(words[m], some[j]) == 0;
			if (!again)
				words[n++] = some[j];
		}
	}
	return guarantee_join(words, n, " and ", out, len);
}
