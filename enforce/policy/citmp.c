/*
 * citmp.c - the ci mode's temp dirs (citmp.h), where no sandbox can
 * write them.
 *
 * They live in <state>/ci (cordon's state directory, ~/.local/state/
 * cordon: mode 0700, the user's; a writable root reaching it is
 * protected read-only (roots.c), one at or below it refused here).
 * Every run makes sure <state>/ci exists before its roots are built, so
 * that it is protected in every run, whatever the mode.  A ci dir is
 * named for its launcher: BOOT.PIDNS.PID.START (this boot's id, the
 * PID namespace the pid means something in, the launcher's pid and
 * start time).  Nothing else makes names there, so what the sweep
 * finds is ours: a dir of this boot and namespace whose launcher is
 * gone (no process of that pid, or one started at another time: pids
 * are reused) is removed.  Dirs of another boot or namespace are left
 * (a home shared between hosts or containers: their launchers may
 * live).  Removal is rmtree_at() from the held descriptor of <state>/ci:
 * the command may have left links anywhere in its dir.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "enforce/base/base.h"
#include "shim/core/path.h"

/* <state>/ci, held from citmp_prepare() to citmp_remove() */
static int ci_fd = -1;
/* this launcher's dir in it (its name), and its path */
static char ci_name[96];
static char ci_path[PATH_BUF + 128];

static void say_left(const char *path, const struct rmtree_left *l)
{
	say_error("the ci temp dir '%s' was not removed whole: %zu "
		  "left, the first '%s': %s",
		  path, l->n, l->name, strerror(l->err));
}

/* <state>/ci made if missing, checked, opened.  Return: its descriptor,
 * or -errno with a line in @err. */
static int open_ci(char state[PATH_BUF], char *err, size_t errlen)
{
	struct stat seen, st;
	int sfd, fd, ret = home_state_make(state);

	if (ret) {
		snprintf(err, errlen,
			 "cannot make cordon's state directory for the ci "
			 "temp dirs: %s",
			 strerror(-ret));
		return ret;
	}
	sfd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0 || (mkdirat(sfd, "ci", 0700) < 0 && errno != EEXIST) ||
	    fstatat(sfd, "ci", &seen, AT_SYMLINK_NOFOLLOW) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot make '%s/ci': %s", state,
			 strerror(-ret));
		if (sfd >= 0)
			close(sfd);
		return ret;
	}
	fd = -EPERM;
	if (S_ISDIR(seen.st_mode) && seen.st_uid == geteuid() &&
	    !(seen.st_mode & 077))
		fd = openat(sfd, "ci",
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(sfd);
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != seen.st_dev ||
			st.st_ino != seen.st_ino)) {
		close(fd);
		fd = -EPERM;
	}
	if (fd < 0)
		snprintf(err, errlen,
			 "'%s/ci' is not a directory of the user's own with "
			 "mode 0700 (a link, another owner, or open to "
			 "others): the ci temp dirs cannot go there; remove it",
			 state);
	return fd < 0 ? -EPERM : fd;
}

/* This launcher's name: BOOT.PIDNS.PID.START.  Return: 0, or -1 (no
 * /proc). */
