/*
 * shadow.c - the commands a hidden PATH entry shadows: with
 * ~/.pyenv/shims before /usr/bin in PATH and ~/.pyenv not granted, a
 * shell under cordon runs /usr/bin/python3 where the user's runs
 * pyenv's, silently (the shell's search skips what it cannot run).
 * Before the run, one note per such entry says which programs will run
 * from where instead, and the option that restores the user's.
 *
 * Outside, before the run: it reads the user's own directories as the
 * user (nothing of the command's yet), lists names only, and prints
 * them escaped.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enforce/base/base.h"
#include "enforce/policy/policy.h"
#include "shim/core/path.h"
#include "shim/core/rule.h"
#include "shim/core/strbuf.h"

#define PATH_DIRS_MAX 64
#define NAMES_SHOWN   3
#define ENTRIES_MAX   4096

struct path_dir {
	char canon[PATH_BUF];
	bool runs; /* the policy lets programs there run */
};

/* @dir/@name, an executable file there? */
static bool runnable(const char *dir, const char *name)
{
	char p[PATH_BUF];

	return snprintf(p, sizeof(p), "%s/%s", dir, name) < (int)sizeof(p) &&
	       access(p, X_OK) == 0;
}

/* The first entry after @i that the policy lets run @name from. */
static const struct path_dir *instead(const struct path_dir *d, size_t n,
				      size_t i, const char *name)
{
	for (size_t j = i + 1; j < n; j++)
		if (d[j].runs && runnable(d[j].canon, name))
			return &d[j];
	return NULL;
}

/* The note for the entry @i, which runs nothing, if it shadows
 * anything (said unless @quiet); true when it does. */
static bool note_entry(const struct policy *p, const struct path_dir *d,
		       size_t n, size_t i, bool quiet)
{
	char names[1024], esc[PATH_BUF * 2], from[PATH_BUF * 2];
	char opt[PATH_BUF + 64];
	struct strbuf nb = STRBUF(names, sizeof(names));
	struct strbuf eb = STRBUF(esc, sizeof(esc));
	struct strbuf fb = STRBUF(from, sizeof(from));
	struct strbuf ob = STRBUF(opt, sizeof(opt));
	const struct path_dir *o;
	size_t shown = 0, seen = 0;
	bool more = false;
	struct dirent *e;
	DIR *dir = opendir(d[i].canon);

	if (!dir)
		return false;
	/* Done at the first name past those shown (or at the first, when
	 * quiet): each name costs an access() per later entry, and a
	 * pyenv's 128 shims made 1,253 at every start. */
	while (!more && !(quiet && shown) && seen++ < ENTRIES_MAX &&
	       (e = readdir(dir))) {
		if (e->d_name[0] == '.' || !runnable(d[i].canon, e->d_name) ||
		    !(o = instead(d, n, i, e->d_name)))
			continue;
		if (shown == NAMES_SHOWN) {
			more = true;
			continue;
		}
		if (!shown)
			sb_escape(&fb, o->canon, SB_TERM, PATH_BUF);
		sb_puts(&nb, shown++ ? ", " : "");
		sb_escape(&nb, e->d_name, SB_TERM, 128);
	}
	closedir(dir);
	if (!shown)
		return false;
	if (quiet || nb.full)
		return true;
	sb_escape(&eb, d[i].canon, SB_TERM, PATH_BUF);
	if (!rule_put_option(&ob, p, NULL, RIGHT_X, d[i].canon))
		opt[0] = '\0';
	fprintf(stderr,
		"cordon: note: PATH's %s is not granted: %s%s will run from "
		"%s%s instead of the user's%s%s\n",
		esc, names, more ? " (and more)" : "", from,
		more ? " and later entries" : "", opt[0] ? "; allow with " : "",
		opt);
	return true;
}

void shadow_note(const struct policy *p, char *const *envp, bool quiet,
		 void (*shadows)(void *arg, const char *dir), void *arg)
{
	static struct path_dir d[PATH_DIRS_MAX];
	const char *path = NULL;
	size_t n = 0;

	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			path = envp[i] + 5;
	while (path && *path && n < PATH_DIRS_MAX) {
		char entry[PATH_BUF];
		size_t len = strcspn(path, ":");

		if (len && len < sizeof(entry) && path[0] == '/') {
			memcpy(entry, path, len);
			entry[len] = '\0';
			if (path_resolve(AT_FDCWD, entry, 0, d[n].canon) == 0 &&
			    path_exists(d[n].canon)) {
				d[n].runs =
					policy_allows(p, RIGHT_X, d[n].canon);
				n++;
			}
		}
		path += len;
		path += *path == ':';
	}
	for (size_t i = 0; i < n; i++)
		if (!d[i].runs && note_entry(p, d, n, i, quiet) && shadows)
			shadows(arg, d[i].canon);
}
