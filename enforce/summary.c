/*
 * summary.c - what the launcher says when the command ends: how many
 * denials were recorded and where, and which programs ran without the
 * shim (static binaries, other ELF classes), whose denials only the
 * kernel saw.  Nothing at all when there is nothing to say.
 */
#include <stdio.h>
#include <string.h>

#include "supervise.h"

static void note_unshimmed(struct supervisor *s, const char *program)
{
	for (size_t i = 0; i < s->nunshimmed; i++)
		if (strcmp(s->unshimmed[i], program) == 0)
			return;
	if (s->nunshimmed < SUPERVISE_UNSHIMMED_MAX)
		snprintf(s->unshimmed[s->nunshimmed++], sizeof(s->unshimmed[0]),
			 "%s", program);
}

void supervise_note(struct supervisor *s, json_t *record)
{
	const char *op =
		json_string_value(json_object_get(record, "operation"));
	const char *verdict =
		json_string_value(json_object_get(record, "verdict"));
	const char *layer = json_string_value(json_object_get(record, "layer"));
	const char *path = json_string_value(json_object_get(record, "path"));

	if (op && path && strcmp(op, "exec-unshimmed") == 0) {
		note_unshimmed(s, path);
		return;
	}
	if (!verdict || strcmp(verdict, "deny") != 0)
		return;
	s->denials++;
	if (layer && strcmp(layer, "kernel") == 0)
		s->kernel_denials++;
}

void supervise_summary(const struct supervisor *s)
{
	if (s->denials)
		fprintf(stderr, "cordon: %zu denial%s recorded in %s\n",
			s->denials, s->denials == 1 ? "" : "s", s->logpath);
	for (size_t i = 0; i < s->nunshimmed; i++)
		fprintf(stderr,
			"cordon: %s ran without the shim (static or foreign "
			"binary): the kernel enforced its policy, but its "
			"denials are not explained\n",
			s->unshimmed[i]);
}