static int self_name(char *out, size_t len)
{
	char bns[80];
	unsigned long long start = procfs_start(0);
	int n;

	if (!start || procfs_boot_ns(bns, sizeof(bns)) < 0)
		return -1;
	n = snprintf(out, len, "%s.%ld.%llu", bns, (long)getpid(), start);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* @name ("PID.START" after this boot's "BOOT.PIDNS."): its launcher
 * gone?  A name that does not parse is never taken for one. */
static bool launcher_gone(const char *name)
{
	unsigned long long start;
	char *end;
	long pid;

	if (name[0] < '1' || name[0] > '9')
		return false;
	errno = 0;
	pid = strtol(name, &end, 10);
	if (errno || pid <= 0 || *end != '.' || end[1] < '1' || end[1] > '9')
		return false;
	start = strtoull(end + 1, &end, 10);
	if (errno || *end)
		return false;
	return procfs_start((pid_t)pid) != start;
}

/* The dirs in <state>/ci of launchers of this boot and namespace that
 * are gone: removed. */
static void sweep(int fd, const char *state)
{
	char bns[80], path[PATH_BUF + 300];
	struct rmtree_left left;
	struct dirent *e;
	size_t len;
	int dfd = -1;
	DIR *d = NULL;

	if (procfs_boot_ns(bns, sizeof(bns)) == 0)
		dfd = dup(fd);
	if (dfd >= 0)
		d = fdopendir(dfd);
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	len = strlen(bns);
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, bns, len) != 0 ||
		    e->d_name[len] != '.' ||
		    !launcher_gone(e->d_name + len + 1))
			continue;
		if (rmtree_at(dirfd(d), e->d_name, &left) < 0) {
			snprintf(path, sizeof(path), "%s/ci/%s", state,
				 e->d_name);
			say_left(path, &left);
		}
	}
	closedir(d);
}

/* This launcher's dir in <state>/ci, with home/ and tmp/. */
static int make_own(int fd, const char *state, char *err, size_t errlen)
{
	int dfd, ret = 0;

	if (self_name(ci_name, sizeof(ci_name)) < 0) {
		snprintf(err, errlen,
			 "cannot name the ci temp dir: /proc does not say "
			 "this boot's id or cordon's start time");
		ci_name[0] = '\0';
		return -ENOENT;
	}
	snprintf(ci_path, sizeof(ci_path), "%s/ci/%s", state, ci_name);
	if (strlen(ci_path) >= PATH_BUF) {
		ret = -ENAMETOOLONG;
		ci_name[0] = '\0';
	} else if (mkdirat(fd, ci_name, 0700) < 0) {
		ret = -errno;
		ci_name[0] = '\0'; /* another's: never ours to remove */
	} else {
		dfd = openat(fd, ci_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0 || mkdirat(dfd, "home", 0700) < 0 ||
		    mkdirat(dfd, "tmp", 0700) < 0)
			ret = -errno;
		if (dfd >= 0)
			close(dfd);
	}
	if (ret)
		snprintf(err, errlen, "cannot make the ci temp dir '%s': %s",
			 ci_path, strerror(-ret));
	return ret;
}

int citmp_prepare(bool make, char dir[PATH_BUF], char *err, size_t errlen)
{
	char state[PATH_BUF];
	int ret, fd = open_ci(state, err, errlen);

	if (fd < 0)
		return fd;
	if (!make) {
		close(fd);
		return 0;
	}
	sweep(fd, state);
	ret = make_own(fd, state, err, errlen);
	ci_fd = fd;
	if (ret) {
		citmp_remove();
		return ret;
	}
	snprintf(dir, PATH_BUF, "%s", ci_path);
	return 0;
}

int citmp_refuse(const struct policy *p, char *err, size_t errlen)
{
	char state[PATH_BUF], canon[PATH_BUF], own[PATH_BUF] = "";

	if (home_state_dir(state) || path_resolve(AT_FDCWD, state, 0, canon))
		return 0;
	if (ci_name[0])
		path_resolve(AT_FDCWD, ci_path, 0, own);
	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		if (r->origin == ORIGIN_PROTECTED || !(r->rights & RIGHT_W) ||
		    !path_is_within(r->path, canon) ||
		    (own[0] && strcmp(r->path, own) == 0))
			continue;
		if (r->origin == ORIGIN_USER)
			snprintf(err, errlen,
				 "--write '%s': cordon's own audit log and "
				 "state are never granted",
				 r->path);
		else
			snprintf(err, errlen,
				 "'%s' would be writable: it is in cordon's "
				 "own state '%s', which no run is granted",
				 r->path, canon);
		return -EPERM;
	}
	return 0;
}

void citmp_remove(void)
{
	struct rmtree_left left;

	if (ci_fd < 0)
		return;
	if (ci_name[0] && rmtree_at(ci_fd, ci_name, &left) < 0)
		say_left(ci_path, &left);
	close(ci_fd);
	ci_fd = -1;
	ci_name[0] = '\0';
}
