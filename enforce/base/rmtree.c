/*
 * rmtree.c - remove a tree through descriptors only (rmtree.h).
 *
 * The walk holds the descriptor of one directory at a time (and the
 * caller's): a directory is entered with openat(O_NOFOLLOW |
 * O_DIRECTORY) from its parent's descriptor and must be the inode
 * fstatat() saw under that name (a swap in between is seen, and the
 * name looked at again); the walk goes back up through "..", which
 * must be the parent it came from (a directory moved away is left
 * where it went: the walk starts again from the top).  The (device,
 * inode) of each directory on the way down lives on the heap, so depth
 * costs no stack.  Nothing is ever reached by a path built from names,
 * and no directory of another mount is entered (its device, and where
 * /proc tells, its mount id: a bind mount of the same file system).
 *
 * A directory is read from its start each time the walk comes back to
 * it: what was removed is gone, what could not be is in the walk's
 * list of entries left and is skipped, so each entry is tried once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/base/base.h"

/* Restarts from the top in a row, with nothing removed in between, when
 * a directory moved out under the walk. */
#define RESTARTS_MAX 8
/* Tries of one name that changed between fstatat() and its use. */
#define TRIES_MAX 4

struct id {
	dev_t dev;
	ino_t ino;
};

struct walk {
	int top;	  /* the caller's directory */
	const char *name; /* the tree's name in it */
	uid_t euid;
	struct id *stack; /* the directories from the top down */
	size_t depth, cap;
	struct id *left; /* entries left: never tried again */
	size_t nleft, capleft;
	struct id done;		/* the directory the walk just came up from */
	unsigned long removed;	/* entries removed so far */
	unsigned long long mnt; /* the top's mount, when /proc says */
	bool has_mnt;
	struct rmtree_left *out;
};

static bool same(struct id a, const struct stat *st)
{
	return a.dev == st->st_dev && a.ino == st->st_ino;
}

static struct id id_of(const struct stat *st)
{
	return (struct id){ .dev = st->st_dev, .ino = st->st_ino };
}

static bool grow(struct id **v, size_t *cap, size_t need)
{
	struct id *n;
	size_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return true;
	while (c < need)
		c *= 2;
	n = realloc(*v, c * sizeof(*n));
	if (!n)
		return false;
	*v = n;
	*cap = c;
	return true;
}

static bool is_left(const struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->nleft; i++)
		if (same(w->left[i], st))
			return true;
	return false;
}

/* @name (@st, or NULL when it could not be looked at) stays, for
 * @err. */
static void leave(struct walk *w, const struct stat *st, const char *name,
		  int err)
{
	if (st && grow(&w->left, &w->capleft, w->nleft + 1))
		w->left[w->nleft++] = id_of(st);
	if (w->out->n++ == 0) {
		w->out->err = err;
		snprintf(w->out->name, sizeof(w->out->name), "%s", name);
	}
}

/* u+rwx on a directory of ours that lacks it, by descriptor. */
static void own_rwx(int fd, const struct stat *st, uid_t euid)
{
	if (st->st_uid == euid && (st->st_mode & S_IRWXU) != S_IRWXU)
		fchmod(fd, (st->st_mode & 07777) | S_IRWXU);
}

/*
 * @name in @at, which fstatat() saw as the directory @seen: opened
 * without following a link and checked to be that inode, on the top's
 * mount.  One of ours that cannot be read or searched is made u+rwx
 * first (never following a link: a swapped name is at worst another
 * directory of the tree).
 * Return: its descriptor, or -errno (-ESTALE: not the one seen;
 * -EXDEV: another mount).
 */
static int open_dir(struct walk *w, int at, const char *name,
		    const struct stat *seen)
{
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(at, name, flags);
	unsigned long long mnt;
	struct stat st;

	if (fd < 0 && errno == EACCES && seen->st_uid == w->euid &&
	    fchmodat(at, name, (seen->st_mode & 07777) | S_IRWXU,
		     AT_SYMLINK_NOFOLLOW) == 0)
		fd = openat(at, name, flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !same(id_of(seen), &st)) {
		close(fd);
		return -ESTALE;
	}
	if (w->has_mnt && (procfs_mnt_id(fd, &mnt) < 0 || mnt != w->mnt)) {
		close(fd); /* a bind mount: a device of its parent's */
		return -EXDEV;
	}
	own_rwx(fd, &st, w->euid);
	return fd;
}

/*
 * One entry of the directory @at: a file unlinked, a directory
 * entered (its descriptor in *@child: return 1) or removed when the
 * walk has just emptied it.
 * Return: 1 to enter *@child, 0 to go on with the next entry.
 */
