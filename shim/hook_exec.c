/*
 * hook_exec.c - the exec family: execve, execv, execvp, execvpe, execl,
 * execlp, execle, fexecve, execveat, posix_spawn and posix_spawnp (in
 * both of glibc's versions), system, popen and wordexp.
 *
 * Running a file needs X on it, and on each "#!" interpreter the kernel
 * runs for it (exec_interp.c, found by exec_env_follow(), which reads
 * each file once).  The shim decides only on a file the kernel could
 * run (a regular file with an x bit for us); anything else fails by
 * itself with the kernel's own errno.  The names that search
 * PATH search it only to decide, then forward to the real function, so
 * the search order and the ENOEXEC -> /bin/sh fallback stay glibc's
 * (catalog D-13).  system, popen and wordexp run /bin/sh.
 *
 * Every child gets the shim and the load-time policy snapshot back,
 * whatever environment the program passes (exec_env.c, D-2), and a
 * child the shim cannot enter (a static binary, another ELF class) is
 * named in an audit record for the launcher (D-9).
 *
 * These hooks run between vfork and exec (gcc, dash, posix_spawn
 * children): stack and raw syscalls only, no malloc, no locks, no setenv
 * (D-3).  execl* rebuild argv in a capped array, never a VLA (D-14), in
 * frames of their own so that a small thread stack never holds the
 * arrays and the decision at once.
 */
#include <fcntl.h>
#include <paths.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#include "shim/core/env.h"
#include "shim/exec_env.h"
#include "shim/exec_interp.h"
#include "shim/hooks.h"
#include "shim/core/strbuf.h"

#define EXEC_ARGV_CAP 1024 /* execl* arguments, the NULL included */

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

static REAL_SLOT int (*real_execve)(const char *, char *const[], char *const[]);
static REAL_SLOT int (*real_execvpe)(const char *, char *const[],
				     char *const[]);
static REAL_SLOT int (*real_fexecve)(int, char *const[], char *const[]);
static REAL_SLOT int (*real_execveat)(int, const char *, char *const[],
				      char *const[], int);
static REAL_SLOT spawn_fn *real_posix_spawn,
	*real_posix_spawnp; /* @@GLIBC_2.15 */
static REAL_SLOT spawn_fn *real_posix_spawn_old,
	*real_posix_spawnp_old; /* 2.2.5 */
static REAL_SLOT int (*real_system)(const char *);
static REAL_SLOT FILE *(*real_popen)(const char *, const char *);
static REAL_SLOT int (*real_wordexp)(const char *, wordexp_t *, int);

REAL_FN_VD(real_posix_spawn, "posix_spawn", "GLIBC_2.15")
REAL_FN_VD(real_posix_spawnp, "posix_spawnp", "GLIBC_2.15")
REAL_FN_V(real_posix_spawn_old, "posix_spawn", "GLIBC_2.2.5")
REAL_FN_V(real_posix_spawnp_old, "posix_spawnp", "GLIBC_2.2.5")
REAL_FN(real_execve, "execve")
REAL_FN(real_execvpe, "execvpe")
REAL_FN(real_fexecve, "fexecve")
REAL_FN(real_execveat, "execveat")
REAL_FN(real_system, "system")
REAL_FN(real_popen, "popen")
REAL_FN(real_wordexp, "wordexp")

static int refuse(int err)
{
	errno = err;
	return -1;
}

/* May @op run its runnable file, and the "#!" interpreters the kernel
 * runs for it?  0, or EACCES once reported. */
static int judge(const struct op *op)
{
	int err;

	if (hook_decide(op))
		return EACCES;
	err = exec_env_follow(op, exec_judge_interpreter);
	/* allowed: the libraries it maps where it is granted alone */
	if (!err)
		exec_libs_check(op);
	return err;
}

/* The decision of an exec of @path (from @dirfd): 0 or EACCES. */
static int decide(const char *name, int dirfd, const char *path, int pflags)
{
	struct op op = OP(name, RIGHT_X, dirfd, path, pflags);

	op.blind_after = true;

	if (!shim_is_ready())
		shim_init();
	if (!shim.active || !path ||
	    !exec_is_runnable(dirfd, path, pflags, true))
		return 0;
	return judge(&op);
}

/* "/proc/self/fd/N": the file of an fd, as a path the kernel follows. */
static const char *fd_path(int fd, char buf[32])
{
	struct strbuf sb = STRBUF(buf, 32);

	sb_puts(&sb, "/proc/self/fd/");
	sb_uint(&sb, (unsigned long)fd);
	return buf;
}

