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

static void hooks_cwd_resolve(void)
{
	RESOLVE(chdir);
	RESOLVE(fchdir);
	cwd_watch();
}
SHIM_RESOLVER(hooks_cwd_resolve);

SHIM_API int chdir(const char *path)
{
	int ret = real_chdir ? real_chdir(path) : (int)syscall(SYS_chdir, path);

	cwd_changed();
	return ret;
}

SHIM_API int fchdir(int fd)
{
	int ret = real_fchdir ? real_fchdir(fd) : (int)syscall(SYS_fchdir, fd);

	cwd_changed();
	return ret;
}