static int one(struct walk *w, int at, const char *name, int *child)
{
	struct stat st;
	int fd;

	for (int tries = 0; tries < TRIES_MAX; tries++) {
		if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				leave(w, NULL, name, errno);
			return 0;
		}
		if (is_left(w, &st))
			return 0;
		if (st.st_dev != w->stack[0].dev) {
			leave(w, &st, name, EXDEV); /* a mount point */
			return 0;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (unlinkat(at, name, 0) == 0) {
				w->removed++;
				return 0;
			}
			if (errno == ENOENT)
				return 0;
			if (errno == EISDIR)
				continue; /* swapped for a directory */
			leave(w, &st, name, errno);
			return 0;
		}
		if (same(w->done, &st)) {
			if (unlinkat(at, name, AT_REMOVEDIR) == 0)
				w->removed++;
			else if (errno != ENOENT)
				leave(w, &st, name, errno);
			return 0;
		}
		if (w->depth >= RMTREE_DEPTH_MAX ||
		    !grow(&w->stack, &w->cap, w->depth + 1)) {
			leave(w, &st, name,
			      w->depth >= RMTREE_DEPTH_MAX ? ENAMETOOLONG
							   : ENOMEM);
			return 0;
		}
		fd = open_dir(w, at, name, &st);
		if (fd == -ESTALE || fd == -ELOOP || fd == -ENOTDIR)
			continue; /* swapped: look again */
		if (fd < 0) {
			leave(w, &st, name, -fd);
			return 0;
		}
		w->stack[w->depth++] = id_of(&st);
		*child = fd;
		return 1;
	}
	leave(w, NULL, name, ESTALE);
	return 0;
}

/* Read @d from its start.  Return: 1 with a directory to enter in
 * *@child, or 0 at its end. */
static int scan(struct walk *w, DIR *d, int *child)
{
	struct dirent *e;

	rewinddir(d);
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (one(w, dirfd(d), e->d_name, child))
			return 1;
	}
	return 0;
}

/* The top directory opened again (the walk starts over).  Return: its
 * stream, or NULL. */
static DIR *reopen_top(struct walk *w)
{
	struct stat st;
	DIR *d;
	int fd;

	if (fstatat(w->top, w->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !same(w->stack[0], &st))
		return NULL;
	fd = open_dir(w, w->top, w->name, &st);
	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	w->depth = 1;
	return d;
}

/* Up from @d to its parent, which must be the one the walk came from.
 * Return: the parent's stream; NULL when it is not (or on error). */
static DIR *up(struct walk *w, DIR *d)
{
	int fd = openat(dirfd(d), "..",
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	DIR *p = NULL;

	w->done = w->stack[--w->depth];
	closedir(d);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && same(w->stack[w->depth - 1], &st))
		p = fdopendir(fd);
	if (!p)
		close(fd);
	return p;
}

/* Empty the top directory, opened as @d. */
static void walk(struct walk *w, DIR *d)
{
	unsigned long seen = w->removed;
	int child, restarts = 0;

	while (d) {
		if (scan(w, d, &child)) {
			closedir(d);
			d = fdopendir(child);
			if (d)
				continue;
			close(child);
			w->depth--;
		} else if (w->depth == 1) {
			break;
		} else if ((d = up(w, d))) {
			continue;
		}
		/* moved away under the walk: from the top again */
		if (w->removed != seen)
			restarts = 0;
		seen = w->removed;
		d = ++restarts <= RESTARTS_MAX ? reopen_top(w) : NULL;
	}
	if (d)
		closedir(d);
}

int rmtree_at(int dirfd, const char *name, struct rmtree_left *left)
{
	struct rmtree_left none;
	struct walk w = { .top = dirfd, .name = name, .euid = geteuid() };
	struct stat st;
	DIR *d;
	int fd;

	w.out = left ? left : &none;
	memset(w.out, 0, sizeof(*w.out));
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			leave(&w, &st, name, errno);
		return w.out->n ? -w.out->err : 0;
	}
	if (!grow(&w.stack, &w.cap, 1))
		return -ENOMEM;
	w.stack[w.depth++] = id_of(&st);
	fd = open_dir(&w, dirfd, name, &st);
	w.has_mnt = fd >= 0 && procfs_mnt_id(fd, &w.mnt) == 0;
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d && fd >= 0)
		close(fd);
	walk(&w, d);
	/* the top itself, if it is still the directory the walk emptied */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			leave(&w, NULL, name, errno);
	} else if (!same(w.stack[0], &st)) {
		leave(&w, NULL, name, ESTALE); /* another in its place */
	} else if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
		leave(&w, &st, name, errno);
	}
	free(w.stack);
	free(w.left);
	return w.out->n ? -w.out->err : 0;
}
