/*
 * hook_open.c - the open family: open, openat, creat (and their 64-bit
 * and fortified names), fopen, freopen, opendir, truncate; dlopen and
 * dlmopen (a library file read); posix_spawn_file_actions_addopen (an
 * open the spawned child makes).
 *
 * libc calls itself directly, never through these names (catalog A.0),
 * so every public name is a hook of its own and forwards to the real
 * function of the same name.  The mode argument is read whenever the
 * kernel reads it: O_CREAT and O_TMPFILE (catalog D-14).  dlopen and
 * dlmopen read their caller's return address (RPATH, RUNPATH, $ORIGIN,
 * namespace): they must leave by a tail call.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "shim/hooks.h"

/* Force the forwarding call of dlopen and dlmopen to be a jump, at
 * every optimisation level the tree is built with. */
#define TAIL_CALLER __attribute__((optimize("optimize-sibling-calls")))

#ifndef __O_TMPFILE
#define __O_TMPFILE (020000000 | O_DIRECTORY)
#endif

/* Public glibc names that no header declares. */
int __open(const char *path, int flags, ...);
int __open64(const char *path, int flags, ...);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

static REAL_SLOT int (*real_open)(const char *, int, ...);
static REAL_SLOT int (*real_open64)(const char *, int, ...);
static REAL_SLOT int (*real___open)(const char *, int, ...);
static REAL_SLOT int (*real___open64)(const char *, int, ...);
static REAL_SLOT int (*real___open_2)(const char *, int);
static REAL_SLOT int (*real___open64_2)(const char *, int);
static REAL_SLOT int (*real_openat)(int, const char *, int, ...);
static REAL_SLOT int (*real_openat64)(int, const char *, int, ...);
static REAL_SLOT int (*real___openat_2)(int, const char *, int);
static REAL_SLOT int (*real___openat64_2)(int, const char *, int);
static REAL_SLOT int (*real_creat)(const char *, mode_t);
static REAL_SLOT int (*real_creat64)(const char *, mode_t);
static REAL_SLOT FILE *(*real_fopen)(const char *, const char *);
static REAL_SLOT FILE *(*real_fopen64)(const char *, const char *);
static REAL_SLOT FILE *(*real_freopen)(const char *, const char *, FILE *);
static REAL_SLOT FILE *(*real_freopen64)(const char *, const char *, FILE *);
static REAL_SLOT DIR *(*real_opendir)(const char *);
static REAL_SLOT int (*real_truncate)(const char *, off_t);
static REAL_SLOT int (*real_truncate64)(const char *, off_t);
static REAL_SLOT void *(*real_dlopen)(const char *, int);
static REAL_SLOT void *(*real_dlmopen)(Lmid_t, const char *, int);
static REAL_SLOT int (*real_posix_spawn_file_actions_addopen)(
	posix_spawn_file_actions_t *, int, const char *, int, mode_t);

/* One function under both versions (2.2.5 or 2.3.4, and 2.34);
 * the unversioned hook catches callers of either. */
REAL_FN(real_open, "open")
REAL_FN(real_open64, "open64")
REAL_FN(real___open, "__open")
REAL_FN(real___open64, "__open64")
REAL_FN(real___open_2, "__open_2")
REAL_FN(real___open64_2, "__open64_2")
REAL_FN(real_openat, "openat")
REAL_FN(real_openat64, "openat64")
REAL_FN(real___openat_2, "__openat_2")
REAL_FN(real___openat64_2, "__openat64_2")
REAL_FN(real_creat, "creat")
REAL_FN(real_creat64, "creat64")
REAL_FN(real_fopen, "fopen")
REAL_FN(real_fopen64, "fopen64")
REAL_FN(real_freopen, "freopen")
REAL_FN(real_freopen64, "freopen64")
REAL_FN(real_opendir, "opendir")
REAL_FN(real_truncate, "truncate")
REAL_FN(real_truncate64, "truncate64")
REAL_FN(real_dlopen, "dlopen")
REAL_FN(real_dlmopen, "dlmopen")
REAL_FN(real_posix_spawn_file_actions_addopen,
	"posix_spawn_file_actions_addopen")

static bool has_mode(int flags)
{
	return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE;
}

