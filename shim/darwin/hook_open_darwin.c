/*
 * hook_open_darwin.c - the open family on macOS: open, openat, creat,
 * fopen (both of libSystem's names), freopen, opendir, truncate.
 *
 * The macOS counterpart of hook_open.c, for the names libSystem has
 * (no open64, no fortified __open_2, no O_TMPFILE).  open and openat are
 * variadic: on arm64 a variadic argument is passed on the stack, so the
 * hooks are variadic too and read the mode only with O_CREAT, as the
 * kernel does.
 *
 * macOS has no stat, access or directory-walk hooks: there the shim
 * would only explain what Seatbelt's file-read-metadata rules already
 * hold, and the $INODE64 names differ between x86_64 and arm64.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "shim/darwin/hook_darwin.h"

/* fopen is "_fopen" for old binaries and "_fopen$DARWIN_EXTSN" for
 * those built with _DARWIN_C_SOURCE (the default of the SDK): two
 * entry points, each interposed and forwarded to itself. */
FILE *fopen_plain(const char *path, const char *mode) __asm__("_fopen");
FILE *fopen_extsn(const char *path,
		  const char *mode) __asm__("_fopen$DARWIN_EXTSN");

/* Nothing to resolve (no SHIM_RESOLVER): a hook reaches libSystem by
 * name.  macOS has no stat, walk or create hooks of their own (see the
 * top; mkfifo and mknod are in hook_change_darwin.c). */

/* What an open with @flags asks of @path. */
static struct op open_op(const char *name, int dirfd, const char *path,
			 int flags)
{
	struct op op = OP(name, 0, dirfd, path, 0);

	/* O_EVTONLY watches a file for kqueue events: no data moves */
	if (flags & O_EVTONLY)
		return op;
	if ((flags & O_ACCMODE) != O_WRONLY)
		op.need |= RIGHT_R;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))
		op.need |= RIGHT_W;
	op.creat = flags & O_CREAT;
	/* O_SYMLINK opens the link itself */
	if (flags & (O_NOFOLLOW | O_EXCL | O_SYMLINK))
		op.pflags |= PATH_NOFOLLOW;
	return op;
}

/* An fopen mode as open(2) flags: the first letter chooses, '+' reads
 * and writes, 'x' must make the file. */
static int mode_flags(const char *mode)
{
	int flags;

	switch (mode[0]) {
	case 'r':
		flags = O_RDONLY;
		break;
	case 'w':
		flags = O_WRONLY | O_CREAT | O_TRUNC;
		break;
	default: /* 'a', or what fopen refuses with EINVAL */
		flags = O_WRONLY | O_CREAT | O_APPEND;
		break;
	}
	if (strchr(mode, '+'))
		flags = (flags & ~O_ACCMODE) | O_RDWR;
	if (strchr(mode, 'x'))
		flags |= O_EXCL;
	return flags;
}

static int cordon_open(const char *path, int flags, ...)
{
	struct op op = open_op("open", AT_FDCWD, path, flags);
	int saved = errno;
	mode_t mode = 0;

	if (flags & O_CREAT) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int); /* promoted */
		va_end(ap);
	}
	if (hook_deny(&op))
		return -1;
	return hook_done(&op, open(path, flags, mode), saved);
}
INTERPOSE(cordon_open, open);

static int cordon_openat(int dirfd, const char *path, int flags, ...)
{
	struct op op = open_op("openat", dirfd, path, flags);
	int saved = errno;
	mode_t mode = 0;

	if (flags & O_CREAT) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (hook_deny(&op))
		return -1;
	return hook_done(&op, openat(dirfd, path, flags, mode), saved);
}
INTERPOSE(cordon_openat, openat);

static int cordon_creat(const char *path, mode_t mode)
{
	struct op op =
		open_op("creat", AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC);
	int saved = errno;

	if (hook_deny(&op))
		return -1;
	return hook_done(&op, creat(path, mode), saved);
}
INTERPOSE(cordon_creat, creat);

/* The end of an allowed fopen-like call that returned @f. */
static FILE *stream_done(const struct op *op, FILE *f, int saved)
{
	if (!f)
		hook_failed(op, errno);
	else
		errno = saved;
	return f;
}

static FILE *cordon_fopen_plain(const char *path, const char *mode)
{
	struct op op = open_op("fopen", AT_FDCWD, path,
			       path && mode ? mode_flags(mode) : 0);
	int saved = errno;

	if (hook_deny(&op))
		return NULL;
	return stream_done(&op, fopen_plain(path, mode), saved);
}
INTERPOSE(cordon_fopen_plain, fopen_plain);

static FILE *cordon_fopen_extsn(const char *path, const char *mode)
{
	struct op op = open_op("fopen", AT_FDCWD, path,
			       path && mode ? mode_flags(mode) : 0);
	int saved = errno;

	if (hook_deny(&op))
		return NULL;
	return stream_done(&op, fopen_extsn(path, mode), saved);
}
INTERPOSE(cordon_fopen_extsn, fopen_extsn);

/* freopen(NULL, mode, f) changes the mode of f's own file: no path. */
static FILE *cordon_freopen(const char *path, const char *mode, FILE *f)
{
	struct op op = open_op("freopen", AT_FDCWD, path,
			       path && mode ? mode_flags(mode) : 0);
	int saved = errno;

	if (path && hook_deny(&op))
		return NULL;
	return stream_done(&op, freopen(path, mode, f), saved);
}
INTERPOSE(cordon_freopen, freopen);

/* opendir is opendir$INODE64 on x86_64: the header names the one
 * programs built with this SDK call. */
static DIR *cordon_opendir(const char *path)
{
	struct op op = OP("opendir", RIGHT_R, AT_FDCWD, path, 0);
	int saved = errno;
	DIR *d;

	if (hook_deny(&op))
		return NULL;
	d = opendir(path);
	if (!d)
		hook_failed(&op, errno);
	else
		errno = saved;
	return d;
}
INTERPOSE(cordon_opendir, opendir);

static int cordon_truncate(const char *path, off_t len)
{
	struct op op = OP("truncate", RIGHT_W, AT_FDCWD, path, 0);
	int saved = errno;

	if (hook_deny(&op))
		return -1;
	return hook_done(&op, truncate(path, len), saved);
}
INTERPOSE(cordon_truncate, truncate);
