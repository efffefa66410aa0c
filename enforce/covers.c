/*
 * covers.c - things the command's mount namespace covers at the start.
 *
 *  - Sockets: Landlock (ABI 7) does not check connect() on a socket
 *    file.  The socket files bound at the start (listed by
 *    /proc/net/unix, and under /run and the user's runtime directory)
 *    that no writable or --connect-unix root grants, and those in the
 *    shared temp dirs (tmux, X11, ssh-agent) that no --write or
 *    --connect-unix names, are covered with /dev/null.
 *  - Secrets in a readable root (/etc/shadow): Landlock cannot take a
 *    right back below a root; an empty thing of mode 000 mounted over
 *    the secret can.
 * Runs in pid 1 of the new namespaces, before the command exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/covers.h"

#define RUN_DEPTH 8 /* how deep /run is searched for sockets */

static const struct policy *masking;
static const char *mask_keep;
static int mask_failed;

/* Cover the socket file at @path unless the policy lets the command
 * have it: a writable or --connect-unix root grants it, or in a shared
 * temp dir (which the defaults make writable for the command's own
 * files) a --write or --connect-unix root names it. */
static void mask_one(const char *path)
{
	if (mask_keep && strcmp(path, mask_keep) == 0)
		return;
	if (policy_unix_allowed(masking, path) &&
	    !policy_unix_shared(masking, path))
		return;
	/* Processes outside go on while this runs: a socket found a
	 * moment ago may be gone (nothing to cover then), or a directory
	 * now (not a socket) */
	if (mount("/dev/null", path, NULL, MS_BIND, NULL) < 0 &&
	    errno != ENOENT && errno != ENOTDIR)
		mask_failed = errno;
}

static int mask_socket(const char *path, const struct stat *st, int type,
		       struct FTW *ftw)
{
	/* never deeper than the limit */
	if (type == FTW_D && ftw->level >= RUN_DEPTH)
		return FTW_SKIP_SUBTREE;
	if (S_ISSOCK(st->st_mode))
		mask_one(path);
	return FTW_CONTINUE;
}

/*
 * The socket files bound in this network namespace, wherever they are:
 * /proc/net/unix lists them with their paths ("Num RefCount Protocol
 * Flags Type St Inode Path"), so no directory needs searching.  A path
 * that is no socket file now (deleted, already covered, or relative to
 * another process's directory) is left.
 */
static void mask_bound(void)
{
	FILE *f = fopen("/proc/net/unix", "re");
	char *line = NULL, *path;
	size_t cap = 0;
	struct stat st;

	if (!f) {
		mask_failed = errno;
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		path = line;
		for (int field = 0; path && field < 7; field++) {
			path += strspn(path, " ");
			path = strchr(path, ' ');
		}
		if (!path || path[1] != '/')
			continue; /* unbound, abstract (@...) or the header */
		path++;
		path[strcspn(path, "\n")] = '\0';
		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			mask_one(path);
	}
	free(line);
	fclose(f);
}

/*
 * Cover the sockets that processes outside listen on: every socket file
 * bound in this network namespace (docker, D-Bus, ssh-agent, tmux, X11,
 * gpg-agent, wherever they are), and what is under /run and
 * $XDG_RUNTIME_DIR even when bound from another network namespace,
 * unless the policy grants it (see mask_one).  A socket the command
 * makes later is its own; one a process outside binds after the start
 * is not covered.
 */
int covers_sockets(const struct policy *p, const char *keep)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	masking = p;
	mask_keep = keep;
	mask_failed = 0;
	mask_bound();
	nftw("/run", mask_socket, 16, FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL);
	if (xdg && xdg[0] == '/' && !path_is_within(xdg, "/run"))
		nftw(xdg, mask_socket, 16,
		     FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL);
	return mask_failed;
}

/* An empty file of mode 000 to bind over a secret: made on a tmpfs
 * mounted for a moment over /run (its own mounts come back when it is
 * detached; the file lives on through its binds). */
static const char secret_file[] = "/run/.cordon-secret";
static bool secret_made;

static int secret_source(void)
{
	int fd;

	if (secret_made)
		return 0;
	if (mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=4k,mode=700") < 0)
		return -1;
	fd = open(secret_file, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0);
	if (fd < 0 || fchmod(fd, 0) < 0) {
		if (fd >= 0)
			close(fd);
		umount2("/run", MNT_DETACH);
		return -1;
	}
	close(fd);
	secret_made = true;
	return 0;
}

void covers_done(void)
{
	if (secret_made)
		umount2("/run", MNT_DETACH);
	secret_made = false;
}

/* Cover @path with something of mode 000, read-only: an empty directory,
 * or for a file a bind of an empty file, both on a private tmpfs.
 * Without capabilities not even root reads it. */
int covers_secret(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -1;
	if (S_ISDIR(st.st_mode))
		return mount("tmpfs", path, "tmpfs",
			     MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			     "mode=000,size=4k");
	if (secret_source() < 0)
		return -1;
	if (mount(secret_file, path, NULL, MS_BIND, NULL) < 0)
		return -1;
	return mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL);
}
