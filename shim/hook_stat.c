/*
 * hook_stat.c - the metadata family: stat, lstat, fstatat (and their
 * 64-bit and pre-2.33 __xstat names), statx, access, faccessat,
 * euidaccess, eaccess, readlink, readlinkat, realpath,
 * canonicalize_file_name, and the fortified names.
 *
 * These calls read no file and change nothing, and Landlock lets every
 * one of them through.  The shim answers them with ENOENT on a path the
 * policy hides (no right, and not on the way to a root; check.c), as
 * it answers a read or an exec there, so that a program learns nothing
 * of what lies in ~/.ssh (no size, no times, no link target, no
 * canonical name) and a tool that copes without ~/.gitconfig copes as
 * it does where there is none; the line and the record still name the
 * path.  A path the policy shows but does not grant (a directory above
 * a root, a read-only root asked for write) is refused with EACCES.
 * access() and its kin answer for the rights the policy grants, so
 * `test -w` in a read-only root says no; searching a directory needs no
 * right, as in Landlock.  A path the kernel does not find gets the
 * kernel's own answer and no report: probing for what is not there
 * (git looking for .git up to /, a program looking for ~/.config/x)
 * stays quiet.  A raw syscall tells a hidden path's metadata anyway:
 * this layer is advisory (the kernel layer does not hide metadata).
 *
 * Every public name is a hook of its own and forwards to the real
 * function of the same name, found at run time (stat@GLIBC_2.33 and
 * statx@GLIBC_2.28 add no import above the baseline); where glibc has
 * none, the raw syscall stands in (x86_64 layouts).  errno is restored
 * before the real call, not after it: glibc's realpath leaves EINVAL
 * on success, and the program sees the same with and without the shim.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "shim/hooks.h"

/* Public glibc names that no header declares (or only under fortify). */
int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st,
	       int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st,
		 int flags);
ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen);
ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t len,
			 size_t buflen);
char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen);

static REAL_SLOT int (*real_stat)(const char *, struct stat *);
static REAL_SLOT int (*real_stat64)(const char *, struct stat64 *);
static REAL_SLOT int (*real_lstat)(const char *, struct stat *);
static REAL_SLOT int (*real_lstat64)(const char *, struct stat64 *);
static REAL_SLOT int (*real_fstatat)(int, const char *, struct stat *, int);
static REAL_SLOT int (*real_fstatat64)(int, const char *, struct stat64 *, int);
static REAL_SLOT int (*real___xstat)(int, const char *, struct stat *);
static REAL_SLOT int (*real___xstat64)(int, const char *, struct stat64 *);
static REAL_SLOT int (*real___lxstat)(int, const char *, struct stat *);
static REAL_SLOT int (*real___lxstat64)(int, const char *, struct stat64 *);
static REAL_SLOT int (*real___fxstatat)(int, int, const char *, struct stat *,
					int);
static REAL_SLOT int (*real___fxstatat64)(int, int, const char *,
					  struct stat64 *, int);
static REAL_SLOT int (*real_statx)(int, const char *, int, unsigned int,
				   struct statx *);
static REAL_SLOT int (*real_access)(const char *, int);
static REAL_SLOT int (*real_faccessat)(int, const char *, int, int);
static REAL_SLOT int (*real_euidaccess)(const char *, int);
static REAL_SLOT int (*real_eaccess)(const char *, int);
static REAL_SLOT ssize_t (*real_readlink)(const char *, char *, size_t);
static REAL_SLOT ssize_t (*real_readlinkat)(int, const char *, char *, size_t);
static REAL_SLOT ssize_t (*real___readlink_chk)(const char *, char *, size_t,
						size_t);
static REAL_SLOT ssize_t (*real___readlinkat_chk)(int, const char *, char *,
						  size_t, size_t);
static REAL_SLOT char *(*real_realpath)(const char *, char *);
static REAL_SLOT char *(*real_realpath_old)(const char *, char *);
static REAL_SLOT char *(*real___realpath_chk)(const char *, char *, size_t);
static REAL_SLOT char *(*real_canonicalize_file_name)(const char *);

