/*
 * exec_interp.c - what the kernel checks when it runs a file, beside
 * the policy: whether it could run it at all, and the "#!" interpreters
 * it runs next, each of which needs X as the script does (Landlock's
 * EXECUTE and the noexec mounts apply to the interpreter too).  Without
 * this a script whose interpreter lies outside the exec roots fails
 * with the kernel's bare EACCES and no line.  exec_env_follow() (in
 * exec_env_linux.c) finds the interpreters, reading each file once.
 *
 * Runs in the exec hooks, between vfork and exec: raw system calls and
 * the stack only, no malloc, no locks, no stdio; errno is the caller's
 * to keep.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "shim/exec_interp.h"
#include "shim/hooks.h"

/* Is @path on a noexec mount?  cordon's mount namespace makes every
 * mount noexec but the exec roots, so there the policy decides (and
 * says so), not the mount. */
static bool on_noexec_mount(int dirfd, const char *path, int at)
{
	struct statfs sf;
	int fd;
	long r;

	if (!path[0] && (at & AT_EMPTY_PATH))
		return syscall(SYS_fstatfs, dirfd, &sf) == 0 &&
		       (sf.f_flags & ST_NOEXEC);
	fd = (int)syscall(SYS_openat, dirfd, path,
			  O_PATH | O_CLOEXEC |
				  (at & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0));
	if (fd < 0)
		return false;
	r = syscall(SYS_fstatfs, fd, &sf);
	syscall(SYS_close, fd);
	return r == 0 && (sf.f_flags & ST_NOEXEC);
}

bool exec_is_runnable(int dirfd, const char *path, int pflags, bool unseen_ok)
{
	int at = (pflags & PATH_NOFOLLOW ? AT_SYMLINK_NOFOLLOW : 0) |
		 (pflags & PATH_EMPTY_OK ? AT_EMPTY_PATH : 0);
	struct stat st;
	long r;

	if (syscall(SYS_newfstatat, dirfd, path, &st, at) != 0)
		return unseen_ok && errno == EACCES;
	if (!S_ISREG(st.st_mode))
		return false;
	r = syscall(SYS_faccessat2, dirfd, path, X_OK, AT_EACCESS | at);
	if (r != 0 && errno == ENOSYS)
		r = syscall(SYS_faccessat, dirfd, path, X_OK);
	return r == 0 || (errno == EACCES && (st.st_mode & 0111) &&
			  on_noexec_mount(dirfd, path, at));
}

int exec_judge_interpreter(const struct op *script, const char *interp)
{
	/* the kernel opens it from the cwd, following links */
	struct op op = OP(script->name, RIGHT_X, AT_FDCWD, interp, 0);

	op.blind_after = true;
	op.end = "interpreter";
	if (!exec_is_runnable(AT_FDCWD, interp, 0, true))
		return -1; /* the kernel fails it by itself */
	return hook_decide(&op) ? EACCES : 0;
}
