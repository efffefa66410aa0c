/*
 * hook_change_darwin.c - the change family on macOS: mkdir, unlink,
 * rmdir, remove, rename (with renamex_np), link, symlink, chmod, chown,
 * mkfifo and mknod, with their *at and l* names.
 *
 * The macOS counterpart of hook_change.c and of the mkfifo and mknod
 * hooks of hook_create.c, with the same decisions (change.h): every
 * change needs W; a rename or a link is decided on both ends; the last
 * component is followed only where the call follows it.  A call that
 * fails by itself whatever the policy (its new name is taken, the file
 * it would change is not there) needs only visibility, so the program
 * sees the kernel's errno.  Seatbelt's file-write* covers metadata
 * (mode, owner, times, xattrs), so a chmod or chown denied here is the
 * kernel's too.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/change.h"
#include "shim/darwin/hook_darwin.h"

#define NOFOLLOW AT_SYMLINK_NOFOLLOW

static int cordon_mkdir(const char *path, mode_t mode)
{
	int saved = errno;
	struct op op = change_make_op("mkdir", AT_FDCWD, path);

	if (hook_deny(&op))
		return -1;
	return hook_done(&op, mkdir(path, mode), saved);
}
INTERPOSE(cordon_mkdir, mkdir);

static int cordon_mkdirat(int dirfd, const char *path, mode_t mode)
{
	int saved = errno;
	struct op op = change_make_op("mkdirat", dirfd, path);

	if (hook_deny(&op))
		return -1;
	return hook_done(&op, mkdirat(dirfd, path, mode), saved);
}
INTERPOSE(cordon_mkdirat, mkdirat);

/* unlink, rmdir, remove: the link itself, never its target. */
#define REMOVE_HOOK(fn)                                                        \
	static int cordon_##fn(const char *path)                               \
	{                                                                      \
		int saved = errno;                                             \
		struct op op = change_op(#fn, AT_FDCWD, path, NOFOLLOW);       \
		if (hook_deny(&op))                                            \
			return -1;                                             \
		return hook_done(&op, fn(path), saved);                        \
	}                                                                      \
	INTERPOSE(cordon_##fn, fn)

REMOVE_HOOK(unlink);
REMOVE_HOOK(rmdir);
REMOVE_HOOK(remove);

static int cordon_unlinkat(int dirfd, const char *path, int flags)
{
	int saved = errno;
	struct op op = change_op("unlinkat", dirfd, path, NOFOLLOW);

	if (hook_deny(&op))
		return -1;
	return hook_done(&op, unlinkat(dirfd, path, flags), saved);
}
INTERPOSE(cordon_unlinkat, unlinkat);

/* Both ends (change_rename_ops).  renamex_np's RENAME_SWAP changes both
 * ends too, RENAME_EXCL makes the new one. */
static int rename_deny(const char *name, int ofd, const char *old, int nfd,
		       const char *new, struct op *from, struct op *to)
{
	change_rename_ops(from, to, name, ofd, old, nfd, new);
	return hook_deny2(from, to);
}

static int cordon_rename(const char *old, const char *new)
{
	int saved = errno;
	struct op from, to;

	if (rename_deny("rename", AT_FDCWD, old, AT_FDCWD, new, &from, &to))
		return -1;
	return hook_done2(&from, &to, rename(old, new), saved);
}
INTERPOSE(cordon_rename, rename);

static int cordon_renameat(int ofd, const char *old, int nfd, const char *new)
{
	int saved = errno;
	struct op from, to;

	if (rename_deny("renameat", ofd, old, nfd, new, &from, &to))
		return -1;
	return hook_done2(&from, &to, renameat(ofd, old, nfd, new), saved);
}
INTERPOSE(cordon_renameat, renameat);

static int cordon_renamex_np(const char *old, const char *new,
			     unsigned int flags)
{
	int saved = errno;
	struct op from, to;

	if (rename_deny("renamex_np", AT_FDCWD, old, AT_FDCWD, new, &from, &to))
		return -1;
	return hook_done2(&from, &to, renamex_np(old, new, flags), saved);
}
INTERPOSE(cordon_renamex_np, renamex_np);

static int cordon_renameatx_np(int ofd, const char *old, int nfd,
			       const char *new, unsigned int flags)
{
	int saved = errno;
	struct op from, to;

	if (rename_deny("renameatx_np", ofd, old, nfd, new, &from, &to))
		return -1;
	return hook_done2(&from, &to, renameatx_np(ofd, old, nfd, new, flags),
			  saved);
}
INTERPOSE(cordon_renameatx_np, renameatx_np);

/* Both ends (change_link_ops). */
static int link_deny(const char *name, int ofd, const char *old, int at,
		     int nfd, const char *new, struct op *from, struct op *to)
{
	change_link_ops(from, to, name, ofd, old, at, nfd, new);
	return hook_deny2(from, to);
}

static int cordon_link(const char *old, const char *new)
{
	int saved = errno;
	struct op from, to;

	if (link_deny("link", AT_FDCWD, old, NOFOLLOW, AT_FDCWD, new, &from,
		      &to))
		return -1;
	return hook_done2(&from, &to, link(old, new), saved);
}
INTERPOSE(cordon_link, link);

static int cordon_linkat(int ofd, const char *old, int nfd, const char *new,
			 int flags)
{
	int saved = errno;
	int at = flags & AT_SYMLINK_FOLLOW ? 0 : NOFOLLOW;
	struct op from, to;

	if (link_deny("linkat", ofd, old, at, nfd, new, &from, &to))
		return -1;
	return hook_done2(&from, &to, linkat(ofd, old, nfd, new, flags), saved);
}
INTERPOSE(cordon_linkat, linkat);

/* The target of a symlink is only text: the link path is decided. */
static int cordon_symlink(const char *target, const char *path)
{
	int saved = errno;
	struct op op = change_make_op("symlink", AT_FDCWD, path);

	if (hook_deny(&op))
		return -1;
	return hook_done(&op, symlink(target, path), saved);
}
INTERPOSE(cordon_symlink, symlink);

static int cordon_symlinkat(const char *target, int dirfd, const char *path)
{
	int saved = errno;
	struct op op = change_make_op("symlinkat", dirfd, path);

	if (hook_deny(&op))
		return -1;
	return hook_done(&op, symlinkat(target, dirfd, path), saved);
}
INTERPOSE(cordon_symlinkat, symlinkat);

#define MODE_HOOK(fn, at)                                                      \
	static int cordon_##fn(const char *path, mode_t mode)                  \
	{                                                                      \
		int saved = errno;                                             \
		struct op op = change_meta_op(#fn, AT_FDCWD, path, at);        \
		if (hook_deny(&op))                                            \
			return -1;                                             \
		return hook_done(&op, fn(path, mode), saved);                  \
	}                                                                      \
	INTERPOSE(cordon_##fn, fn)

MODE_HOOK(chmod, 0);
MODE_HOOK(lchmod, NOFOLLOW);

static int cordon_fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	int saved = errno;
	struct op op =
		change_meta_op("fchmodat", dirfd, path, flags & NOFOLLOW);

	if (hook_deny(&op))
		return -1;
	return hook_done(&op, fchmodat(dirfd, path, mode, flags), saved);
}
INTERPOSE(cordon_fchmodat, fchmodat);

#define OWNER_HOOK(fn, at)                                                     \
	static int cordon_##fn(const char *path, uid_t uid, gid_t gid)         \
	{                                                                      \
		int saved = errno;                                             \
		struct op op = change_meta_op(#fn, AT_FDCWD, path, at);        \
		if (hook_deny(&op))                                            \
			return -1;                                             \
		return hook_done(&op, fn(path, uid, gid), saved);              \
	}                                                                      \
	INTERPOSE(cordon_##fn, fn)

OWNER_HOOK(chown, 0);
OWNER_HOOK(lchown, NOFOLLOW);

static int cordon_fchownat(int dirfd, const char *path, uid_t uid, gid_t gid,
			   int flags)
{
	int saved = errno;
	struct op op =
		change_meta_op("fchownat", dirfd, path, flags & NOFOLLOW);

	if (hook_deny(&op))
		return -1;
	return hook_done(&op, fchownat(dirfd, path, uid, gid, flags), saved);
}
INTERPOSE(cordon_fchownat, fchownat);

static int cordon_mkfifo(const char *path, mode_t mode)
{
	int saved = errno;
	struct op op = change_make_op("mkfifo", AT_FDCWD, path);

	if (hook_deny(&op))
		return -1;
	return hook_done(&op, mkfifo(path, mode), saved);
}
INTERPOSE(cordon_mkfifo, mkfifo);

static int cordon_mknod(const char *path, mode_t mode, dev_t dev)
{
	int saved = errno;
	struct op op = change_make_op("mknod", AT_FDCWD, path);

	if (hook_deny(&op))
		return -1;
	return hook_done(&op, mknod(path, mode, dev), saved);
}
INTERPOSE(cordon_mknod, mknod);
