/*
 * world.c - the command's world: a root that holds only what the policy
 * grants.
 *
 * Landlock refuses what the policy does not grant, where the kernel has
 * it (5.13 on, and only when "landlock" is in the lsm= list).  Where it
 * does not, the world holds the same confinement with mounts alone: a
 * fresh tmpfs becomes the root, each root of the policy (read, write,
 * execute or connect) is bound into it at its own path, and the
 * directories above them are directories of the tmpfs, as bubblewrap
 * builds one.  What no root grants is not there: a static binary finds
 * no ~/.ssh to read, no /var to write, no program outside the exec roots
 * to run, whatever it calls.  The flags (read-only, noexec) are
 * mounts.c's, set after this on the world's mounts.
 *
 * Beside the roots that world keeps the launcher's report socket, the
 * working directory (empty when no root grants it, so that the command
 * starts where it was asked to and reads nothing there), and the mount
 * points the rest of the namespace needs (/proc, /dev, /run).  In each
 * directory it makes, the host's other names have stand-ins: a symbolic
 * link as it is (/bin -> usr/bin: a link shows a name and its target,
 * as readlink does under Landlock, and leads only where the world has
 * something), anything else an empty directory or file of mode 000: a
 * program that tests for ~/.gitconfig finds it as it would bare; what
 * is in it, or under it, is not there.
 *
 * Where Landlock holds the reads, the world is the host's tree, bound
 * whole: Landlock checks no stat, and the shim, to name the narrowest
 * grant for a refused path, must find how far that path exists (a
 * stand-in directory holds nothing below it: the grant it could name
 * would be the stand-in, wider than needed).  Both worlds have a /dev of
 * their own (make_dev()), which Landlock alone cannot give: no disk or
 * other device of the host, which a root user's command could read.
 *
 * How: a tmpfs over /tmp of this (private) mount namespace is a staging
 * root; pivot_root into it leaves the host's tree at /oldroot, the
 * source of every bind; the world is built at /newroot, then becomes the
 * root by pivot_root(".", "."), and the staging root with the host's
 * tree under it is detached.  The host's paths are never written: every
 * mkdir and file made here is on the world's tmpfs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce/linux/linux.h"
#include "enforce/linux/world.h"
#include "shim/core/landlock.h"
#include "shim/core/path.h"

#define STAGE "/tmp"
#define OLD   "/oldroot"
#define NEW   "/newroot"

/* Is the path @path there in the world already (as anything)? */
static bool there(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* What the world holds in its own right: the policy's roots and the
 * directories above them, the working directory, the report socket,
 * the mount points. */
static const struct policy *world_p;
static const char *world_cwd, *world_keep;
static bool world_stand_ins; /* the host's tree is not there */
static const char *const points[] = { "/proc", "/dev", "/run" };

static bool wanted(const char *path)
{
	/* by name: a link (/bin) that leads to a root is kept as a link */
	for (size_t i = 0; i < world_p->nroots; i++)
		if (world_p->roots[i].rights &&
		    path_is_within(world_p->roots[i].path, path))
			return true;
	if ((world_cwd && path_is_within(world_cwd, path)) ||
	    (world_keep && path_is_within(world_keep, path)))
		return true;
	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++)
		if (strcmp(points[i], path) == 0)
			return true;
	return false;
}

/* Stand-ins, in the world's directory for the host's @dir, for what the
 * world does not hold there: a link as it is; anything else an empty
 * thing of mode 000 of its kind (directory or file), so that a name is
 * seen as under Landlock, and nothing under it is there. */
