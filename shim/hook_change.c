/*
 * hook_change.c - the change family: mkdir, unlink, rmdir, remove,
 * rename, link, symlink, chmod, chown, the utime names and the
 * set/remove xattr names, with their *at, l* and f* variants.
 *
 * libc calls itself directly (catalog A.0), so each public name is a
 * hook of its own and forwards to the real function of the same name.
 * Every change needs W.  The last component is followed only where the
 * call follows it (chmod, chown, utime, setxattr without the l, and
 * without AT_SYMLINK_NOFOLLOW); a rename or a link is decided on both
 * ends.  Landlock does not cover metadata changes, so a chmod, chown,
 * utime or xattr denied here is the shim's alone.
 *
 * A call that fails by itself whatever the policy, because the name it
 * would make is taken (EEXIST) or the file it would change is not there
 * (ENOENT), fails so before the kernel asks Landlock; then the path need
 * only be visible, and the program sees the kernel's errno (mkdir -p,
 * node's recursive mkdir, Python's "except FileExistsError" rely on it).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include "shim/change.h"
#include "shim/core/rule.h"
#include "shim/core/strbuf.h"
#include "shim/hooks.h"

static REAL_SLOT int (*real_mkdir)(const char *, mode_t);
static REAL_SLOT int (*real_mkdirat)(int, const char *, mode_t);
static REAL_SLOT int (*real_unlink)(const char *);
static REAL_SLOT int (*real_unlinkat)(int, const char *, int);
static REAL_SLOT int (*real_rmdir)(const char *);
static REAL_SLOT int (*real_remove)(const char *);
static REAL_SLOT int (*real_rename)(const char *, const char *);
static REAL_SLOT int (*real_renameat)(int, const char *, int, const char *);
static REAL_SLOT int (*real_renameat2)(int, const char *, int, const char *,
				       unsigned int);
static REAL_SLOT int (*real_link)(const char *, const char *);
static REAL_SLOT int (*real_linkat)(int, const char *, int, const char *, int);
static REAL_SLOT int (*real_symlink)(const char *, const char *);
static REAL_SLOT int (*real_symlinkat)(const char *, int, const char *);
static REAL_SLOT int (*real_chmod)(const char *, mode_t);
static REAL_SLOT int (*real_fchmodat)(int, const char *, mode_t, int);
static REAL_SLOT int (*real_lchmod)(const char *, mode_t);
static REAL_SLOT int (*real_chown)(const char *, uid_t, gid_t);
static REAL_SLOT int (*real_lchown)(const char *, uid_t, gid_t);
static REAL_SLOT int (*real_fchownat)(int, const char *, uid_t, gid_t, int);
static REAL_SLOT int (*real_utime)(const char *, const struct utimbuf *);
static REAL_SLOT int (*real_utimes)(const char *, const struct timeval *);
static REAL_SLOT int (*real_lutimes)(const char *, const struct timeval *);
static REAL_SLOT int (*real_futimesat)(int, const char *,
				       const struct timeval *);
static REAL_SLOT int (*real_utimensat)(int, const char *,
				       const struct timespec *, int);
static REAL_SLOT int (*real_setxattr)(const char *, const char *, const void *,
				      size_t, int);
static REAL_SLOT int (*real_lsetxattr)(const char *, const char *, const void *,
				       size_t, int);
static REAL_SLOT int (*real_removexattr)(const char *, const char *);
static REAL_SLOT int (*real_lremovexattr)(const char *, const char *);

static REAL_SLOT int (*real_fchmod)(int, mode_t);
static REAL_SLOT int (*real_fchown)(int, uid_t, gid_t);
static REAL_SLOT int (*real_futimens)(int, const struct timespec *);
static REAL_SLOT int (*real_futimes)(int, const struct timeval *);
static REAL_SLOT int (*real_fsetxattr)(int, const char *, const void *, size_t,
				       int);
static REAL_SLOT int (*real_fremovexattr)(int, const char *);

REAL_FN(real_mkdir, "mkdir")
REAL_FN(real_mkdirat, "mkdirat")
REAL_FN(real_unlink, "unlink")
REAL_FN(real_unlinkat, "unlinkat")
REAL_FN(real_rmdir, "rmdir")
REAL_FN(real_remove, "remove")
REAL_FN(real_rename, "rename")
REAL_FN(real_renameat, "renameat")
REAL_FN(real_renameat2, "renameat2")
REAL_FN(real_link, "link")
REAL_FN(real_linkat, "linkat")
REAL_FN(real_symlink, "symlink")
REAL_FN(real_symlinkat, "symlinkat")
REAL_FN(real_chmod, "chmod")
REAL_FN(real_fchmodat, "fchmodat")
REAL_FN(real_lchmod, "lchmod")
REAL_FN(real_chown, "chown")
REAL_FN(real_lchown, "lchown")
REAL_FN(real_fchownat, "fchownat")
REAL_FN(real_utime, "utime")
REAL_FN(real_utimes, "utimes")
REAL_FN(real_lutimes, "lutimes")
REAL_FN(real_futimesat, "futimesat")
REAL_FN(real_utimensat, "utimensat")
REAL_FN(real_setxattr, "setxattr")
REAL_FN(real_lsetxattr, "lsetxattr")
REAL_FN(real_removexattr, "removexattr")
REAL_FN(real_lremovexattr, "lremovexattr")
REAL_FN(real_fchmod, "fchmod")
REAL_FN(real_fchown, "fchown")
REAL_FN(real_futimens, "futimens")
REAL_FN(real_futimes, "futimes")
REAL_FN(real_fsetxattr, "fsetxattr")
REAL_FN(real_fremovexattr, "fremovexattr")

#define NOFOLLOW AT_SYMLINK_NOFOLLOW

/* The name of @fd's file, read from /proc/self/fd/N into @buf, or NULL:
 * no file with a name (a pipe, a socket, an unlinked file, a memfd,
 * O_TMPFILE: nlink 0), or no /proc. */
