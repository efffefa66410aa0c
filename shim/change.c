/*
 * change.c - the operation a change hook asks about (change.h), on every
 * OS.  Pure but for one fstatat, made as a raw syscall (compat_darwin.c on
 * macOS): no allocation, no lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/change.h"
#include "shim/hooks.h"

/* What a change does to its last component. */
enum change { CHANGE, MAKE, META };

static struct op op_of(const char *name, int dirfd, const char *path, int at,
		       enum change what)
{
	struct stat st;
	int saved = errno;
	long there = syscall(SYS_newfstatat, dirfd, path, &st, at);
	bool fails = what == MAKE ? there == 0 : there < 0 && errno == ENOENT;
	struct op op = OP(name, fails ? 0 : RIGHT_W, dirfd, path, 0);

	errno = saved; /* the hook's errno: an op is built, nothing failed */
	op.shim_only = what == META;
	/* unlink, rmdir, rename of a name that is not there: ENOENT, as
	 * bare, where a read-only mount would say EROFS first */
	op.absent = what == CHANGE && fails;
	if (at & AT_SYMLINK_NOFOLLOW)
		op.pflags |= PATH_NOFOLLOW;
	if (at & AT_EMPTY_PATH)
		op.pflags |= PATH_EMPTY_OK;
	return op;
}

struct op change_op(const char *name, int dirfd, const char *path, int at)
{
	return op_of(name, dirfd, path, at, CHANGE);
}

struct op change_make_op(const char *name, int dirfd, const char *path)
{
	return op_of(name, dirfd, path, AT_SYMLINK_NOFOLLOW, MAKE);
}

struct op change_meta_op(const char *name, int dirfd, const char *path, int at)
{
	return op_of(name, dirfd, path, at, META);
}

void change_rename_ops(struct op *from, struct op *to, const char *name,
		       int ofd, const char *old, int nfd, const char *new)
{
	*from = change_op(name, ofd, old, AT_SYMLINK_NOFOLLOW);
	*to = OP(name, from->need, nfd, new, PATH_NOFOLLOW);
	from->end = "source";
	to->end = "destination";
	from->peer = to;
	to->peer = from;
}

void change_link_ops(struct op *from, struct op *to, const char *name, int ofd,
		     const char *old, int at, int nfd, const char *new)
{
	*from = change_op(name, ofd, old, at);
	*to = change_make_op(name, nfd, new);
	if (!from->need || !to->need)
		from->need = to->need = 0;
	from->end = "source";
	to->end = "destination";
	from->peer = to;
	to->peer = from;
}
