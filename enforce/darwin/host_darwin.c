/*
 * host_darwin.c - the facts about this Mac that the Seatbelt profile
 * needs, looked up once by the launcher before it renders the profile
 * (sbpl.c itself looks nothing up, so that it can be tested anywhere).
 *
 * Every path is resolved: Seatbelt matches the path the kernel resolved
 * (/tmp is /private/tmp, $TMPDIR is under /private/var/folders).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/darwin/darwin.h"
#include "enforce/policy/policy.h"
#include "enforce/base/base.h"

/* @path resolved into @out (PATH_BUF), or NULL when it is not there. */
static const char *resolved(const char *path, char *out)
{
	if (!path || !*path || path_resolve(AT_FDCWD, path, 0, out) != 0)
		return NULL;
	return access(out, F_OK) == 0 ? out : NULL;
}

/* Where the symbolic link @path leads, or NULL when it is no link. */
static const char *link_target(const char *path, char *out)
{
	struct stat st;

	if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
		return NULL;
	return resolved(path, out);
}

/* A per-user directory confstr() names (it ends with a slash). */
static const char *user_dir(int name, char *out)
{
	char dir[PATH_BUF];
	size_t n = confstr(name, dir, sizeof(dir));

	if (n == 0 || n > sizeof(dir))
		return NULL;
	return resolved(dir, out);
}

static const char *terminal(char *out)
{
	char name[PATH_BUF];

	for (int fd = 0; fd <= 2; fd++)
		if (isatty(fd) && ttyname_r(fd, name, sizeof(name)) == 0)
			return resolved(name, out);
	return NULL;
}

/* Does @p hold the system defaults (not --no-defaults)? */
static bool has_defaults(const struct policy *p)
{
	for (size_t i = 0; i < p->nroots; i++)
		if (p->roots[i].origin == ORIGIN_DEFAULT &&
		    strcmp(p->roots[i].path, "/usr") == 0)
			return true;
	return false;
}

static void add_prefix(struct darwin_host *d, size_t *n, const char *path)
{
	char *out = d->prefix[*n];

	if (*n == DARWIN_SYSTEM_MAX || !resolved(path, out))
		return;
	for (size_t i = 0; i < *n; i++)
		if (strcmp(d->system[i], out) == 0)
			return;
	d->system[(*n)++] = out;
}

/*
 * The macOS part of the system defaults: the Command Line Tools, the
 * developer directory xcode-select chose (/usr/bin/cc, git and make are
 * xcrun's shims that run from it) and its link, and Homebrew's prefix
 * (/opt/homebrew on Apple silicon; on Intel, /usr/local is under /usr).
 */
static void system_prefixes(struct darwin_host *d)
{
	static const char select_link[] = "/var/db/xcode_select_link";
	char target[PATH_BUF];
	size_t n = 0;

	add_prefix(d, &n, "/Library/Developer/CommandLineTools");
	if (link_target(select_link, target)) {
		add_prefix(d, &n, target);
		if (n < DARWIN_SYSTEM_MAX)
			d->system[n++] = select_link; /* sbpl.c maps /var */
	}
	add_prefix(d, &n, getenv("HOMEBREW_PREFIX"));
	add_prefix(d, &n, "/opt/homebrew");
	d->system[n] = NULL;
}

void darwin_host_facts(struct darwin_host *d, const struct policy *p,
		       const char *report)
{
	memset(d, 0, sizeof(*d));
	d->h.tmp = link_target("/tmp", d->tmp);
	d->h.var = link_target("/var", d->var);
	d->h.etc = link_target("/etc", d->etc);
	d->h.home = resolved(home_dir(), d->home);
	d->h.tmpdir = user_dir(_CS_DARWIN_USER_TEMP_DIR, d->tmpdir);
	d->h.cachedir = user_dir(_CS_DARWIN_USER_CACHE_DIR, d->cachedir);
	d->h.tty = terminal(d->tty);
	d->h.report = report;
	if (has_defaults(p)) {
		system_prefixes(d);
		d->h.system = d->system;
	}
}

#define PROFILE_START (256u << 10)
#define PROFILE_LIMIT (16u << 20) /* 256 roots of 4 KiB, escaped */

char *darwin_profile(const struct policy *p, const char *report, char *err,
		     size_t errlen)
{
	static struct darwin_host d;
	size_t cap = PROFILE_START;
	char *buf = NULL;
	int ret;

	darwin_host_facts(&d, p, report);
	do {
		char *more = realloc(buf, cap);
		struct strbuf sb;

		if (!more) {
			free(buf);
			snprintf(err, errlen,
				 "cannot write the Seatbelt "
				 "profile: %s",
				 strerror(ENOMEM));
			return NULL;
		}
		buf = more;
		sb = STRBUF(buf, cap);
		ret = sbpl_render(p, &d.h, &sb, err, errlen);
		cap *= 2;
	} while (ret == -ENOSPC && cap <= PROFILE_LIMIT);
	if (ret) {
		free(buf);
		return NULL;
	}
	return buf;
}
