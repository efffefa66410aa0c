/*
 * notes.c - what cordon says before a run: the refusal of a kernel that
 * cannot enforce the policy (each guarantee that nothing here holds,
 * with what would hold it), the one loud line of --best-effort (the
 * same guarantees, nothing else), the
 * notes (advisory features missing, a workspace that is the whole
 * home, git directories past the protected limit).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "enforce/base/base.h"
#include "enforce/linux/linux.h"
#include "enforce/policy/policy.h"

/* Each reason to refuse in @fs (feature.h: a needed guarantee nothing
 * holds, or a needed row of no guarantee), its name and what would
 * hold it, to @say(@i, ...). */
static void reasons(const struct feature_set *fs,
		    void (*say)(size_t i, const char *name, const char *would,
				const char *host),
		    const char *host)
{
	char would[1024];
	size_t n = 0;

	for (size_t i = 0; i < fs->ng; i++)
		if (guarantee_missing(fs, &fs->g[i]))
			say(n++, fs->g[i].name,
			    guarantee_would(fs, &fs->g[i], would,
					    sizeof(would)),
			    host);
	for (size_t i = 0; i < fs->n; i++)
		if (feature_alone_missing(fs, &fs->f[i]))
			say(n++, fs->f[i].name, fs->f[i].needs, host);
}

static void say_refusal(size_t i, const char *name, const char *would,
			const char *host)
{
	(void)i;
	say_error("refusing to run: %s: nothing here holds it; it needs %s "
		  "(this is %s)",
		  name, would, host);
}

void notes_refusal(const struct feature_set *fs, int kernel)
{
	const char *hint = platform_hint(kernel);
	char host[256];

	platform_describe(kernel, host, sizeof(host));
	reasons(fs, say_refusal, host);
	if (hint)
		fprintf(stderr, "hint: %s\n", hint);
	fprintf(stderr, "hint: 'cordon probe' shows what this host enforces; "
			"--best-effort runs without what is missing\n");
}

static void say_unheld(size_t i, const char *name, const char *would,
		       const char *host)
{
	(void)host;
	fprintf(stderr, "%s%s (needs %s)", i ? "; " : "", name, would);
}

void notes_best_effort(const struct feature_set *fs, int kernel)
{
	char host[256];

	platform_describe(kernel, host, sizeof(host));
	fprintf(stderr, "cordon: WARNING: --best-effort: NOT ENFORCED: ");
	reasons(fs, say_unheld, host);
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