static void stand_in(const char *dir)
{
	char host[PATH_BUF], mine[PATH_BUF], target[PATH_BUF];
	const char *sep = strcmp(dir, "/") ? "/" : "";
	struct dirent *e;
	DIR *d;

	if (snprintf(host, sizeof(host), OLD "%s", dir) >= (int)sizeof(host))
		return;
	d = opendir(host);
	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *name = e->d_name;
		unsigned char type = e->d_type;
		struct stat st;
		ssize_t n;
		int fd;

		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
		    snprintf(mine, sizeof(mine), NEW "%s%s%s", dir, sep,
			     name) >= (int)sizeof(mine) ||
		    wanted(mine + strlen(NEW)) || there(mine))
			continue;
		if (type == DT_UNKNOWN) { /* a filesystem that does not say */
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW))
				continue;
			type = IFTODT(st.st_mode);
		}
		if (type == DT_LNK) {
			n = readlinkat(dirfd(d), name, target,
				       sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			if (symlink(target, mine) < 0)
				continue; /* the world lacks it: no harm */
		} else if (type == DT_DIR) {
			(void)!mkdir(mine, 0);
		} else {
			fd = open(mine, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				  0);
			if (fd >= 0)
				close(fd);
		}
	}
	closedir(d);
}

/* The directories above @path (and @path itself when @self) in the
 * world, each one made with its stand-ins. */
static int make_dirs(const char *path, bool self)
{
	char mine[PATH_BUF];
	size_t len = strlen(path), base = strlen(NEW);

	if (base + len >= sizeof(mine))
		return errno = ENAMETOOLONG, -1;
	memcpy(mine, NEW, base);
	memcpy(mine + base, path, len + 1);
	for (size_t i = base + 1; i <= base + len; i++) {
		if (mine[i] != '/' && mine[i] != '\0')
			continue;
		if (mine[i] == '\0' && !self)
			break;
		mine[i] = '\0';
		if (mkdir(mine, 0755) == 0 && world_stand_ins)
			stand_in(mine + base);
		else if (errno != EEXIST)
			return -1;
		if (i < base + len)
			mine[i] = '/';
	}
	return 0;
}

/* In the world, the directories above @path and @path itself, a
 * directory (@dir) or an empty file: something to mount over. */