static const char *path_var(void)
{
	const char *v = env_value(environ, "PATH");

	return v ? v : PATH_SEARCH_DEFAULT;
}

enum pick {
	PICK_AS_GIVEN, /* forward the name as given */
	PICK_FOUND,    /* forward the file found, after refused ones */
	PICK_DENIED,   /* every file it could run is refused */
};

/*
 * search - the file execvp(@file) would run, to decide on it.  Like
 * glibc, try each PATH entry (@file itself when it has a slash or
 * !@use_path); the first file the kernel can run and the policy allows
 * is the one.  A file the policy refuses is reported and skipped, as
 * glibc skips the kernel's EACCES, and the one found after it is
 * forwarded by its full path: the refused one must not run when the
 * shim is alone.  @rel_ok false: a relative path cannot be judged (a
 * spawn file action may chdir first).  The file found is left in @run.
 */
static enum pick search(const char *name, const char *file, bool use_path,
			bool rel_ok, char run[PATH_BUF])
{
	bool refused = false;

	if (!shim_is_ready())
		shim_init();
	if (!shim.active || !file || !*file)
		return PICK_AS_GIVEN;
	if (!use_path || strchr(file, '/')) {
		if (!rel_ok && file[0] != '/')
			return PICK_AS_GIVEN;
		return decide(name, AT_FDCWD, file, 0) ? PICK_DENIED
						       : PICK_AS_GIVEN;
	}
	/* an empty entry is the cwd: "./file", never a bare name that
	 * execvp would search for again */
	for (const char *p = path_var(); path_search_next(&p, file, run);) {
		struct op op = OP(name, RIGHT_X, AT_FDCWD, run, 0);

		op.blind_after = true;
		if (!rel_ok && run[0] != '/')
			return refused ? PICK_DENIED : PICK_AS_GIVEN;
		if (exec_is_runnable(AT_FDCWD, run, 0, false)) {
			if (judge(&op) == 0)
				return refused ? PICK_FOUND : PICK_AS_GIVEN;
			refused = true;
		}
	}
	return refused ? PICK_DENIED : PICK_AS_GIVEN;
}

/* ---- Forwarding, each in a frame of its own (see the top) ---- */

#define NOINLINE __attribute__((noinline))

static int sys_execve(const char *path, char *const argv[], char *const envp[])
{
	return (int)syscall(SYS_execve, path, argv, envp);
}

static int run_execve(const char *path, char *const argv[], char *const envp[])
{
	return exec_env_execve(real_execve_get() ? real_execve_get()
						 : sys_execve,
			       path, argv, envp);
}

static NOINLINE int run_execvpe(const char *file, char *const argv[],
				char *const envp[])
{
	struct exec_env env;
	int ret = exec_env_build(&env, envp);

	if (ret)
		return refuse(-ret);
	ret = real_execvpe_get() ? real_execvpe_get()(file, argv, env.envp)
				 : -1;
	exec_env_done(&env);
	return real_execvpe_get() ? ret : refuse(ENOSYS);
}

static NOINLINE int run_fexecve(int fd, char *const argv[], char *const envp[])
{
	struct exec_env env;
	int ret = exec_env_build(&env, envp);

	if (ret)
		return refuse(-ret);
	if (!real_fexecve_get())
		ret = (int)syscall(SYS_execveat, fd, "", argv, env.envp,
				   AT_EMPTY_PATH);
	else
		ret = real_fexecve_get()(fd, argv, env.envp);
	exec_env_done(&env);
	return ret;
}

static NOINLINE int run_execveat(int dirfd, const char *path,
				 char *const argv[], char *const envp[],
				 int flags)
{
	struct exec_env env;
	int ret = exec_env_build(&env, envp);

	if (ret)
		return refuse(-ret);
	if (!real_execveat_get())
		ret = (int)syscall(SYS_execveat, dirfd, path, argv, env.envp,
				   flags);
	else
		ret = real_execveat_get()(dirfd, path, argv, env.envp, flags);
	exec_env_done(&env);
	return ret;
}

/* The hook's half of an execl*: collect the arguments, then forward. */
enum execl_kind { EXECL, EXECLE, EXECLP };

static NOINLINE int run_execl(enum execl_kind kind, const char *path,
			      const char *arg, va_list *ap)
{
	char *argv[EXEC_ARGV_CAP];
	char *const *envp = environ;
	size_t n = 0;

	argv[n++] = (char *)arg;
	while (argv[n - 1]) {
		if (n == EXEC_ARGV_CAP)
			return refuse(E2BIG);
		argv[n++] = va_arg(*ap, char *);
	}
	if (kind == EXECLE)
		envp = va_arg(*ap, char *const *);
	if (kind == EXECLP)
		return run_execvpe(path, argv, envp);
	return run_execve(path, argv, envp);
}

