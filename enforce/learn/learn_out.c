/*
 * learn_out.c - `cordon learn`: the profile written where -o names it,
 * through the directory held from before the run, never through a path
 * the command could have changed meanwhile (design.md: learn is a
 * deputy).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "enforce/learn/learn.h"
#include "shim/core/path.h"

/*
 * The directory the profile goes to, held from before the run, and the
 * profile's name in it.  While it learns, the command may replace what
 * it can write: a link in place of the profile (to a file it may not
 * write), or in place of a directory on the way.  The profile is
 * written through this descriptor into a new file, renamed over the
 * name: never through a link (design.md: learn is a deputy).
 */
static int out_dir = -1;
static char out_name[PATH_BUF];

void learn_out_hold(const char *out)
{
	const char *slash = strrchr(out, '/');
	char dir[PATH_BUF];

	snprintf(out_name, sizeof(out_name), "%s", slash ? slash + 1 : out);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - out) : 1,
		 slash ? out : ".");
	if (!out_name[0] || strcmp(out_name, ".") == 0 ||
	    strcmp(out_name, "..") == 0)
		return;
	out_dir = open(dir[0] ? dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

json_t *learn_out_read(void)
{
	int fd = out_dir >= 0 ? openat(out_dir, out_name,
				       O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
			      : -1;
	json_t *prof;

	if (fd < 0)
		return NULL;
	prof = json_loadfd(fd, 0, NULL);
	close(fd);
	if (prof && !json_is_object(prof)) {
		json_decref(prof);
		prof = NULL;
	}
	return prof;
}

int learn_out_write(json_t *prof)
{
	char tmp[64];
	int fd = -1, ret;

	snprintf(tmp, sizeof(tmp), ".cordon-learn.%d.tmp", (int)getpid());

	for (int try = 0; out_dir >= 0 && fd < 0 && try < 2; try++) {
		fd = openat(out_dir, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0666);
		/* one left there (a link the command made): removed, the
		 * link itself, never what it points at */
		if (fd < 0 && errno == EEXIST)
			unlinkat(out_dir, tmp, 0);
	}
	if (fd < 0)
		return -1;
	ret = json_dumpfd(prof, fd, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (close(fd) < 0)
		ret = -1;
	if (!ret)
		ret = renameat(out_dir, tmp, out_dir, out_name);
	if (ret)
		unlinkat(out_dir, tmp, 0);
	return ret;
}