static int make_target(const char *path, const char *mine, bool dir)
{
	int fd;

	if (make_dirs(path, false) < 0)
		return -1;
	if (dir)
		return mkdir(mine, 0755) < 0 && errno != EEXIST ? -1 : 0;
	/* a file, a socket, a device: a file to bind over */
	fd = open(mine, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	return close(fd);
}

/* Bind the host's @path at the same place in the world.  A path the
 * host lacks is not an error: the world lacks it too. */
static int bind_in(const char *path)
{
	char host[PATH_BUF], mine[PATH_BUF];
	struct stat st;

	if (snprintf(host, sizeof(host), OLD "%s",
		     strcmp(path, "/") ? path : "") >= (int)sizeof(host) ||
	    snprintf(mine, sizeof(mine), NEW "%s",
		     strcmp(path, "/") ? path : "") >= (int)sizeof(mine))
		return errno = ENAMETOOLONG, -1;
	if (lstat(host, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	if (strcmp(path, "/") != 0 &&
	    make_target(path, mine, S_ISDIR(st.st_mode)) < 0)
		return -1;
	return mount(host, mine, NULL, MS_BIND | MS_REC, NULL);
}

/* Shortest first: a root inside one bound already is there with it. */
static int by_length(const void *a, const void *b)
{
	size_t x = strlen(*(const char *const *)a);
	size_t y = strlen(*(const char *const *)b);

	return x < y ? -1 : x > y;
}

/* Is @path inside one of the first @n of @paths? */
static bool inside_any(const char *path, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (path_is_within(path, paths[i]))
			return true;
	return false;
}

/* Is @r the default /dev, which the world makes of its own? */
static bool default_dev(const struct root *r)
{
	return r->origin == ORIGIN_DEFAULT && strcmp(r->path, "/dev") == 0;
}

/*
 * The default /dev: a tmpfs of the world's, where the roots below /dev
 * (the harmless devices, the terminal, /dev/pts, /dev/shm: the policy's
 * own) are bound one by one and the links to /proc/self/fd made, as
 * bubblewrap's --dev.  No disk, no other device of the host is there,
 * whatever the command's uid may open: Landlock's rules (which let /dev
 * be read) and the world agree on the devices written to, and the world
 * alone keeps a root user's command from reading a raw disk.  The name
 * of the controlling terminal (DEVICES_CONSOLE) is a file here that
 * devices.c binds the terminal over.
 */
static int make_dev(void)
{
	static const char *const links[][2] = {
		{ "/proc/self/fd", NEW "/dev/fd" },
		{ "/proc/self/fd/0", NEW "/dev/stdin" },
		{ "/proc/self/fd/1", NEW "/dev/stdout" },
		{ "/proc/self/fd/2", NEW "/dev/stderr" },
	};

	if (make_dirs("/dev", true) < 0 ||
	    mount("tmpfs", NEW "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC,
		  "mode=0755") < 0)
		return -1;
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (symlink(links[i][0], links[i][1]) < 0)
			return -1;
	return 0;
}

/* An empty file at @path in the world, for something to be bound over
 * it later. */
static int make_file(const char *path)
{
	char mine[PATH_BUF];

	if (snprintf(mine, sizeof(mine), NEW "%s", path) >= (int)sizeof(mine))
		return errno = ENAMETOOLONG, -1;
	return make_target(path, mine, false);
}

bool world_stands_in(void)
{
	return landlock_abi() < 1;
}

static int build(const struct policy *p, const char *keep, const char *cwd,
		 bool whole, const char **step)
{
	static const char *paths[POLICY_MAX_ROOTS + 1];
	bool dev = false;
	size_t n = 0;

	world_p = p;
	world_cwd = cwd[0] == '/' ? cwd : NULL;
	world_keep = keep && keep[0] == '/' ? keep : NULL;
	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		if (!r->rights || path_is_within(r->path, "/proc"))
			continue;
		if (default_dev(r))
			dev = true;
		else if (!whole || path_is_within(r->path, "/dev"))
			paths[n++] = r->path;
	}
	if (world_keep && !whole)
		paths[n++] = keep;
	qsort(paths, n, sizeof(paths[0]), by_length);
	*step = "make the world's root";
	world_stand_ins = !whole;
	if (whole && mount(OLD, NEW, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -1;
	if (!whole)
		stand_in("/");
	*step = "make the world's /dev";
	if (dev && make_dev() < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (inside_any(paths[i], paths, i))
			continue;
		*step = paths[i];
		/* the terminal's name: devices.c binds the terminal there */
		if (strcmp(paths[i], DEVICES_CONSOLE) == 0) {
			if (make_file(paths[i]) < 0)
				return -1;
		} else if (bind_in(paths[i]) < 0) {
			return -1;
		}
	}
	if (whole)
		return 0;
	*step = "make the world's mount points";
	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++)
		if (!inside_any(points[i], paths, n) &&
		    make_dirs(points[i], true) < 0)
			return -1;
	*step = "make the working directory";
	if (world_cwd && !inside_any(world_cwd, paths, n) &&
	    make_dirs(world_cwd, true) < 0)
		return -1;
	return 0;
}

int world_enter(const struct policy *p, const char *keep, const char *cwd,
		const char **step)
{
	*step = "mount the world's staging root";
	if (mount("tmpfs", STAGE, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") <
		    0 ||
	    mkdir(STAGE OLD, 0700) < 0 || mkdir(STAGE NEW, 0755) < 0 ||
	    mount("tmpfs", STAGE NEW, "tmpfs", MS_NOSUID | MS_NODEV,
		  "mode=0755") < 0)
		return -1;
	*step = "enter the world's staging root";
	if (chdir(STAGE) < 0 || syscall(SYS_pivot_root, STAGE, STAGE OLD) < 0 ||
	    chdir("/") < 0)
		return -1;
	if (build(p, keep, cwd, !world_stands_in(), step) < 0)
		return -1;
	/* A /proc of the new PID namespace, mounted while the host's is
	 * still in this mount namespace: a user namespace may mount a proc
	 * only where one is fully visible already. */
	*step = "mount /proc";
	if (mount("proc", NEW "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0)
		return -1;
	/* The world becomes the root; the staging root, and the host's
	 * tree under it, go with the old root. */
	*step = "enter the world";
	if (chdir(NEW) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
		return -1;
	return 0;
}