/* The version a program linked since glibc 2.3 calls (catalog A.2).
 * The build exports one unversioned realpath, which a program bound
 * to realpath@GLIBC_2.2.5 reaches too: it gets this one, which takes
 * a NULL buffer where its own fails with EINVAL. */
REAL_FN_VD(real_realpath, "realpath", "GLIBC_2.3")
REAL_FN_V(real_realpath_old, "realpath", "GLIBC_2.2.5")
REAL_FN(real_stat, "stat")
REAL_FN(real_stat64, "stat64")
REAL_FN(real_lstat, "lstat")
REAL_FN(real_lstat64, "lstat64")
REAL_FN(real_fstatat, "fstatat")
REAL_FN(real_fstatat64, "fstatat64")
REAL_FN(real___xstat, "__xstat")
REAL_FN(real___xstat64, "__xstat64")
REAL_FN(real___lxstat, "__lxstat")
REAL_FN(real___lxstat64, "__lxstat64")
REAL_FN(real___fxstatat, "__fxstatat")
REAL_FN(real___fxstatat64, "__fxstatat64")
REAL_FN(real_statx, "statx")
REAL_FN(real_access, "access")
REAL_FN(real_faccessat, "faccessat")
REAL_FN(real_euidaccess, "euidaccess")
REAL_FN(real_eaccess, "eaccess")
REAL_FN(real_readlink, "readlink")
REAL_FN(real_readlinkat, "readlinkat")
REAL_FN(real___readlink_chk, "__readlink_chk")
REAL_FN(real___readlinkat_chk, "__readlinkat_chk")
REAL_FN(real___realpath_chk, "__realpath_chk")
REAL_FN(real_canonicalize_file_name, "canonicalize_file_name")

static int path_flags(int flags)
{
	return (flags & AT_SYMLINK_NOFOLLOW) ? PATH_NOFOLLOW : 0;
}

/* R_OK, W_OK, X_OK as the rights they ask about; F_OK asks to see. */
static unsigned int access_need(int mode)
{
	return ((mode & R_OK) ? RIGHT_R : 0) | ((mode & W_OK) ? RIGHT_W : 0) |
	       ((mode & X_OK) ? RIGHT_X : 0);
}

/*
 * The verdict on @op, looked up as the call does (@flags: its
 * AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, AT_NO_AUTOMOUNT).
 * Return: 0 to forward, or the errno to fail with.
 */
static int decide(struct op *op, int flags)
{
	struct stat st; /* not zeroed: read only when the lookup filled it */
	int lookup =
		flags & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT);
	long found;

	if (!shim_is_ready())
		shim_init();
	if (!shim.active || !op->path)
		return 0;
	/* An empty path with AT_EMPTY_PATH names the fd itself, a file the
	 * program holds already: path_resolve() finds no path in it (no
	 * PATH_EMPTY_OK), and the call is let through. */
	/* Only to be seen: shim_check() lets what is not there through. */
	if (!op->need)
		return hook_decide(op);
	found = syscall(SYS_newfstatat, op->dirfd, op->path, &st, lookup);
	if (found < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0; /* not there: the real call says so itself */
	if (found == 0 && S_ISDIR(st.st_mode))
		op->need &= ~RIGHT_X; /* search: Landlock never restricts it */
	return hook_decide(op);
}

/*
 * The one hook shape (HOOK_RUN, hooks.h) for the metadata calls, whose
 * decision looks the path up as the call does (decide(), @flags): save
 * errno; refused: @fail, errno set once; else @call, errno restored
 * before it, the kernel's denial reported when it fails.
 */
#define STAT_RUN(op, flags, fail, call)                                        \
	({                                                                     \
		int saved_ = errno, err_ = decide((op), (flags));              \
		__typeof__(call) ret_ = (fail);                                \
		if (err_) {                                                    \
			errno = err_;                                          \
		} else {                                                       \
			errno = saved_;                                        \
			ret_ = (call);                                         \
			if (ret_ == (fail))                                    \
				hook_failed((op), errno);                      \
		}                                                              \
		ret_;                                                          \
	})

/* The stat names: @params and @args the hook's parameters and the
 * call's arguments; @dirfd and @flags how the lookup goes. */
