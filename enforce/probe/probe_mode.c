/*
 * probe_mode.c - `cordon probe --mode MODE`: full, partial or
 * unavailable, for the policy a mode (and any other option) makes.
 *
 * The answer is the launcher's own: the features the policy needs
 * (platform_features()) against what the kernel offers, the check that
 * refuses a run or lets --best-effort run it.  "unavailable" when the
 * kernel has no Landlock and a guarantee is held by nothing, "partial"
 * when another is (a run is refused; with --best-effort it runs
 * without it: "missing" names each guarantee, layer "guarantee", and
 * what would hold it), "full" otherwise.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/base/base.h"
#include "enforce/probe/probe.h"
#include "enforce/policy/policy.h"

static const char *enforcement(const struct feature_set *fs, int state)
{
	if (!feature_missing(fs))
		return "full";
	return state < 1 ? "unavailable" : "partial";
}

json_t *probe_mode_json(const struct feature_set *fs, int state)
{
	json_t *missing = json_array();
	char host[256];

	platform_describe(state, host, sizeof(host));
	for (size_t i = 0; missing && i < fs->ng; i++) {
		const struct guarantee *g = &fs->g[i];
		char would[1024];

		if (guarantee_missing(fs, g))
			json_array_append_new(
				missing,
				json_pack("{s:s, s:s, s:s}", "layer",
					  "guarantee", "feature", g->name,
					  "needs",
					  guarantee_would(fs, g, would,
							  sizeof(would))));
	}
	for (size_t i = 0; missing && i < fs->n; i++) {
		const struct feature *f = &fs->f[i];

		if (feature_alone_missing(fs, f))
			json_array_append_new(
				missing, json_pack("{s:s, s:s, s:s}", "layer",
						   f->layer, "feature", f->name,
						   "needs", f->needs));
	}
	return json_pack("{s:s, s:s, s:o*}", "enforcement",
			 enforcement(fs, state), "host", host, "missing",
			 missing);
}

int probe_mode_run(struct cli *c)
{
	struct feature_set fs = { .n = 0 };
	char err[512 + PATH_BUF], *s;
	json_t *doc;
	int state;

	if (roots_build(c, &c->policy, err, sizeof(err))) {
		say_error("%s", err);
		return EXIT_CORDON;
	}
	state = platform_features(&c->policy, &fs);
	doc = probe_mode_json(&fs, state);
	if (doc)
		json_object_set_new(doc, "mode",
				    json_string(cli_mode_name(c->mode)));
	s = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	if (!s) {
		say_error("probe: out of memory");
		return EXIT_CORDON;
	}
	if (c->json) {
		puts(s);
	} else {
		size_t i;
		json_t *m;

		printf("%s: %s\n", cli_mode_name(c->mode),
		       enforcement(&fs, state));
		json_array_foreach(json_object_get(doc, "missing"), i, m)
			printf("  missing: %s (needs %s)\n",
			       json_string_value(json_object_get(m, "feature")),
			       json_string_value(json_object_get(m, "needs")));
	}
	free(s);
	json_decref(doc);
	return strcmp(enforcement(&fs, state), "full") ? 1 : 0;
}
