/*
 * hook_create.c - the create family: the mk*temp* names and tmpfile,
 * mkfifo and mknod (with the pre-2.33 __xmknod names), dlopen and
 * dlmopen, and posix_spawn_file_actions_addopen.
 *
 * libc calls itself directly (catalog A.0), so each public name is a
 * hook of its own and forwards to the real function of the same name.
 * A temp file is made in the directory of its template; tmpfile makes
 * it in P_tmpdir whatever TMPDIR says (glibc 2.36 tries O_TMPFILE there,
 * then a name there).  A creation whose name is taken fails with EEXIST
 * before the kernel asks Landlock, so it needs W only when the name is
 * free.  dlopen and dlmopen read their caller's return address (RPATH,
 * RUNPATH, $ORIGIN, namespace): they must leave by a tail call.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "shim/change.h"
#include "shim/hooks.h"

#ifndef __O_TMPFILE
#define __O_TMPFILE (020000000 | O_DIRECTORY)
#endif

/* Force the forwarding call of dlopen and dlmopen to be a jump, at
 * every optimisation level the tree is built with. */
#define TAIL_CALLER __attribute__((optimize("optimize-sibling-calls")))

/* Public glibc names that no header declares (since 2.33). */
int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev);
int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev);

static REAL_SLOT int (*real_mkstemp)(char *);
static REAL_SLOT int (*real_mkstemp64)(char *);
static REAL_SLOT int (*real_mkostemp)(char *, int);
static REAL_SLOT int (*real_mkostemp64)(char *, int);
static REAL_SLOT int (*real_mkstemps)(char *, int);
static REAL_SLOT int (*real_mkstemps64)(char *, int);
static REAL_SLOT int (*real_mkostemps)(char *, int, int);
static REAL_SLOT int (*real_mkostemps64)(char *, int, int);
static REAL_SLOT char *(*real_mkdtemp)(char *);
static REAL_SLOT char *(*real_mktemp)(char *);
static REAL_SLOT FILE *(*real_tmpfile)(void);
static REAL_SLOT FILE *(*real_tmpfile64)(void);
static REAL_SLOT int (*real_mkfifo)(const char *, mode_t);
static REAL_SLOT int (*real_mkfifoat)(int, const char *, mode_t);
static REAL_SLOT int (*real_mknod)(const char *, mode_t, dev_t);
static REAL_SLOT int (*real_mknodat)(int, const char *, mode_t, dev_t);
static REAL_SLOT int (*real___xmknod)(int, const char *, mode_t, dev_t *);
static REAL_SLOT int (*real___xmknodat)(int, int, const char *, mode_t,
					dev_t *);
static REAL_SLOT void *(*real_dlopen)(const char *, int);
static REAL_SLOT void *(*real_dlmopen)(Lmid_t, const char *, int);
static REAL_SLOT int (*real_posix_spawn_file_actions_addopen)(
	posix_spawn_file_actions_t *, int, const char *, int, mode_t);

void hooks_create_resolve(void)
{
	RESOLVE(mkstemp);
	RESOLVE(mkstemp64);
	RESOLVE(mkostemp);
	RESOLVE(mkostemp64);
	RESOLVE(mkstemps);
	RESOLVE(mkstemps64);
	RESOLVE(mkostemps);
	RESOLVE(mkostemps64);
	RESOLVE(mkdtemp);
	RESOLVE(mktemp);
	RESOLVE(tmpfile);
	RESOLVE(tmpfile64);
	RESOLVE(mkfifo);
	RESOLVE(mkfifoat);
	RESOLVE(mknod);
	RESOLVE(mknodat);
	RESOLVE(__xmknod);
	RESOLVE(__xmknodat);
	/* One function under both versions (2.2.5 or 2.3.4, and 2.34);
	 * the unversioned hook catches callers of either. */
	RESOLVE(dlopen);
	RESOLVE(dlmopen);
	RESOLVE(posix_spawn_file_actions_addopen);
}

static int nosys(void)
{
	errno = ENOSYS;
	return -1;
}