/* ---- The exec family ---- */

/*
 * target - what an exec of @file runs, decided (@use_path: searched in
 * PATH as execvp does): 0 with *@to set, or EACCES once refused.  errno
 * is left as the caller had it.
 */
static int target(const char *name, const char *file, bool use_path,
		  char run[PATH_BUF], const char **to)
{
	int saved = errno;
	enum pick pick = search(name, file, use_path, true, run);

	if (pick == PICK_DENIED)
		return EACCES;
	errno = saved;
	*to = pick == PICK_FOUND ? run : file;
	return 0;
}

/* The shape of an exec hook, as one expression (it hides no return):
 * decide on the target, then @call it (as `to`), or fail with the
 * decision's errno. */
#define EXEC_RUN(name, file, use_path, call)                                   \
	({                                                                     \
		char run_[PATH_BUF];                                           \
		const char *to;                                                \
		int err_ = target(name, file, use_path, run_, &to);            \
		err_ ? refuse(err_) : (call);                                  \
	})

/* The same for execl, execle and execlp: the arguments after @arg are
 * gathered by run_execl(). */
#define EXECL_RUN(name, kind, file, arg, use_path)                             \
	({                                                                     \
		char run_[PATH_BUF];                                           \
		const char *to_;                                               \
		int err_ = target(name, file, use_path, run_, &to_);           \
		va_list ap_;                                                   \
		int ret_ = err_ ? refuse(err_) : 0;                            \
		if (!err_) {                                                   \
			va_start(ap_, arg);                                    \
			ret_ = run_execl(kind, to_, arg, &ap_);                \
			va_end(ap_);                                           \
		}                                                              \
		ret_;                                                          \
	})

SHIM_API int execve(const char *path, char *const argv[], char *const envp[])
{
	return EXEC_RUN("execve", path, false, run_execve(to, argv, envp));
}

SHIM_API int execv(const char *path, char *const argv[])
{
	return EXEC_RUN("execv", path, false, run_execve(to, argv, environ));
}

SHIM_API int execvp(const char *file, char *const argv[])
{
	return EXEC_RUN("execvp", file, true, run_execvpe(to, argv, environ));
}

SHIM_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return EXEC_RUN("execvpe", file, true, run_execvpe(to, argv, envp));
}

SHIM_API int execl(const char *path, const char *arg, ...)
{
	return EXECL_RUN("execl", EXECL, path, arg, false);
}

SHIM_API int execle(const char *path, const char *arg, ...)
{
	return EXECL_RUN("execle", EXECLE, path, arg, false);
}

SHIM_API int execlp(const char *file, const char *arg, ...)
{
	return EXECL_RUN("execlp", EXECLP, file, arg, true);
}

SHIM_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	char buf[32];
	int saved = errno;
	int err = decide("fexecve", AT_FDCWD, fd_path(fd, buf), 0);

	if (err)
		return refuse(err);
	errno = saved;
	return run_fexecve(fd, argv, envp);
}

SHIM_API int execveat(int dirfd, const char *path, char *const argv[],
		      char *const envp[], int flags)
{
	char buf[32];
	int pflags = flags & AT_SYMLINK_NOFOLLOW ? PATH_NOFOLLOW : 0;
	int saved = errno;
	int err;

	if ((flags & AT_EMPTY_PATH) && !*path)
		err = decide("execveat", AT_FDCWD, fd_path(dirfd, buf), 0);
	else
		err = decide("execveat", dirfd, path, pflags);
	if (err)
		return refuse(err);
	errno = saved;
	return run_execveat(dirfd, path, argv, envp, flags);
}

/* ---- posix_spawn: returns the error number, leaves errno alone ---- */

static NOINLINE int run_spawn(spawn_fn *real, pid_t *pid, const char *file,
			      const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *attr, char *const argv[],
			      char *const envp[])
{
	struct exec_env env;
	int ret = exec_env_build(&env, envp);

	if (ret)
		return -ret;
	ret = real ? real(pid, file, fa, attr, argv, env.envp) : ENOSYS;
	exec_env_done(&env);
	return ret;
}

static int spawn(spawn_fn *real, const char *name, bool use_path, pid_t *pid,
		 const char *file, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[],
		 char *const envp[])
{
	char run[PATH_BUF];
	int saved = errno;
	enum pick pick =
		search(name, file, use_path, !fa || fa->__used == 0, run);

	errno = saved;
	if (pick == PICK_DENIED)
		return EACCES;
	return run_spawn(real, pid, pick == PICK_FOUND ? run : file, fa, attr,
			 argv, envp);
}

