/*
 * notes.c - what cordon says before a run: the refusal of a kernel that
 * cannot enforce the policy, the one loud line of --best-effort, the
 * notes (advisory features missing, a workspace that is the whole
 * home, git directories past the protected limit).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "enforce/base/base.h"
#include "enforce/linux/linux.h"
#include "enforce/policy/policy.h"

/* What would hold @f: its own mechanism, or any of its also rows'
 * (feature.h), into @out. */
static const char *holders(const struct feature_set *fs,
			   const struct feature *f, char *out, size_t len)
{
	size_t at = (size_t)snprintf(out, len, "%s", f->needs);

	for (size_t k = 0; k < FEATURE_ALSO_MAX && f->also[k]; k++) {
		const struct feature *by = feature_find(fs, f->also[k]);

		if (by && at < len)
			at += (size_t)snprintf(out + at, len - at, ", or %s",
					       by->needs);
	}
	return out;
}

void notes_refusal(const struct feature_set *fs, int kernel)
{
	const char *hint = platform_hint(kernel);
	char host[256];

	platform_describe(kernel, host, sizeof(host));
	for (size_t i = 0; i < fs->n; i++) {
		const struct feature *f = &fs->f[i];

		char needs[512];

		if (!f->needed || feature_held(fs, f) || f->advisory)
			continue;
		say_error("refusing to run: the kernel cannot enforce %s "
			  "(needs %s; this is %s)",
			  f->name, holders(fs, f, needs, sizeof(needs)), host);
	}
	if (hint)
		fprintf(stderr, "hint: %s\n", hint);
	fprintf(stderr, "hint: 'cordon probe' shows what this host enforces; "
			"--best-effort runs without what is missing\n");
}

void notes_best_effort(const struct feature_set *fs, int kernel)
{
	const char *sep = "";
	char host[256];

	platform_describe(kernel, host, sizeof(host));
	fprintf(stderr, "cordon: WARNING: --best-effort: NOT ENFORCED: ");
	for (size_t i = 0; i < fs->n; i++) {
		const struct feature *f = &fs->f[i];

		char needs[512];

		if (!f->needed || feature_held(fs, f) || f->advisory)
			continue;
		fprintf(stderr, "%s%s (needs %s)", sep, f->name,
			holders(fs, f, needs, sizeof(needs)));
		sep = "; ";
	}
	fprintf(stderr, " [%s]\n", host);
}

static void note_advisory(const struct feature_set *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct feature *f = &fs->f[i];

		if (f->needed && !f->available && f->advisory && !f->gap)
			fprintf(stderr, "cordon: note: no %s (needs %s)\n",
				f->name, f->needs);
	}
}

static void warn_workspace(const struct policy *p)
{
	const char *home = home_dir();
	char cwd[PATH_BUF];

	if (!getcwd(cwd, sizeof(cwd)))
		return;
	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		if (r->origin != ORIGIN_DEFAULT || !(r->rights & RIGHT_W) ||
		    strcmp(r->path, cwd) != 0)
			continue;
		if (strcmp(cwd, "/") == 0 || (home && strcmp(cwd, home) == 0))
			fprintf(stderr,
				"cordon: note: the workspace is '%s', so all "
				"of it is writable; run from a project "
				"directory to narrow it\n",
				cwd);
	}
}

static void warn_git(const struct cli *c)
{
	bool truncated;
	size_t n = gitguard_count(&truncated);

	if (truncated && c->cmd != CMD_LEARN)
		fprintf(stderr,
			"cordon: WARNING: more git directories in the "
			"writable roots than cordon protects (%zu): git "
			"outside may run what the command writes in the "
			"others\n",
			n);
}

void notes_before_run(const struct cli *c, const struct feature_set *fs)
{
	note_advisory(fs);
	warn_workspace(&c->policy);
	warn_git(c);
}
