/*
 * modes.c - the ci mode's fresh temp dir (where it lives, how it is
 * made and removed: citmp.c) and its fixed environment.
 *
 * The temp dir is made outside the sandbox, before the roots are
 * built, and granted alone (no /tmp, /var/tmp or $TMPDIR of the host);
 * it is removed after the run by the launcher, outside, once the PID
 * namespace is empty, through descriptors (rmtree.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/policy/policy.h"
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
	/* every run: <state>/ci there before the roots, so protected */
	if (c->mode != MODE_CI) {
		citmp_prepare(false, ci_dir, err, errlen);
		err[0] = '\0';
		return 0;
	}
	return citmp_prepare(true, ci_dir, err, errlen);
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

void modes_cleanup(void)
{
	free(ci_env);
	free(ci_home);
	free(ci_tmp);
	ci_env = NULL;
	ci_home = ci_tmp = NULL;
	citmp_remove();
	ci_dir[0] = '\0';
}
