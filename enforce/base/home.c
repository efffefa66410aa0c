/*
 * home.c - where the user's files and cordon's own state are (home.h).
 *
 * One answer for every part of the launcher: the roots (~ in a
 * --read), the profiles ("create"), the state directory of the ci
 * mode's temp dirs, of the sockets and of the audit log.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/base/base.h"

const char *home_dir(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (home && *home == '/')
		return home;
	pw = getpwuid(getuid());
	return pw && pw->pw_dir ? pw->pw_dir : NULL;
}

int home_expand(const char *path, char out[PATH_BUF])
{
	const char *home;
	int n;

	if (path[0] == '~' && (path[1] == '\0' || path[1] == '/')) {
		home = home_dir();
		if (!home)
			return -ENOENT;
		/* a home of "/" (HOME=/) names no "//" */
		n = snprintf(out, PATH_BUF, "%s%s",
			     strcmp(home, "/") == 0 && path[1] ? "" : home,
			     path + 1);
	} else {
		n = snprintf(out, PATH_BUF, "%s", path);
	}
	if (n < 0 || n >= PATH_BUF)
		return -ENAMETOOLONG;
	return 0;
}

int home_state_dir(char out[PATH_BUF])
{
	const char *xdg = getenv("XDG_STATE_HOME");
	const char *home = home_dir();
	int n;

	if (xdg && *xdg == '/')
		n = snprintf(out, PATH_BUF, "%s/cordon", xdg);
	else if (home)
		n = snprintf(out, PATH_BUF, "%s/.local/state/cordon",
			     strcmp(home, "/") == 0 ? "" : home);
	else
		return -ENOENT;
	return n < 0 || n >= PATH_BUF ? -ENAMETOOLONG : 0;
}

int home_state_make(char out[PATH_BUF])
{
	int ret = home_state_dir(out);

	return ret ? ret : home_mkdirs(out, 0700);
}

int home_mkdirs(char *path, mode_t mode)
{
	int ret = 0;

	for (char *s = path + 1; !ret; s++) {
		char keep = *s;

		if (keep != '/' && keep != '\0')
			continue;
		*s = '\0';
		if (mkdir(path, mode) < 0 && errno != EEXIST)
			ret = -errno;
		*s = keep;
		if (!keep)
			break;
	}
	return ret;
}
