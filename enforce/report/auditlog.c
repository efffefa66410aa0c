/*
 * auditlog.c - the audit log file (auditlog.h): where it is opened, how
 * a line is appended, how it is rotated.
 *
 * The log lives outside the sandbox, but its directory may be one that
 * something sandboxed can write (a sibling run's writable root, a
 * --log in the workspace): nothing here goes through a path it could
 * swap.  The directory is opened once, at the start, by the name the
 * user gave; the file is opened in it with O_NOFOLLOW; a rotation
 * renames within that directory descriptor (renameat) and opens the new
 * file the same way.  A symbolic link planted at the name is refused
 * (ELOOP), never followed: an append never lands in a file the user did
 * not name, which as root could be any file.
 *
 * Several runs may append to one log at once, each with its own
 * descriptor.  Each line is written under an exclusive flock(2) on the
 * file at the log's name: a run whose descriptor is no longer that file
 * (another rotated it) opens the new one before it writes, so no line
 * lands in a rotated file after its rotation, and lines never
 * interleave.  A writer that takes no lock (an older cordon) may still
 * write to a file that was just rotated: its lines are in FILE.1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/report/report.h"

#ifndef O_PATH
#define O_PATH 0 /* macOS: a directory opened for reading */
#endif

/* The log's file flags: appending, never through a link. */
#define LOG_FLAGS (O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC)

/* Tries to catch up with rotations made by other runs meanwhile. */
#define CATCH_UP 8

int auditlog_open(struct auditlog *l, const char *path)
{
	const char *slash = strrchr(path, '/'),
		   *base = slash ? slash + 1 : path;
	char dir[PATH_MAX];
	struct stat st;
	int n;

	*l = AUDITLOG_NONE;
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -EISDIR;
	if (strlen(base) >= sizeof(l->name))
		return -ENAMETOOLONG;
	if (!slash)
		n = snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		n = snprintf(dir, sizeof(dir), "/");
	else
		n = snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path),
			     path);
	if (n < 0 || n >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	l->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (l->dirfd < 0)
		return -errno;
	memcpy(l->name, base, strlen(base) + 1);
	l->fd = openat(l->dirfd, l->name, LOG_FLAGS | O_NOCTTY, 0600);
	if (l->fd < 0 || fstat(l->fd, &st) < 0) {
		int err = errno;

		auditlog_close(l);
		return -err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(l->dirfd);
		l->dirfd = -1;
	}
	return 0;
}

/* A file system that has no flock(2) (some FUSE ones) still takes the
 * records: rotated, but without the guarantee for runs at once. */
static int lock(int fd, int how)
{
	while (flock(fd, how) < 0)
		if (errno != EINTR)
			return errno == ENOLCK || errno == EOPNOTSUPP ||
					       errno == EINVAL
				       ? 0
				       : -errno;
	return 0;
}

/* Is l->fd the file at the log's name? */
static bool is_current(const struct auditlog *l, struct stat *st)
{
	struct stat at;

	return fstat(l->fd, st) == 0 &&
	       fstatat(l->dirfd, l->name, &at, AT_SYMLINK_NOFOLLOW) == 0 &&
	       at.st_dev == st->st_dev && at.st_ino == st->st_ino;
}

/* l->fd for the file at the log's name (created when a rotation left
 * none), in place of the one it was. */
static int reopen(struct auditlog *l)
{
	int fd = openat(l->dirfd, l->name, LOG_FLAGS | O_NOCTTY, 0600);

	if (fd < 0)
		return -errno;
	close(l->fd);
	l->fd = fd;
	return 0;
}

/* The file at the log's name, locked, its size in @st. */
static int lock_current(struct auditlog *l, struct stat *st)
{
	int ret;

	for (int i = 0; i < CATCH_UP; i++) {
		ret = lock(l->fd, LOCK_EX);
		if (ret)
			return ret;
		if (is_current(l, st))
			return 0;
		flock(l->fd, LOCK_UN);
		ret = reopen(l);
		if (ret)
			return ret;
	}
	return -EAGAIN;
}

/* "NAME.N" into @out. */
static int old_name(const struct auditlog *l, int n, char out[NAME_MAX + 1])
{
	int len = snprintf(out, NAME_MAX + 1, "%s.%d", l->name, n);

	return len < 0 || len > NAME_MAX ? -ENAMETOOLONG : 0;
}

/*
 * With the current file locked: NAME.1 to NAME.2 (the old NAME.2
 * goes), NAME to NAME.1, a new NAME, locked in its place.  Every rename
 * within the directory held; the new file is opened without following
 * a link, so that what was planted at the name is refused.
 */
static int rotate(struct auditlog *l)
{
	char from[NAME_MAX + 1], to[NAME_MAX + 1];
	int ret = 0, fd;

	for (int n = AUDITLOG_KEEP; !ret && n > 1; n--) {
		ret = old_name(l, n - 1, from);
		if (!ret)
			ret = old_name(l, n, to);
		if (!ret && renameat(l->dirfd, from, l->dirfd, to) < 0 &&
		    errno != ENOENT)
			ret = -errno;
	}
	if (!ret)
		ret = old_name(l, 1, to);
	if (!ret && renameat(l->dirfd, l->name, l->dirfd, to) < 0)
		ret = -errno;
	if (ret)
		return ret;
	fd = openat(l->dirfd, l->name, LOG_FLAGS | O_NOCTTY, 0600);
	if (fd < 0)
		return -errno;
	ret = lock(fd, LOCK_EX);
	close(l->fd); /* and its lock: the rotated file is no one's now */
	l->fd = fd;
	l->rotations++;
	return ret;
}

/* All of @line, or -errno; a line cut short is ended. */
static int write_all(int fd, const char *line, size_t len, size_t *done)
{
	ssize_t n;

	for (*done = 0; *done < len; *done += (size_t)n) {
		n = write(fd, line + *done, len - *done);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n <= 0) {
			int err = n < 0 ? errno : EIO;

			if (*done && write(fd, "\n", 1) == 1)
				(*done)++;
			return -err;
		}
	}
	return 0;
}

int auditlog_append(struct auditlog *l, const char *line, size_t len,
		    size_t *done)
{
	struct stat st;
	int ret;

	*done = 0;
	if (l->fd < 0)
		return -EBADF;
	if (l->dirfd < 0)
		return write_all(l->fd, line, len, done);
	ret = lock_current(l, &st);
	if (ret)
		return ret;
	if (st.st_size > 0 &&
	    (unsigned long long)st.st_size + len > AUDITLOG_SIZE_MAX)
		ret = rotate(l);
	if (!ret)
		ret = write_all(l->fd, line, len, done);
	flock(l->fd, LOCK_UN);
	return ret;
}

void auditlog_close(struct auditlog *l)
{
	if (l->fd >= 0)
		close(l->fd);
	if (l->dirfd >= 0)
		close(l->dirfd);
	*l = AUDITLOG_NONE;
}
