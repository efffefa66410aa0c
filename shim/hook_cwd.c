/*
 * hook_cwd.c - chdir and fchdir: forwarded as they are, then the
 * working directory the shim keeps (cwd.c) is marked changed for every
 * thread.  Nothing is decided: Landlock needs no right to enter a
 * directory, and what is done there by path is decided then.
 */
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/hooks.h"

static REAL_SLOT int (*real_chdir)(const char *);
static REAL_SLOT int (*real_fchdir)(int);

REAL_FN(real_chdir, "chdir")
REAL_FN(real_fchdir, "fchdir")

SHIM_API int chdir(const char *path)
{
	int ret = real_chdir_get() ? real_chdir_get()(path)
				   : (int)syscall(SYS_chdir, path);

	cwd_changed();
	return ret;
}

SHIM_API int fchdir(int fd)
{
	int ret = real_fchdir_get() ? real_fchdir_get()(fd)
				    : (int)syscall(SYS_fchdir, fd);

	cwd_changed();
	return ret;
}
