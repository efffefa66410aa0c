/*
 * hook_create.c - the create family: the mk*temp* names and tmpfile,
 * mkfifo and mknod (with the pre-2.33 __xmknod names).
 *
 * libc calls itself directly (catalog A.0), so each public name is a
 * hook of its own and forwards to the real function of the same name.
 * A temp file is made in the directory of its template; tmpfile makes
 * it in P_tmpdir whatever TMPDIR says (glibc 2.36 tries O_TMPFILE there,
 * then a name there).  A creation whose name is taken fails with EEXIST
 * before the kernel asks Landlock, so it needs W only when the name is
 * free.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "shim/change.h"
#include "shim/hooks.h"

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

REAL_FN(real_mkstemp, "mkstemp")
REAL_FN(real_mkstemp64, "mkstemp64")
REAL_FN(real_mkostemp, "mkostemp")
REAL_FN(real_mkostemp64, "mkostemp64")
REAL_FN(real_mkstemps, "mkstemps")
REAL_FN(real_mkstemps64, "mkstemps64")
REAL_FN(real_mkostemps, "mkostemps")
REAL_FN(real_mkostemps64, "mkostemps64")
REAL_FN(real_mkdtemp, "mkdtemp")
REAL_FN(real_mktemp, "mktemp")
REAL_FN(real_tmpfile, "tmpfile")
REAL_FN(real_tmpfile64, "tmpfile64")
REAL_FN(real_mkfifo, "mkfifo")
REAL_FN(real_mkfifoat, "mkfifoat")
REAL_FN(real_mknod, "mknod")
REAL_FN(real_mknodat, "mknodat")
REAL_FN(real___xmknod, "__xmknod")
REAL_FN(real___xmknodat, "__xmknodat")

/* A temp file: a new name in the template's directory, opened O_RDWR;
 * @params and @args: the hook's parameters and the call's arguments. */
#define TEMP_HOOK(name, params, args)                                          \
	SHIM_API int name params                                               \
	{                                                                      \
		struct op op = OP(#name, RIGHT_R | RIGHT_W, AT_FDCWD, tmpl,    \
				  PATH_NOFOLLOW);                              \
		return HOOK_RUN(&op, -1,                                       \
				real_##name##_get() ? real_##name##_get() args \
						    : hook_nosys());           \
	}

TEMP_HOOK(mkstemp, (char *tmpl), (tmpl))
TEMP_HOOK(mkstemp64, (char *tmpl), (tmpl))
TEMP_HOOK(mkostemp, (char *tmpl, int flags), (tmpl, flags))
TEMP_HOOK(mkostemp64, (char *tmpl, int flags), (tmpl, flags))
TEMP_HOOK(mkstemps, (char *tmpl, int suffixlen), (tmpl, suffixlen))
TEMP_HOOK(mkstemps64, (char *tmpl, int suffixlen), (tmpl, suffixlen))
TEMP_HOOK(mkostemps, (char *tmpl, int suffixlen, int flags),
	  (tmpl, suffixlen, flags))
TEMP_HOOK(mkostemps64, (char *tmpl, int suffixlen, int flags),
	  (tmpl, suffixlen, flags))

SHIM_API char *mkdtemp(char *tmpl)
{
	struct op op = OP("mkdtemp", RIGHT_W, AT_FDCWD, tmpl, PATH_NOFOLLOW);

	return HOOK_RUN(&op, NULL,
			real_mkdtemp_get() ? real_mkdtemp_get()(tmpl)
					   : hook_nosys_ptr());
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
	/* its failure is an empty name, not NULL */
	if (hook_deny(&op)) {
		tmpl[0] = '\0';
		return tmpl;
	}
	if (!real_mktemp_get()) {
		tmpl[0] = '\0';
		errno = ENOSYS;
		return tmpl;
	}
	errno = saved;
	return real_mktemp_get()(tmpl);
}

#define TMPFILE_HOOK(name)                                                     \
	SHIM_API FILE *name(void)                                              \
	{                                                                      \
		struct op op =                                                 \
			OP(#name, RIGHT_R | RIGHT_W, AT_FDCWD, P_tmpdir, 0);   \
		return HOOK_RUN(&op, NULL,                                     \
				real_##name##_get() ? real_##name##_get()()    \
						    : hook_nosys_ptr());       \
	}

TMPFILE_HOOK(tmpfile)
TMPFILE_HOOK(tmpfile64)

SHIM_API int mkfifo(const char *path, mode_t mode)
{
	struct op op = change_make_op("mkfifo", AT_FDCWD, path);

	return HOOK_RUN(&op, -1,
			real_mkfifo_get()
				? real_mkfifo_get()(path, mode)
				: (int)syscall(SYS_mknodat, AT_FDCWD, path,
					       S_IFIFO | mode, 0));
}

SHIM_API int mkfifoat(int dirfd, const char *path, mode_t mode)
{
	struct op op = change_make_op("mkfifoat", dirfd, path);

	return HOOK_RUN(&op, -1,
			real_mkfifoat_get()
				? real_mkfifoat_get()(dirfd, path, mode)
				: (int)syscall(SYS_mknodat, dirfd, path,
					       S_IFIFO | mode, 0));
}

SHIM_API int mknod(const char *path, mode_t mode, dev_t dev)
{
	struct op op = change_make_op("mknod", AT_FDCWD, path);

	return HOOK_RUN(&op, -1,
			real_mknod_get() ? real_mknod_get()(path, mode, dev)
					 : (int)syscall(SYS_mknodat, AT_FDCWD,
							path, mode, dev));
}

SHIM_API int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	struct op op = change_make_op("mknodat", dirfd, path);

	return HOOK_RUN(
		&op, -1,
		real_mknodat_get()
			? real_mknodat_get()(dirfd, path, mode, dev)
			: (int)syscall(SYS_mknodat, dirfd, path, mode, dev));
}

SHIM_API int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev)
{
	struct op op = change_make_op("__xmknod", AT_FDCWD, path);

	return HOOK_RUN(&op, -1,
			real___xmknod_get()
				? real___xmknod_get()(ver, path, mode, dev)
				: hook_nosys());
}

SHIM_API int __xmknodat(int ver, int dirfd, const char *path, mode_t mode,
			dev_t *dev)
{
	struct op op = change_make_op("__xmknodat", dirfd, path);

	return HOOK_RUN(
		&op, -1,
		real___xmknodat_get()
			? real___xmknodat_get()(ver, dirfd, path, mode, dev)
			: hook_nosys());
}