/* The operation an open with @flags performs on @path. */
static struct op open_op(const char *name, int dirfd, const char *path,
			 int flags)
{
	int acc = flags & O_ACCMODE;
	struct op op = OP(name, 0, dirfd, path, 0);

	if (flags & O_PATH)
		return op; /* no access: the path must only be visible */
	if (acc != O_WRONLY)
		op.need |= RIGHT_R;
	if (acc != O_RDONLY || (flags & O_TRUNC) ||
	    (flags & __O_TMPFILE) == __O_TMPFILE)
		op.need |= RIGHT_W;
	op.creat = (flags & O_CREAT) != 0;
	if (flags & (O_NOFOLLOW | O_EXCL))
		op.pflags |= PATH_NOFOLLOW;
	return op;
}

/* "r", "w+", "ae", ... as open(2) flags. */
static int fopen_flags(const char *mode)
{
	int flags = mode[0] == 'r' ? O_RDONLY : O_WRONLY | O_CREAT;

	for (const char *m = mode + 1; *m && *m != ','; m++)
		if (*m == '+')
			flags = (flags & ~O_ACCMODE) | O_RDWR;
	if (mode[0] == 'w')
		flags |= O_TRUNC;
	for (const char *m = mode; *m && *m != ','; m++)
		if (*m == 'x')
			flags |= O_EXCL;
	return flags;
}

/* The mode of an open with @flags, read as the kernel reads it: only
 * with O_CREAT or O_TMPFILE (catalog D-14).  In the variadic hook. */
#define OPEN_MODE(flags)                                                       \
	({                                                                     \
		mode_t mode_ = 0;                                              \
		if (has_mode(flags)) {                                         \
			va_list ap;                                            \
			va_start(ap, flags);                                   \
			mode_ = va_arg(ap, mode_t);                            \
			va_end(ap);                                            \
		}                                                              \
		mode_;                                                         \
	})

/* open and openat, and their other names: @params and @args are the
 * hook's parameters and the call's arguments (the mode last). */
