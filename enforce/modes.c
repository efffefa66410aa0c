/*
 * modes.c - the ci mode's fresh temp dir and fixed environment.
 *
 * The temp dir is made outside the sandbox, before the roots are
 * built, and granted alone (no /tmp, /var/tmp or $TMPDIR of the host);
 * it is removed after the run by the launcher, outside, once the PID
 * namespace is empty: nothing inside can race the removal, and it
 * never follows a symbolic link (nftw, FTW_PHYS).
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/modes.h"
#include "shim/core/env.h"
#include "shim/core/path.h"

static char ci_dir[PATH_BUF];
/* modes_environ()'s, and the two strings of its own: freed by
 * modes_cleanup(), once the command has ended */
static char **ci_env, *ci_home, *ci_tmp;

static const char *const fixed[] = {
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"LANG=C.UTF-8",
	"TZ=UTC",
	"CI=true",
	NULL,
};

int modes_prepare(const struct cli *c, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char sub[PATH_BUF + 8];
	int ret = 0;

	if (c->mode != MODE_CI)
		return 0;
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if (snprintf(ci_dir, sizeof(ci_dir), "%s/cordon-ci.XXXXXX", tmp) >=
	    (int)sizeof(ci_dir))
		ret = -ENAMETOOLONG;
	else if (!mkdtemp(ci_dir))
		ret = -errno;
	for (int i = 0; !ret && i < 2; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", ci_dir, i ? "tmp" : "home");
		if (mkdir(sub, 0700) < 0)
			ret = -errno;
	}
	if (ret) {
		snprintf(err, errlen, "cannot make the ci temp dir in '%s': %s",
			 tmp, strerror(-ret));
		ci_dir[0] = '\0';
	}
	return ret;
}

const char *modes_ci_dir(void)
{
	return ci_dir[0] ? ci_dir : NULL;
}

/* "NAME=DIR/SUB", allocated. */
static char *in_ci_dir(const char *name, const char *sub)
{
	char *s;

	return asprintf(&s, "%s=%s/%s", name, ci_dir, sub) < 0 ? NULL : s;
}

char **modes_environ(struct cli *c)
{
	extern char **environ;
	size_t n = 0, k = 0;
	char **out;

	if (c->mode != MODE_CI || !ci_dir[0])
		return environ;
	while (environ[n])
		n++;
	out = ci_env = calloc(n + 8, sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; fixed[i]; i++)
		out[k++] = (char *)fixed[i];
	out[k++] = ci_home = in_ci_dir("HOME", "home");
	out[k++] = ci_tmp = in_ci_dir("TMPDIR", "tmp");
	if (!ci_home || !ci_tmp)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strchr(environ[i], '=') &&
		    env_name_listed(&c->policy, environ[i]))
			out[k++] = environ[i];
	/* CI passes the scrub (it is no default name) */
	if (c->policy.nenv_names < POLICY_MAX_ENV &&
	    (c->policy.env_names[c->policy.nenv_names] = strdup("CI")))
		c->policy.nenv_names++;
	return out;
}

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void modes_cleanup(void)
{
	free(ci_env);
	free(ci_home);
	free(ci_tmp);
	ci_env = NULL;
	ci_home = ci_tmp = NULL;
	if (!ci_dir[0])
		return;
	nftw(ci_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	ci_dir[0] = '\0';
}