#define SPAWN_PARAMS                                                           \
	pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,    \
		const posix_spawnattr_t *attr, char *const argv[],             \
		char *const envp[]
#define SPAWN_ARGS pid, file, fa, attr, argv, envp

/*
 * glibc has posix_spawn and posix_spawnp twice: @GLIBC_2.2.5 runs a
 * shebang-less script through /bin/sh, @@GLIBC_2.15 fails with ENOEXEC.
 * The shim exports both and forwards each to its own (catalog A.2);
 * shim/shim.map defines the GLIBC_2.2.5 and GLIBC_2.15 nodes.
 */
#define SPAWN_HOOK(fn, sym, name, real, use_path)                              \
	SHIM_API int fn(SPAWN_PARAMS);                                         \
	__asm__(".symver " #fn "," sym ",remove");                             \
	SHIM_API int fn(SPAWN_PARAMS)                                          \
	{                                                                      \
		return spawn(real, name, use_path, SPAWN_ARGS);                \
	}
SPAWN_HOOK(cordon_posix_spawn, "posix_spawn@@GLIBC_2.15", "posix_spawn",
	   real_posix_spawn_get(), false)
SPAWN_HOOK(cordon_posix_spawnp, "posix_spawnp@@GLIBC_2.15", "posix_spawnp",
	   real_posix_spawnp_get(), true)
SPAWN_HOOK(cordon_posix_spawn_old, "posix_spawn@GLIBC_2.2.5", "posix_spawn",
	   real_posix_spawn_old_get(), false)
SPAWN_HOOK(cordon_posix_spawnp_old, "posix_spawnp@GLIBC_2.2.5", "posix_spawnp",
	   real_posix_spawnp_old_get(), true)

/* ---- /bin/sh from libc: system, popen, wordexp ---- */

/* May @name run /bin/sh with the shim?  0, or the errno to fail with.
 * libc hands environ to the shell, so environ must carry the shim. */
static int shell_ready(const char *name)
{
	int err = decide(name, AT_FDCWD, _PATH_BSHELL, 0);

	if (err)
		return err;
	return -exec_env_restore();
}

SHIM_API int system(const char *cmd)
{
	int saved = errno;
	int err = cmd ? shell_ready("system") : 0;

	if (err == EACCES) {
		errno = err; /* as glibc when the kernel refuses the shell */
		return W_EXITCODE(127, 0);
	}
	if (err)
		return refuse(err);
	if (!real_system_get())
		return refuse(ENOSYS);
	errno = saved;
	return real_system_get()(cmd);
}

SHIM_API FILE *popen(const char *cmd, const char *mode)
{
	int saved = errno;
	int err = 0;

	if (cmd && mode && (mode[0] == 'r' || mode[0] == 'w'))
		err = shell_ready("popen");
	if (err || !real_popen_get()) {
		errno = err ? err : ENOSYS;
		return NULL;
	}
	errno = saved;
	return real_popen_get()(cmd, mode);
}

/* Would wordexp() run a shell for @w: `...` or $(...) outside single
 * quotes ("$((" is arithmetic, done inside libc)? */
static bool has_cmdsub(const char *w)
{
	bool single = false, dbl = false;

	for (; *w; w++) {
		if (single) {
			single = *w != '\'';
			continue;
		}
		if (*w == '\\' && w[1])
			w++;
		else if (*w == '\'' && !dbl)
			single = true;
		else if (*w == '"')
			dbl = !dbl;
		else if (*w == '`' || (*w == '$' && w[1] == '(' && w[2] != '('))
			return true;
	}
	return false;
}

SHIM_API int wordexp(const char *words, wordexp_t *we, int flags)
{
	int saved = errno;
	int err = 0;

	if (words && !(flags & WRDE_NOCMD) && has_cmdsub(words))
		err = shell_ready("wordexp");
	if (err) {
		/* As glibc when the shell cannot run: WRDE_NOSPACE, with
		 * @we left safe to wordfree(). */
		if (flags & WRDE_REUSE)
			wordfree(we);
		if (!(flags & WRDE_APPEND)) {
			we->we_wordc = 0;
			we->we_wordv = NULL;
		}
		errno = err;
		return WRDE_NOSPACE;
	}
	if (!real_wordexp_get())
		return WRDE_NOSPACE;
	errno = saved;
	return real_wordexp_get()(words, we, flags);
}