#define STAT_HOOK(name, params, dirfd, flags, args)                            \
	SHIM_API int name params                                               \
	{                                                                      \
		struct op op = OP(#name, 0, dirfd, path, path_flags(flags));   \
		return STAT_RUN(&op, flags, -1,                                \
				real_##name##_get()                            \
					? real_##name##_get() args             \
					: (int)syscall(SYS_newfstatat, dirfd,  \
						       path, st, flags));      \
	}

/* stat() itself, and stat64() (the same struct on x86_64): answered by
 * the check's own lookup when it made one (shim_stat_into). */
#define FOLLOW_STAT_HOOK(name, type)                                           \
	SHIM_API int name(const char *path, type *st)                          \
	{                                                                      \
		struct op op = OP(#name, 0, AT_FDCWD, path, 0);                \
		int saved = errno, err, ret;                                   \
		bool answered;                                                 \
		shim_stat_into((struct stat *)st);                             \
		err = decide(&op, 0);                                          \
		answered = shim_stat_done();                                   \
		errno = err ? err : saved;                                     \
		if (err || answered)                                           \
			return err ? -1 : 0;                                   \
		ret = real_##name##_get()                                      \
			      ? real_##name##_get()(path, st)                  \
			      : (int)syscall(SYS_newfstatat, AT_FDCWD, path,   \
					     st, 0);                           \
		if (ret < 0)                                                   \
			hook_failed(&op, errno);                               \
		return ret;                                                    \
	}

_Static_assert(sizeof(struct stat) == sizeof(struct stat64),
	       "stat64 is stat on this ABI");
FOLLOW_STAT_HOOK(stat, struct stat)
FOLLOW_STAT_HOOK(stat64, struct stat64)
STAT_HOOK(lstat, (const char *path, struct stat *st), AT_FDCWD,
	  AT_SYMLINK_NOFOLLOW, (path, st))
STAT_HOOK(lstat64, (const char *path, struct stat64 *st), AT_FDCWD,
	  AT_SYMLINK_NOFOLLOW, (path, st))

/* Before glibc 2.33 stat() was an inline calling __xstat(_STAT_VER, ...):
 * @ver goes through untouched, and the real function checks it. */
STAT_HOOK(__xstat, (int ver, const char *path, struct stat *st), AT_FDCWD, 0,
	  (ver, path, st))
STAT_HOOK(__xstat64, (int ver, const char *path, struct stat64 *st), AT_FDCWD,
	  0, (ver, path, st))
STAT_HOOK(__lxstat, (int ver, const char *path, struct stat *st), AT_FDCWD,
	  AT_SYMLINK_NOFOLLOW, (ver, path, st))
STAT_HOOK(__lxstat64, (int ver, const char *path, struct stat64 *st), AT_FDCWD,
	  AT_SYMLINK_NOFOLLOW, (ver, path, st))
STAT_HOOK(fstatat, (int dirfd, const char *path, struct stat *st, int flags),
	  dirfd, flags, (dirfd, path, st, flags))
STAT_HOOK(fstatat64,
	  (int dirfd, const char *path, struct stat64 *st, int flags), dirfd,
	  flags, (dirfd, path, st, flags))
STAT_HOOK(__fxstatat,
	  (int ver, int dirfd, const char *path, struct stat *st, int flags),
	  dirfd, flags, (ver, dirfd, path, st, flags))
STAT_HOOK(__fxstatat64,
	  (int ver, int dirfd, const char *path, struct stat64 *st, int flags),
	  dirfd, flags, (ver, dirfd, path, st, flags))

SHIM_API int statx(int dirfd, const char *path, int flags, unsigned int mask,
		   struct statx *buf)
{
	struct op op = OP("statx", 0, dirfd, path, path_flags(flags));

	return STAT_RUN(&op, flags, -1,
			real_statx_get() ? real_statx_get()(dirfd, path, flags,
							    mask, buf)
					 : (int)syscall(SYS_statx, dirfd, path,
							flags, mask, buf));
}

/* access() and euidaccess() differ in whose ids the kernel checks: the
 * policy is the same for both. */
#define ACCESS_HOOK(name, flags)                                               \
	SHIM_API int name(const char *path, int mode)                          \
	{                                                                      \
		struct op op =                                                 \
			OP(#name, access_need(mode), AT_FDCWD, path, 0);       \
		return STAT_RUN(&op, 0, -1,                                    \
				real_##name##_get()                            \
					? real_##name##_get()(path, mode)      \
					: (int)syscall(SYS_faccessat2,         \
						       AT_FDCWD, path, mode,   \
						       flags));                \
	}

ACCESS_HOOK(access, 0)
ACCESS_HOOK(euidaccess, AT_EACCESS)
ACCESS_HOOK(eaccess, AT_EACCESS)

SHIM_API int faccessat(int dirfd, const char *path, int mode, int flags)
{
	struct op op = OP("faccessat", access_need(mode), dirfd, path,
			  path_flags(flags));

	return STAT_RUN(&op, flags, -1,
			real_faccessat_get()
				? real_faccessat_get()(dirfd, path, mode, flags)
				: (int)syscall(SYS_faccessat2, dirfd, path,
					       mode, flags));
}

/* readlink reads the link itself, never what it points to.  An empty
 * path in readlinkat names the dirfd itself (an O_PATH fd of a link):
 * the lookup in decide() does not find it, so it is the program's own. */
#define READLINK_HOOK(name, params, dirfd, args)                               \
	SHIM_API ssize_t name params                                           \
	{                                                                      \
		struct op op = OP(#name, 0, dirfd, path, PATH_NOFOLLOW);       \
		return STAT_RUN(&op, AT_SYMLINK_NOFOLLOW, (ssize_t)-1,         \
				real_##name##_get()                            \
					? real_##name##_get() args             \
					: syscall(SYS_readlinkat, dirfd, path, \
						  buf, len));                  \
	}

READLINK_HOOK(readlink, (const char *path, char *buf, size_t len), AT_FDCWD,
	      (path, buf, len))
READLINK_HOOK(readlinkat, (int dirfd, const char *path, char *buf, size_t len),
	      dirfd, (dirfd, path, buf, len))
/* The fortified names check @len against @buflen in the real function:
 * the shim only decides, and never aborts on its own. */
READLINK_HOOK(__readlink_chk,
	      (const char *path, char *buf, size_t len, size_t buflen),
	      AT_FDCWD, (path, buf, len, buflen))
READLINK_HOOK(__readlinkat_chk,
	      (int dirfd, const char *path, char *buf, size_t len,
	       size_t buflen),
	      dirfd, (dirfd, path, buf, len, buflen))

/* The canonical name of a hidden path is itself what is hidden: the
 * decision is on the path fully resolved, as realpath resolves it. */
#define REALPATH_HOOK(fn, real)                                                \
	SHIM_API char *fn(const char *path, char *resolved);                   \
	SHIM_API char *fn(const char *path, char *resolved)                    \
	{                                                                      \
		struct op op = OP("realpath", 0, AT_FDCWD, path, 0);           \
		return STAT_RUN(&op, 0, (char *)NULL,                          \
				real ? real(path, resolved)                    \
				     : (char *)hook_nosys_ptr());              \
	}

REALPATH_HOOK(realpath_v2_3, real_realpath_get())
REALPATH_HOOK(realpath_v2_2_5, real_realpath_old_get())
__asm__(".symver realpath_v2_3,realpath@@GLIBC_2.3");
__asm__(".symver realpath_v2_2_5,realpath@GLIBC_2.2.5");

SHIM_API char *__realpath_chk(const char *path, char *resolved,
			      size_t resolvedlen)
{
	struct op op = OP("__realpath_chk", 0, AT_FDCWD, path, 0);

	return STAT_RUN(
		&op, 0, (char *)NULL,
		real___realpath_chk_get()
			? real___realpath_chk_get()(path, resolved, resolvedlen)
			: (char *)hook_nosys_ptr());
}

SHIM_API char *canonicalize_file_name(const char *path)
{
	struct op op = OP("canonicalize_file_name", 0, AT_FDCWD, path, 0);

	return STAT_RUN(&op, 0, (char *)NULL,
			real_canonicalize_file_name_get()
				? real_canonicalize_file_name_get()(path)
				: (char *)hook_nosys_ptr());
}
