/*
 * mounts.c - the command's mount namespace, for what Landlock (ABI 7)
 * leaves open, and for all of it where Landlock is absent.
 *
 *  - The world (world.c): the root holds only the policy's roots, so
 *    what no root grants is not there to read, write or run, with or
 *    without Landlock.  The flags below are set on its mounts.
 *  - Metadata: Landlock has no right for chmod, chown, utimes, xattrs
 *    or inode flags.  Every mount is read-only, except bind mounts of
 *    the roots that grant write, so those calls fail with EROFS outside
 *    the writable roots, whatever makes them (a static binary, a raw
 *    system call).
 *  - Loader tricks: Landlock checks execve, not mmap.  Every mount is
 *    noexec except the roots that grant execute, so ld.so cannot map a
 *    program from a root that is only readable.
 *  - Protected paths (git's hooks and configuration, gitguard.c; shell
 *    startup files; cordon's own files) inside writable roots: Landlock
 *    cannot take a right back below a root, a read-only bind mount can;
 *    the git directory above a protected file of git's is pinned as a
 *    mount point, so that it cannot be renamed away and replaced.  A
 *    protected path that does not exist is left to the shim and to the
 *    sweep after the run (gitsweep.c).
 *  - A /proc of the new PID namespace; /dev/shm, the terminals and the
 *    controlling terminal's name (devices.c); the sockets and secrets
 *    covered (covers.c).
 * Paths stay where they are: a root is bound at its own path, a name
 * outside the roots has a stand-in, and what Landlock refuses is still
 * refused with EACCES and explained by the shim.  Flags are set with
 * mount_setattr, or before Linux 5.12 by a remount of each mount
 * (remount.c).  Mount propagation is private (ns.c made it so first):
 * nothing done here reaches the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce/linux/covers.h"
#include "enforce/linux/linux.h"
#include "enforce/policy/policy.h"
#include "enforce/linux/mounts.h"
#include "enforce/linux/remount.h"
#include "enforce/linux/world.h"
#include "shim/core/path.h"

static int set_attr(const char *path, unsigned int flags,
		    unsigned long long set, unsigned long long clr)
{
	struct mount_attr a = { .attr_set = set, .attr_clr = clr };

	if (syscall(SYS_mount_setattr, AT_FDCWD, path, flags, &a, sizeof(a)) ==
	    0)
		return 0;
	if (errno != ENOSYS) /* before Linux 5.12: the classic way */
		return -1;
	return remount_attr(path, flags & AT_RECURSIVE, set, clr);
}

/* @set and @clr on the mount at @path and every mount below it. */
static int mount_attr(const char *path, unsigned long long set,
		      unsigned long long clr)
{
	return set_attr(path, AT_RECURSIVE, set, clr);
}

/* A mount the namespace makes: a root granting write or execute, a
 * protected path, or a pin (the .git above a protected hook directory:
 * a mount point cannot be renamed, so no other .git can take its
 * place). */
struct entry {
	const char *path;
	unsigned int rights;
	bool protect;
};

/* Shortest path first: a parent's flags are set before a nested one's,
 * so that the nested one (a union of rights, or a protection) wins. */
static int by_length(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	size_t lx = strlen(x->path), ly = strlen(y->path);

	if (lx != ly)
		return lx < ly ? -1 : 1;
	/* the same path: the protection first, a --write lifting it after */
	return (int)y->protect - (int)x->protect;
}

/*
 * The git directory above a protected file of git's (gitguard.c: its
 * hooks, config, ...), once: pinned, it cannot be renamed away and
 * replaced by one with files of the command's.
 */
static bool git_pin(const char *path, char pins[][PATH_BUF], size_t npins)
{
	if (!policy_git_pin(path, pins[npins]))
		return false;
	for (size_t j = 0; j < npins; j++)
		if (strcmp(pins[j], pins[npins]) == 0)
			return false;
	return true;
}