#define OPEN_HOOK(name, params, dirfd, args)                                   \
	SHIM_API int name params                                               \
	{                                                                      \
		mode_t mode = OPEN_MODE(flags);                                \
		struct op op = open_op(#name, dirfd, path, flags);             \
		return HOOK_RUN(&op, -1,                                       \
				real_##name##_get()                            \
					? real_##name##_get() args             \
					: (int)syscall(SYS_openat, dirfd,      \
						       path, flags, mode));    \
	}

OPEN_HOOK(open, (const char *path, int flags, ...), AT_FDCWD,
	  (path, flags, mode))
OPEN_HOOK(open64, (const char *path, int flags, ...), AT_FDCWD,
	  (path, flags, mode))
OPEN_HOOK(__open, (const char *path, int flags, ...), AT_FDCWD,
	  (path, flags, mode))
OPEN_HOOK(__open64, (const char *path, int flags, ...), AT_FDCWD,
	  (path, flags, mode))
OPEN_HOOK(openat, (int dirfd, const char *path, int flags, ...), dirfd,
	  (dirfd, path, flags, mode))
OPEN_HOOK(openat64, (int dirfd, const char *path, int flags, ...), dirfd,
	  (dirfd, path, flags, mode))

/* The fortified names take no mode: glibc aborts on O_CREAT with them,
 * and the real function keeps doing so. */
#define OPEN2_HOOK(name, params, dirfd, args)                                  \
	SHIM_API int name params                                               \
	{                                                                      \
		struct op op = open_op(#name, dirfd, path, flags);             \
		return HOOK_RUN(&op, -1,                                       \
				real_##name##_get()                            \
					? real_##name##_get() args             \
					: (int)syscall(SYS_openat, dirfd,      \
						       path, flags, 0));       \
	}

OPEN2_HOOK(__open_2, (const char *path, int flags), AT_FDCWD, (path, flags))
OPEN2_HOOK(__open64_2, (const char *path, int flags), AT_FDCWD, (path, flags))
OPEN2_HOOK(__openat_2, (int dirfd, const char *path, int flags), dirfd,
	   (dirfd, path, flags))
OPEN2_HOOK(__openat64_2, (int dirfd, const char *path, int flags), dirfd,
	   (dirfd, path, flags))

#define CREAT_HOOK(name)                                                       \
	SHIM_API int name(const char *path, mode_t mode)                       \
	{                                                                      \
		struct op op = open_op(#name, AT_FDCWD, path,                  \
				       O_WRONLY | O_CREAT | O_TRUNC);          \
		return HOOK_RUN(                                               \
			&op, -1,                                               \
			real_##name##_get()                                    \
				? real_##name##_get()(path, mode)              \
				: (int)syscall(SYS_creat, path, mode));        \
	}

CREAT_HOOK(creat)
CREAT_HOOK(creat64)

/* fopen, and freopen(NULL, mode, f), which changes the mode of f's own
 * file: no path, nothing decided (shim_check() lets a NULL path by). */
#define FOPEN_HOOK(name, params, args)                                         \
	SHIM_API FILE *name params                                             \
	{                                                                      \
		struct op op = open_op(#name, AT_FDCWD, path,                  \
				       path && mode ? fopen_flags(mode) : 0);  \
		return HOOK_RUN(&op, NULL,                                     \
				real_##name##_get() ? real_##name##_get() args \
						    : hook_nosys_ptr());       \
	}

FOPEN_HOOK(fopen, (const char *path, const char *mode), (path, mode))
FOPEN_HOOK(fopen64, (const char *path, const char *mode), (path, mode))
FOPEN_HOOK(freopen, (const char *path, const char *mode, FILE *f),
	   (path, mode, f))
FOPEN_HOOK(freopen64, (const char *path, const char *mode, FILE *f),
	   (path, mode, f))

SHIM_API DIR *opendir(const char *path)
{
	struct op op = OP("opendir", RIGHT_R, AT_FDCWD, path, 0);

	return HOOK_RUN(&op, NULL,
			real_opendir_get() ? real_opendir_get()(path)
					   : hook_nosys_ptr());
}

#define TRUNCATE_HOOK(name)                                                    \
	SHIM_API int name(const char *path, off_t len)                         \
	{                                                                      \
		struct op op = OP(#name, RIGHT_W, AT_FDCWD, path, 0);          \
		return HOOK_RUN(                                               \
			&op, -1,                                               \
			real_##name##_get()                                    \
				? real_##name##_get()(path, len)               \
				: (int)syscall(SYS_truncate, path, len));      \
	}

TRUNCATE_HOOK(truncate)
TRUNCATE_HOOK(truncate64)

/* ld.so searches for a name without a slash, and expands $ORIGIN, $LIB
 * and $PLATFORM from the caller: only a plain path names the file. */
static bool is_plain_path(const char *file)
{
	bool slash = false;

	for (const char *c = file; c && *c; c++) {
		if (*c == '$')
			return false;
		if (*c == '/')
			slash = true;
	}
	return slash;
}

/* The decision of dlopen or dlmopen, out of line: the hook itself keeps
 * no frame, so that its forwarding call can be a jump.  A NULL path in
 * the op still loads the policy, and decides nothing. */
static __attribute__((noinline)) bool dl_denied(const char *name,
						const char *file)
{
	/* ld.so maps it executable: a root only readable is noexec */
	struct op op = OP(name, RIGHT_R | RIGHT_X, AT_FDCWD,
			  is_plain_path(file) ? file : NULL, 0);

	op.blind_after = true;
	return hook_deny(&op) != 0;
}

static __attribute__((noinline)) void *dl_nosys(void)
{
	errno = ENOSYS;
	return NULL;
}

/* No hook_failed() after the real call: it would need a frame, and
 * ld.so reports through dlerror(), not errno.  errno is unchanged
 * before the jump (dl_denied() keeps it). */
SHIM_API TAIL_CALLER void *dlopen(const char *file, int mode)
{
	if (dl_denied("dlopen", file))
		return NULL;
	if (!real_dlopen_get())
		return dl_nosys();
	return real_dlopen_get()(file, mode);
}

SHIM_API TAIL_CALLER void *dlmopen(Lmid_t lmid, const char *file, int mode)
{
	if (dl_denied("dlmopen", file))
		return NULL;
	if (!real_dlmopen_get())
		return dl_nosys();
	return real_dlmopen_get()(lmid, file, mode);
}

/* The child opens the path through libc's internal call: decide at
 * registration, with the rights open(2) would need for @oflag.  A
 * relative path is taken from the cwd at registration.  Errors are
 * returned, as by posix_spawn. */
SHIM_API int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa,
					      int fd, const char *path,
					      int oflag, mode_t mode)
{
	struct op op = open_op("posix_spawn_file_actions_addopen", AT_FDCWD,
			       path, oflag);
	int saved = errno;
	int ret;

	op.blind_after = true;
	ret = hook_decide(&op);
	if (ret)
		return ret; /* returned, as by posix_spawn: errno untouched */
	if (!real_posix_spawn_file_actions_addopen_get())
		return ENOSYS;
	ret = real_posix_spawn_file_actions_addopen_get()(fa, fd, path, oflag,
							  mode);
	if (ret)
		hook_failed(&op, ret);
	errno = saved;
	return ret;
}