/* A temp file: a new name in the template's directory, opened O_RDWR. */
#define TEMP_OP(name, tmpl)                                                    \
	OP(#name, RIGHT_R | RIGHT_W, AT_FDCWD, tmpl, PATH_NOFOLLOW)

#define MKSTEMP_HOOK(name)                                                     \
	SHIM_API int name(char *tmpl)                                          \
	{                                                                      \
		struct op op = TEMP_OP(name, tmpl);                            \
		int saved = errno;                                             \
		if (hook_deny(&op))                                            \
			return -1;                                             \
		if (!real_##name)                                              \
			return nosys();                                        \
		return hook_done(&op, real_##name(tmpl), saved);               \
	}

#define MKOSTEMP_HOOK(name)                                                    \
	SHIM_API int name(char *tmpl, int flags)                               \
	{                                                                      \
		struct op op = TEMP_OP(name, tmpl);                            \
		int saved = errno;                                             \
		if (hook_deny(&op))                                            \
			return -1;                                             \
		if (!real_##name)                                              \
			return nosys();                                        \
		return hook_done(&op, real_##name(tmpl, flags), saved);        \
	}

#define MKSTEMPS_HOOK(name)                                                    \
	SHIM_API int name(char *tmpl, int suffixlen)                           \
	{                                                                      \
		struct op op = TEMP_OP(name, tmpl);                            \
		int saved = errno;                                             \
		if (hook_deny(&op))                                            \
			return -1;                                             \
		if (!real_##name)                                              \
			return nosys();                                        \
		return hook_done(&op, real_##name(tmpl, suffixlen), saved);    \
	}

#define MKOSTEMPS_HOOK(name)                                                   \
	SHIM_API int name(char *tmpl, int suffixlen, int flags)                \
	{                                                                      \
		struct op op = TEMP_OP(name, tmpl);                            \
		int saved = errno;                                             \
		if (hook_deny(&op))                                            \
			return -1;                                             \
		if (!real_##name)                                              \
			return nosys();                                        \
		return hook_done(&op, real_##name(tmpl, suffixlen, flags),     \
				 saved);                                       \
	}

MKSTEMP_HOOK(mkstemp)
MKSTEMP_HOOK(mkstemp64)
MKOSTEMP_HOOK(mkostemp)
MKOSTEMP_HOOK(mkostemp64)
MKSTEMPS_HOOK(mkstemps)
MKSTEMPS_HOOK(mkstemps64)
MKOSTEMPS_HOOK(mkostemps)
MKOSTEMPS_HOOK(mkostemps64)

SHIM_API char *mkdtemp(char *tmpl)
{
	struct op op = OP("mkdtemp", RIGHT_W, AT_FDCWD, tmpl, PATH_NOFOLLOW);
	int saved = errno;
	char *dir;

	if (hook_deny(&op))
		return NULL;
	if (!real_mkdtemp) {
		errno = ENOSYS;
		return NULL;
	}
	dir = real_mkdtemp(tmpl);
	if (!dir)
		hook_failed(&op, errno);
	else
		errno = saved;
	return dir;
}

/*
 * mktemp only makes up a name, probing with lstat in the template's
 * directory: a directory the policy hides gives the failure mktemp
 * itself gives (an empty string), with EACCES.
 */
SHIM_API char *mktemp(char *tmpl) /* banned-ok: the hook of it */
{
	char dir[PATH_BUF];
	const char *slash = strrchr(tmpl, '/');
	struct op op = OP("mktemp", 0, AT_FDCWD, dir, 0);
	int saved = errno;
	size_t n;

	if (!slash) {
		dir[0] = '.';
		dir[1] = '\0';
	} else {
		n = slash == tmpl ? 1 : (size_t)(slash - tmpl);
		if (n >= sizeof(dir))
			n = sizeof(dir) - 1;
		memcpy(dir, tmpl, n);
		dir[n] = '\0';
	}
	if (hook_deny(&op)) {
		tmpl[0] = '\0';
		return tmpl;
	}
	if (!real_mktemp) {
		tmpl[0] = '\0';
		errno = ENOSYS;
		return tmpl;
	}
	errno = saved;
	return real_mktemp(tmpl);
}

#define TMPFILE_HOOK(name)                                                     \
	SHIM_API FILE *name(void)                                              \
	{                                                                      \
		struct op op =                                                 \
			OP(#name, RIGHT_R | RIGHT_W, AT_FDCWD, P_tmpdir, 0);   \
		int saved = errno;                                             \
		FILE *f;                                                       \
		if (hook_deny(&op))                                            \
			return NULL;                                           \
		if (!real_##name) {                                            \
			errno = ENOSYS;                                        \
			return NULL;                                           \
		}                                                              \
		f = real_##name();                                             \
		if (!f)                                                        \
			hook_failed(&op, errno);                               \
		else                                                           \
			errno = saved;                                         \
		return f;                                                      \
	}

TMPFILE_HOOK(tmpfile)
TMPFILE_HOOK(tmpfile64)

SHIM_API int mkfifo(const char *path, mode_t mode)
{
	int saved = errno;
	struct op op = change_make_op("mkfifo", AT_FDCWD, path);

	if (hook_deny(&op))
		return -1;
	if (!real_mkfifo)
		return (int)syscall(SYS_mknodat, AT_FDCWD, path, S_IFIFO | mode,
				    0);
	return hook_done(&op, real_mkfifo(path, mode), saved);
}

SHIM_API int mkfifoat(int dirfd, const char *path, mode_t mode)
{
	int saved = errno;
	struct op op = change_make_op("mkfifoat", dirfd, path);

	if (hook_deny(&op))
		return -1;
	if (!real_mkfifoat)
		return (int)syscall(SYS_mknodat, dirfd, path, S_IFIFO | mode,
				    0);
	return hook_done(&op, real_mkfifoat(dirfd, path, mode), saved);
}

SHIM_API int mknod(const char *path, mode_t mode, dev_t dev)
{
	int saved = errno;
	struct op op = change_make_op("mknod", AT_FDCWD, path);

	if (hook_deny(&op))
		return -1;
	if (!real_mknod)
		return (int)syscall(SYS_mknodat, AT_FDCWD, path, mode, dev);
	return hook_done(&op, real_mknod(path, mode, dev), saved);
}

SHIM_API int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	int saved = errno;
	struct op op = change_make_op("mknodat", dirfd, path);

	if (hook_deny(&op))
		return -1;
	if (!real_mknodat)
		return (int)syscall(SYS_mknodat, dirfd, path, mode, dev);
	return hook_done(&op, real_mknodat(dirfd, path, mode, dev), saved);
}

SHIM_API int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev)
{
	int saved = errno;
	struct op op = change_make_op("__xmknod", AT_FDCWD, path);

	if (hook_deny(&op))
		return -1;
	if (!real___xmknod)
		return nosys();
	return hook_done(&op, real___xmknod(ver, path, mode, dev), saved);
}

SHIM_API int __xmknodat(int ver, int dirfd, const char *path, mode_t mode,
			dev_t *dev)
{
	int saved = errno;
	struct op op = change_make_op("__xmknodat", dirfd, path);

	if (hook_deny(&op))
		return -1;
	if (!real___xmknodat)
		return nosys();
	return hook_done(&op, real___xmknodat(ver, dirfd, path, mode, dev),
			 saved);
}

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
	struct op op = OP(name, RIGHT_R, AT_FDCWD,
			  is_plain_path(file) ? file : NULL, 0);

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
	if (!real_dlopen)
		return dl_nosys();
	return real_dlopen(file, mode);
}

SHIM_API TAIL_CALLER void *dlmopen(Lmid_t lmid, const char *file, int mode)
{
	if (dl_denied("dlmopen", file))
		return NULL;
	if (!real_dlmopen)
		return dl_nosys();
	return real_dlmopen(lmid, file, mode);
}

/* The child opens the path through libc's internal call: decide at
 * registration, with the rights open(2) would need for @oflag.  A
 * relative path is taken from the cwd at registration. */
static struct op addopen_op(const char *path, int oflag)
{
	int acc = oflag & O_ACCMODE;
	struct op op =
		OP("posix_spawn_file_actions_addopen", 0, AT_FDCWD, path, 0);

	if (oflag & O_PATH)
		return op;
	if (acc != O_WRONLY)
		op.need |= RIGHT_R;
	if (acc != O_RDONLY || (oflag & O_TRUNC) ||
	    (oflag & __O_TMPFILE) == __O_TMPFILE)
		op.need |= RIGHT_W;
	op.creat = (oflag & O_CREAT) != 0;
	if (oflag & (O_NOFOLLOW | O_EXCL))
		op.pflags |= PATH_NOFOLLOW;
	return op;
}

/* Errors are returned, as by posix_spawn. */
SHIM_API int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa,
					      int fd, const char *path,
					      int oflag, mode_t mode)
{
	struct op op = addopen_op(path, oflag);
	int saved = errno;
	int ret;

	if (hook_deny(&op))
		return EACCES;
	if (!real_posix_spawn_file_actions_addopen)
		return ENOSYS;
	ret = real_posix_spawn_file_actions_addopen(fa, fd, path, oflag, mode);
	if (ret)
		hook_failed(&op, ret);
	errno = saved;
	return ret;
}
