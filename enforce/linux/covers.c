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
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/linux/covers.h"
#include "shim/core/path.h"

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

static void mask_below(int dir, char path[PATH_BUF], size_t len, dev_t dev,
		       int level);

/* The entry @e of the directory @dir (at @path, @len long, @level deep):
 * a socket covered, a directory on @dev searched. */
static void mask_entry(int dir, const struct dirent64 *e, char path[PATH_BUF],
		       size_t len, dev_t dev, int level)
{
	const char *name = e->d_name;
	size_t n = strlen(name);
	unsigned char type = e->d_type;
	struct stat st;
	int sub;

	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    len + 1 + n >= PATH_BUF)
		return;
	if (type == DT_UNKNOWN) { /* a filesystem that does not say */
		if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return;
		type = IFTODT(st.st_mode);
	}
	path[len] = '/';
	memcpy(path + len + 1, name, n + 1);
	if (type == DT_SOCK) {
		mask_one(path);
	} else if (type == DT_DIR && level + 1 < RUN_DEPTH) {
		/* never through a symbolic link, never into another mount */
		sub = openat(dir, name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0 && fstat(sub, &st) == 0 && st.st_dev == dev)
			mask_below(sub, path, len + 1 + n, dev, level + 1);
		if (sub >= 0)
			close(sub);
	}
	path[len] = '\0';
}

/* Every entry of the directory @dir, read in batches with the types
 * getdents gives (no stat of each, no allocation: nftw(3) stats every
 * entry and allocates 32 KB a level, ~0.2 ms of each start here). */
static void mask_below(int dir, char path[PATH_BUF], size_t len, dev_t dev,
		       int level)
{
	char buf[1024] __attribute__((aligned(8)));
	ssize_t n;

	while ((n = getdents64(dir, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *e =
				(const struct dirent64 *)(buf + off);

			off += e->d_reclen;
			mask_entry(dir, e, path, len, dev, level);
		}
}

/* The sockets below @root, RUN_DEPTH levels deep at most, on its own
 * mount only, never through a symbolic link. */
static void mask_tree(const char *root)
{
	char path[PATH_BUF];
	size_t len = strlen(root);
	struct stat st;
	int dir;

	while (len > 1 && root[len - 1] == '/')
		len--;
	if (len >= PATH_BUF)
		return;
	memcpy(path, root, len);
	path[len] = '\0';
	dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return;
	if (fstat(dir, &st) == 0)
		mask_below(dir, path, len == 1 ? 0 : len, st.st_dev, 0);
	close(dir);
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
	mask_tree("/run");
	if (xdg && xdg[0] == '/' && !path_is_within(xdg, "/run"))
		mask_tree(xdg);
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