static size_t collect(const struct policy *p, struct entry *e,
		      char pins[][PATH_BUF])
{
	size_t n = 0, npins = 0;

	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];
		bool prot = r->origin == ORIGIN_PROTECTED;

		if (!policy_root_is_mount(r))
			continue;
		e[n++] = (struct entry){ r->path, r->rights, prot };
		if (prot && npins < POLICY_MAX_ROOTS &&
		    git_pin(r->path, pins, npins)) {
			e[n++] = (struct entry){ pins[npins],
						 policy_rights(p, pins[npins]),
						 false };
			npins++;
		}
	}
	qsort(e, n, sizeof(e[0]), by_length);
	return n;
}

/* Clear @clr bit by bit on the one mount at @path (not recursive),
 * leaving a bit the host locked. */
static int clear_one(const char *path, unsigned long long clr)
{
	for (unsigned long long bit = 1; bit <= clr; bit <<= 1)
		if ((clr & bit) && set_attr(path, 0, 0, bit) < 0 &&
		    errno != EPERM && errno != ENOENT)
			return -1;
	return 0;
}

static int clear_mnt(const char *mnt, const char *opts, void *clr)
{
	(void)opts;
	return clear_one(mnt, *(unsigned long long *)clr);
}

/* Every mount at or below @path, one at a time. */
static int clear_each(const char *path, unsigned long long clr)
{
	return remount_each(path, clear_mnt, &clr);
}

/* Clear @clr on the mounts at and below @path.  A flag the host locked
 * on one of them (a /tmp mounted noexec, say) stays there: the host
 * forbids it anyway; the others are cleared all the same. */
static int mount_clear(const char *path, unsigned long long clr)
{
	if (mount_attr(path, 0, clr) == 0)
		return 0;
	if (errno != EPERM)
		return -1;
	return clear_each(path, clr);
}

int mounts_setup(const struct policy *p, const char *keep, char *err,
		 size_t errlen)
{
	static struct entry e[2 * POLICY_MAX_ROOTS];
	static char pins[POLICY_MAX_ROOTS][PATH_BUF];
	char cwd[PATH_BUF];
	size_t n;
	const char *step = "";

	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';

	if (world_enter(p, keep, cwd, &step) < 0)
		goto fail;
	pid1_scatter_pids();
	if (devices_setup(p, &step) < 0)
		goto fail;
	errno = covers_sockets(p, keep);
	if (errno) {
		step = "cover the sockets of processes outside";
		goto fail;
	}
	n = collect(p, e, pins);
	for (size_t i = 0; i < n; i++) {
		step = e[i].path;
		if (mount(e[i].path, e[i].path, NULL, MS_BIND | MS_REC, NULL) <
			    0 &&
		    errno != ENOENT)
			goto fail;
	}
	step = "make the other mounts read-only and noexec";
	if (mount_attr("/", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC, 0) < 0)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		unsigned long long clr = 0;

		if ((e[i].rights & RIGHT_W) && !e[i].protect)
			clr |= MOUNT_ATTR_RDONLY;
		if (e[i].rights & RIGHT_X)
			clr |= MOUNT_ATTR_NOEXEC;
		step = e[i].path;
		/* a secret: covered by an empty thing no one may read */
		if (e[i].protect && !(e[i].rights & RIGHT_R)) {
			if (covers_secret(e[i].path) < 0 && errno != ENOENT)
				goto fail;
			continue;
		}
		/* a protected path inside a writable root: read-only again */
		if (e[i].protect &&
		    mount_attr(e[i].path, MOUNT_ATTR_RDONLY, 0) < 0 &&
		    errno != ENOENT)
			goto fail;
		if (clr && mount_clear(e[i].path, clr) < 0 && errno != ENOENT)
			goto fail;
	}
	covers_done();
	/* The working directory still names the mount under the binds:
	 * look it up again, to stand on the one with the right flags. */
	step = "enter the working directory again";
	if (cwd[0] && chdir(cwd) < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot set up the mount namespace (%s): %s",
		 step, strerror(errno));
	return -1;
}
