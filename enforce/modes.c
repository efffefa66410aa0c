/*
 * modes.c - the ci mode's fresh temp dir and fixed environment.
 *
 * The temp dir is made outside the sandbox, before the roots are
 * built, and granted alone (no /tmp, /var/tmp or $TMPDIR of the host);
 * it is removed after the run by the launcher, outside, once the PID
 * namespace is empty: nothing inside can race the removal, and it
 * never follows a symbolic link (nftw, FTW_PHYS).  Its name carries
 * the launcher's pid (a session's daemon's): a launcher killed before
 * it could remove it (SIGKILL) leaves it behind, and the next ci run of
 * the same user removes it, once that pid is gone (its sandbox went
 * with it: pid 1 dies with its parent).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
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

/* @path and all below it, no link followed, no other mount entered. */
static void remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* The ci dirs in @tmp ("cordon-ci.PID.XXXXXX") of this user whose
 * launcher is gone: removed. */
static void sweep(const char *tmp)
{
	char path[PATH_BUF];
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(tmp);
	long pid;
	char *end;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "cordon-ci.", 10) != 0)
			continue;
		errno = 0;
		pid = strtol(e->d_name + 10, &end, 10);
		if (errno || *end != '.' || pid <= 0 || pid == getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) <
			    0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", tmp, e->d_name) <
		    (int)sizeof(path))
			remove_tree(path);
	}
	closedir(d);
}

int modes_prepare(const struct cli *c, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char sub[PATH_BUF + 8];
	int ret = 0;

	if (c->mode != MODE_CI)
		return 0;
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	sweep(tmp);
	if (snprintf(ci_dir, sizeof(ci_dir), "%s/cordon-ci.%ld.XXXXXX", tmp,
		     (long)getpid()) >= (int)sizeof(ci_dir))
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

void modes_cleanup(void)
{
	free(ci_env);
	free(ci_home);
	free(ci_tmp);
	ci_env = NULL;
	ci_home = ci_tmp = NULL;
	if (!ci_dir[0])
		return;
	remove_tree(ci_dir);
	ci_dir[0] = '\0';
}