static const char *fd_name(int fd, char buf[PATH_BUF])
{
	char link[32];
	struct strbuf sb = STRBUF(link, sizeof(link));
	struct stat st;
	long n;

	if (syscall(SYS_fstat, fd, &st) < 0 || st.st_nlink == 0)
		return NULL;
	sb_puts(&sb, "/proc/self/fd/");
	sb_uint(&sb, (unsigned long)fd);
	n = syscall(SYS_readlinkat, AT_FDCWD, link, buf, PATH_BUF - 1);
	if (n <= 0 || n >= PATH_BUF - 1 || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	return buf;
}

/*
 * The operation of a metadata change through @fd: its file named as the
 * kernel names it (canonical, in @buf), not followed, and decided as the
 * path forms are.  Under cordon every mount but those of the writable
 * roots is read-only (enforce/linux/mounts.c): a file on a writable mount (or
 * one of the host's, through a descriptor passed in) is the kernel's to
 * decide, with no /proc lookup (cp -p and tar call these per file); so
 * is a file with no name.  Without the launcher (its records go to a
 * file, not to its socket: report.c) there are no such mounts: every
 * file is named.  errno untouched.
 */
static struct op fd_op(const char *name, int fd, char buf[PATH_BUF])
{
	struct op op = OP(name, RIGHT_W, AT_FDCWD, NULL, PATH_NOFOLLOW);
	struct statfs sf;
	int saved = errno;

	op.shim_only = true;
	if (hook_begin() && fd >= 0 &&
	    (!shim_has_mounts() || syscall(SYS_fstatfs, fd, &sf) < 0 ||
	     (sf.f_flags & ST_RDONLY)))
		op.path = fd_name(fd, buf);
	errno = saved;
	return op;
}

/* A metadata call on @path from @dirfd, or on the file of @dirfd itself:
 * a NULL path (futimesat) or "" with AT_EMPTY_PATH (fchmodat, fchownat,
 * utimensat). */
static struct op meta_op(const char *name, int dirfd, const char *path, int at,
			 char buf[PATH_BUF])
{
	if (!path || (!path[0] && (at & AT_EMPTY_PATH)))
		return fd_op(name, dirfd, buf);
	return change_meta_op(name, dirfd, path, at);
}

/* Each hook: its operation, then HOOK_RUN (hooks.h), which forwards to
 * the real function, or without one to the system call. */

SHIM_API int mkdir(const char *path, mode_t mode)
{
	struct op op = change_make_op("mkdir", AT_FDCWD, path);

	return HOOK_RUN(&op, -1,
			real_mkdir_get() ? real_mkdir_get()(path, mode)
					 : (int)syscall(SYS_mkdir, path, mode));
}

SHIM_API int mkdirat(int dirfd, const char *path, mode_t mode)
{
	struct op op = change_make_op("mkdirat", dirfd, path);

	return HOOK_RUN(&op, -1,
			real_mkdirat_get()
				? real_mkdirat_get()(dirfd, path, mode)
				: (int)syscall(SYS_mkdirat, dirfd, path, mode));
}

/* unlink, rmdir, remove: the link itself, never its target. */
#define REMOVE_HOOK(name, fallback)                                            \
	SHIM_API int name(const char *path)                                    \
	{                                                                      \
		struct op op = change_op(#name, AT_FDCWD, path, NOFOLLOW);     \
		return HOOK_RUN(&op, -1,                                       \
				real_##name##_get()                            \
					? real_##name##_get()(path)            \
					: (fallback));                         \
	}

REMOVE_HOOK(unlink, (int)syscall(SYS_unlink, path))
REMOVE_HOOK(rmdir, (int)syscall(SYS_rmdir, path))
REMOVE_HOOK(remove, hook_nosys())

/* With or without AT_REMOVEDIR: the link itself. */
SHIM_API int unlinkat(int dirfd, const char *path, int flags)
{
	struct op op = change_op("unlinkat", dirfd, path, NOFOLLOW);

	return HOOK_RUN(
		&op, -1,
		real_unlinkat_get()
			? real_unlinkat_get()(dirfd, path, flags)
			: (int)syscall(SYS_unlinkat, dirfd, path, flags));
}

SHIM_API int rename(const char *old, const char *new)
{
	struct op from, to;

	change_rename_ops(&from, &to, "rename", AT_FDCWD, old, AT_FDCWD, new);
	return HOOK_RUN2(&from, &to,
			 real_rename_get()
				 ? real_rename_get()(old, new)
				 : (int)syscall(SYS_rename, old, new));
}

SHIM_API int renameat(int ofd, const char *old, int nfd, const char *new)
{
	struct op from, to;

	change_rename_ops(&from, &to, "renameat", ofd, old, nfd, new);
	return HOOK_RUN2(
		&from, &to,
		real_renameat_get()
			? real_renameat_get()(ofd, old, nfd, new)
			: (int)syscall(SYS_renameat, ofd, old, nfd, new));
}

/* Every flag changes both ends: RENAME_EXCHANGE swaps them,
 * RENAME_NOREPLACE makes the new name. */
SHIM_API int renameat2(int ofd, const char *old, int nfd, const char *new,
		       unsigned int flags)
{
	struct op from, to;

	change_rename_ops(&from, &to, "renameat2", ofd, old, nfd, new);
	return HOOK_RUN2(
		&from, &to,
		real_renameat2_get()
			? real_renameat2_get()(ofd, old, nfd, new, flags)
			: (int)syscall(SYS_renameat2, ofd, old, nfd, new,
				       flags));
}

/*
 * After a link that the policy allows at both ends failed with EXDEV:
 * when its ends are on two of the sandbox's mounts (each root granting
 * write or execute is one), the sandbox refused it, and no option can
 * allow it: the destination's line says so, marked as the kernel's.
 */
static void link_crossed(const struct op *from, const struct op *to)
{
	char a[PATH_BUF], b[PATH_BUF];
	struct op op = *to;
	int saved = errno;

	if (saved != EXDEV || !hook_begin() || !shim_has_mounts() ||
	    !guard_enter())
		return;
	if (path_resolve(from->dirfd, from->path, from->pflags, a) == 0 &&
	    path_resolve(to->dirfd, to->path, to->pflags, b) == 0 &&
	    policy_allows(&shim.policy, RIGHT_W, a) &&
	    policy_allows(&shim.policy, RIGHT_W, b) &&
	    rule_link_crosses(&shim.policy, a, b)) {
		op.why = RULE_LINK_CROSSES;
		report_denial(&op, b, "kernel");
	}
	guard_leave();
	errno = saved;
}

/* The call's result @ret, its failure across mounts said. */
static int link_done(const struct op *from, const struct op *to, int ret)
{
	if (ret < 0)
		link_crossed(from, to);
	return ret;
}

/* The source needs W too: through the new name it would get the rights
 * of the new place (Landlock refuses that with REFER). */
SHIM_API int link(const char *old, const char *new)
{
	struct op from, to;

	change_link_ops(&from, &to, "link", AT_FDCWD, old, NOFOLLOW, AT_FDCWD,
			new);
	return link_done(&from, &to,
			 HOOK_RUN2(&from, &to,
				   real_link_get()
					   ? real_link_get()(old, new)
					   : (int)syscall(SYS_link, old, new)));
}

/* AT_SYMLINK_FOLLOW follows the source; AT_EMPTY_PATH makes it @ofd. */
SHIM_API int linkat(int ofd, const char *old, int nfd, const char *new,
		    int flags)
{
	int at = (flags & AT_EMPTY_PATH) |
		 (flags & AT_SYMLINK_FOLLOW ? 0 : NOFOLLOW);
	struct op from, to;

	change_link_ops(&from, &to, "linkat", ofd, old, at, nfd, new);
	return link_done(
		&from, &to,
		HOOK_RUN2(&from, &to,
			  real_linkat_get()
				  ? real_linkat_get()(ofd, old, nfd, new, flags)
				  : (int)syscall(SYS_linkat, ofd, old, nfd, new,
						 flags)));
}

/* The target is only text: the link path alone is decided. */
SHIM_API int symlink(const char *target, const char *path)
{
	struct op op = change_make_op("symlink", AT_FDCWD, path);

	return HOOK_RUN(&op, -1,
			real_symlink_get()
				? real_symlink_get()(target, path)
				: (int)syscall(SYS_symlink, target, path));
}

SHIM_API int symlinkat(const char *target, int dirfd, const char *path)
{
	struct op op = change_make_op("symlinkat", dirfd, path);

	return HOOK_RUN(
		&op, -1,
		real_symlinkat_get()
			? real_symlinkat_get()(target, dirfd, path)
			: (int)syscall(SYS_symlinkat, target, dirfd, path));
}

#define MODE_HOOK(name, at, fallback)                                          \
	SHIM_API int name(const char *path, mode_t mode)                       \
	{                                                                      \
		struct op op = change_meta_op(#name, AT_FDCWD, path, at);      \
		return HOOK_RUN(&op, -1,                                       \
				real_##name##_get()                            \
					? real_##name##_get()(path, mode)      \
					: (fallback));                         \
	}

MODE_HOOK(chmod, 0, (int)syscall(SYS_chmod, path, mode))
MODE_HOOK(lchmod, NOFOLLOW, hook_nosys())

SHIM_API int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	char name[PATH_BUF];
	struct op op = meta_op("fchmodat", dirfd, path,
			       flags & (NOFOLLOW | AT_EMPTY_PATH), name);

	return HOOK_RUN(
		&op, -1,
		real_fchmodat_get()
			? real_fchmodat_get()(dirfd, path, mode, flags)
		: flags ? hook_nosys()
			: (int)syscall(SYS_fchmodat, dirfd, path, mode));
}

/*
 * In a user's run the command lives in a user namespace where only the
 * user's own uid and gid exist (ns.c): giving a file to anyone else
 * fails with EINVAL, where bare it fails with EPERM (the caller may not
 * give a file away).  The errno bare would give; @flags_ok: the call's
 * flags were valid (an EINVAL of its own stays).
 */
static int owner_errno(int ret, bool flags_ok)
{
	if (ret < 0 && errno == EINVAL && flags_ok)
		errno = EPERM;
	return ret;
}

#define OWNER_HOOK(name, at, fallback)                                         \
	SHIM_API int name(const char *path, uid_t uid, gid_t gid)              \
	{                                                                      \
		struct op op = change_meta_op(#name, AT_FDCWD, path, at);      \
		return HOOK_RUN(&op, -1,                                       \
				owner_errno(real_##name##_get()                \
						    ? real_##name##_get()(     \
							      path, uid, gid)  \
						    : (fallback),              \
					    true));                            \
	}

OWNER_HOOK(chown, 0, (int)syscall(SYS_chown, path, uid, gid))
OWNER_HOOK(lchown, NOFOLLOW, (int)syscall(SYS_lchown, path, uid, gid))

SHIM_API int fchownat(int dirfd, const char *path, uid_t uid, gid_t gid,
		      int flags)
{
	char name[PATH_BUF];
	struct op op = meta_op("fchownat", dirfd, path,
			       flags & (NOFOLLOW | AT_EMPTY_PATH), name);
	bool flags_ok = !(flags & ~(NOFOLLOW | AT_EMPTY_PATH));

	return HOOK_RUN(
		&op, -1,
		owner_errno(real_fchownat_get()
				    ? real_fchownat_get()(dirfd, path, uid, gid,
							  flags)
				    : (int)syscall(SYS_fchownat, dirfd, path,
						   uid, gid, flags),
			    flags_ok));
}

SHIM_API int utime(const char *path, const struct utimbuf *times)
{
	struct op op = change_meta_op("utime", AT_FDCWD, path, 0);

	return HOOK_RUN(&op, -1,
			real_utime_get()
				? real_utime_get()(path, times)
				: (int)syscall(SYS_utime, path, times));
}

#define UTIMES_HOOK(name, at, fallback)                                        \
	SHIM_API int name(const char *path, const struct timeval tv[2])        \
	{                                                                      \
		struct op op = change_meta_op(#name, AT_FDCWD, path, at);      \
		return HOOK_RUN(&op, -1,                                       \
				real_##name##_get()                            \
					? real_##name##_get()(path, tv)        \
					: (fallback));                         \
	}

UTIMES_HOOK(utimes, 0, (int)syscall(SYS_utimes, path, tv))
UTIMES_HOOK(lutimes, NOFOLLOW, hook_nosys())

/* A NULL path is the fd's own form (meta_op()). */
SHIM_API int futimesat(int dirfd, const char *path, const struct timeval tv[2])
{
	char name[PATH_BUF];
	struct op op = meta_op("futimesat", dirfd, path, 0, name);

	return HOOK_RUN(&op, -1,
			real_futimesat_get()
				? real_futimesat_get()(dirfd, path, tv)
				: (int)syscall(SYS_futimesat, dirfd, path, tv));
}

SHIM_API int utimensat(int dirfd, const char *path, const struct timespec ts[2],
		       int flags)
{
	char name[PATH_BUF];
	/* glibc's utimensat refuses a NULL path (EINVAL; futimens is that
	 * form): only "" with AT_EMPTY_PATH is the fd's own here */
	struct op op =
		flags & AT_EMPTY_PATH
			? meta_op("utimensat", dirfd, path,
				  flags & (NOFOLLOW | AT_EMPTY_PATH), name)
			: change_meta_op("utimensat", dirfd, path,
					 flags & NOFOLLOW);

	return HOOK_RUN(
		&op, -1,
		real_utimensat_get()
			? real_utimensat_get()(dirfd, path, ts, flags)
			: (int)syscall(SYS_utimensat, dirfd, path, ts, flags));
}

#define SETXATTR_HOOK(name, at, sysno)                                         \
	SHIM_API int name(const char *path, const char *key,                   \
			  const void *value, size_t size, int flags)           \
	{                                                                      \
		struct op op = change_meta_op(#name, AT_FDCWD, path, at);      \
		return HOOK_RUN(&op, -1,                                       \
				real_##name##_get()                            \
					? real_##name##_get()(path, key,       \
							      value, size,     \
							      flags)           \
					: (int)syscall(sysno, path, key,       \
						       value, size, flags));   \
	}

SETXATTR_HOOK(setxattr, 0, SYS_setxattr)
SETXATTR_HOOK(lsetxattr, NOFOLLOW, SYS_lsetxattr)

#define REMOVEXATTR_HOOK(name, at, sysno)                                      \
	SHIM_API int name(const char *path, const char *key)                   \
	{                                                                      \
		struct op op = change_meta_op(#name, AT_FDCWD, path, at);      \
		return HOOK_RUN(&op, -1,                                       \
				real_##name##_get()                            \
					? real_##name##_get()(path, key)       \
					: (int)syscall(sysno, path, key));     \
	}

REMOVEXATTR_HOOK(removexattr, 0, SYS_removexattr)
REMOVEXATTR_HOOK(lremovexattr, NOFOLLOW, SYS_lremovexattr)

/* The descriptor forms (fd_op()). */
SHIM_API int fchmod(int fd, mode_t mode)
{
	char name[PATH_BUF];
	struct op op = fd_op("fchmod", fd, name);

	return HOOK_RUN(&op, -1,
			real_fchmod_get() ? real_fchmod_get()(fd, mode)
					  : (int)syscall(SYS_fchmod, fd, mode));
}

SHIM_API int fchown(int fd, uid_t uid, gid_t gid)
{
	char name[PATH_BUF];
	struct op op = fd_op("fchown", fd, name);

	return HOOK_RUN(
		&op, -1,
		owner_errno(real_fchown_get()
				    ? real_fchown_get()(fd, uid, gid)
				    : (int)syscall(SYS_fchown, fd, uid, gid),
			    true));
}

SHIM_API int futimens(int fd, const struct timespec ts[2])
{
	char name[PATH_BUF];
	struct op op = fd_op("futimens", fd, name);

	return HOOK_RUN(&op, -1,
			real_futimens_get()
				? real_futimens_get()(fd, ts)
				: (int)syscall(SYS_utimensat, fd, NULL, ts, 0));
}

SHIM_API int futimes(int fd, const struct timeval tv[2])
{
	char name[PATH_BUF];
	struct op op = fd_op("futimes", fd, name);

	return HOOK_RUN(&op, -1,
			real_futimes_get()
				? real_futimes_get()(fd, tv)
				: (int)syscall(SYS_futimesat, fd, NULL, tv));
}

SHIM_API int fsetxattr(int fd, const char *key, const void *value, size_t size,
		       int flags)
{
	char name[PATH_BUF];
	struct op op = fd_op("fsetxattr", fd, name);

	return HOOK_RUN(
		&op, -1,
		real_fsetxattr_get()
			? real_fsetxattr_get()(fd, key, value, size, flags)
			: (int)syscall(SYS_fsetxattr, fd, key, value, size,
				       flags));
}

SHIM_API int fremovexattr(int fd, const char *key)
{
	char name[PATH_BUF];
	struct op op = fd_op("fremovexattr", fd, name);

	return HOOK_RUN(&op, -1,
			real_fremovexattr_get()
				? real_fremovexattr_get()(fd, key)
				: (int)syscall(SYS_fremovexattr, fd, key));
}
