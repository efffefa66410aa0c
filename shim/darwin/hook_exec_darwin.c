/*
 * hook_exec_darwin.c - the exec family on macOS: execve, execv, execvp,
 * posix_spawn, posix_spawnp, system and popen.
 *
 * The macOS counterpart of hook_exec.c.  Running a file needs X on it;
 * the shim decides only on a file the kernel could run, anything else
 * fails by itself.  Every child gets the shim and the load-time policy
 * back (exec_env_darwin.c), and a child SIP keeps the shim out of is
 * named for the run summary.
 *
 * macOS has no execvpe: execvp runs with environ.  When environ still
 * carries the shim (the usual case) the real execvp runs untouched;
 * when the program dropped it, the hook runs the file its own search
 * found with execve and the rebuilt environment, and a file without a
 * "#!" through /bin/sh as execvp does (ENOEXEC).
 *
 * These run between vfork and exec: the stack only, no malloc, no
 * locks, no stdio, no getenv.
 */
#include <paths.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim/core/env.h"
#include "shim/exec_env.h"
#include "shim/darwin/hook_darwin.h"
#include "shim/core/strbuf.h"

#define EXEC_ARGV_CAP 1024 /* arguments of the ENOEXEC fallback */
#define NOINLINE      __attribute__((noinline))

/* Nothing to resolve: dyld's interpose tuples name the real functions,
 * and exec_env_init() ran before the policy. */
static int refuse(int err)
{
	errno = err;
	return -1;
}

/* Could the kernel run @path: a regular file with an x bit for us? */
static bool is_runnable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) == 0;
}

/* May the program run @path?  0, or EACCES once reported. */
static int decide(const char *name, const char *path)
{
	struct op op = OP(name, RIGHT_X, AT_FDCWD, path, 0);

	if (!shim_is_ready())
		shim_init();
	if (!shim.active || !path || !is_runnable(path))
		return 0;
	if (hook_decide(&op))
		return EACCES;
	exec_env_note_unshimmed(&op);
	return 0;
}

static const char *path_var(void)
{
	char **envp = environ;

	for (size_t i = 0; envp && envp[i]; i++)
		if (env_is_name(envp[i], "PATH"))
			return envp[i] + 5;
	return _PATH_DEFPATH;
}

/*
 * The file execvp(@file) runs, into @run: @file itself when it has a
 * slash, else the first PATH entry (an empty one is the cwd) with a
 * file the kernel can run.  False when there is none: the real call
 * fails by itself.
 */
static bool search(const char *file, char run[PATH_BUF])
{
	const char *p = path_var();

	if (!file || !*file)
		return false;
	if (strchr(file, '/')) {
		struct strbuf sb = STRBUF(run, PATH_BUF);

		sb_puts(&sb, file);
		return !sb.full;
	}
	for (;;) {
		size_t len = strcspn(p, ":");
		struct strbuf sb = STRBUF(run, PATH_BUF);

		sb_put(&sb, p, len);
		sb_puts(&sb, len ? "/" : "./");
		sb_puts(&sb, file);
		if (!sb.full && is_runnable(run))
			return true;
		if (!p[len])
			return false;
		p += len + 1;
	}
}

static int run_execve(const char *path, char *const argv[], char *const envp[])
{
	return exec_env_execve(execve, path, argv, envp);
}

/* What execvp does with a file the kernel will not run (ENOEXEC): run
 * it as a /bin/sh script. */
static NOINLINE int run_as_script(const char *path, char *const argv[],
				  char *const envp[])
{
	char *sh[EXEC_ARGV_CAP];
	size_t n = 0;

	sh[n++] = (char *)"sh";
	sh[n++] = (char *)path;
	for (size_t i = 1; argv[0] && argv[i]; i++) {
		if (n + 1 >= EXEC_ARGV_CAP)
			return refuse(E2BIG);
		sh[n++] = argv[i];
	}
	sh[n] = NULL;
	return execve(_PATH_BSHELL, sh, envp);
}

static int cordon_execve(const char *path, char *const argv[],
			 char *const envp[])
{
	int saved = errno;
	int err = decide("execve", path);

	if (err)
		return refuse(err);
	errno = saved;
	return run_execve(path, argv, envp);
}
INTERPOSE(cordon_execve, execve);

static int cordon_execv(const char *path, char *const argv[])
{
	int saved = errno;
	int err = decide("execv", path);

	if (err)
		return refuse(err);
	errno = saved;
	return run_execve(path, argv, environ);
}
INTERPOSE(cordon_execv, execv);

static NOINLINE int run_execvp(const char *file, const char *found,
			       char *const argv[])
{
	struct exec_env env;
	int ret = exec_env_build(&env, environ);

	if (ret)
		return refuse(-ret);
	if (!found || exec_env_is_same(env.envp, environ)) {
		exec_env_done(&env);
		return execvp(file, argv);
	}
	execve(found, argv, env.envp);
	ret = errno == ENOEXEC ? run_as_script(found, argv, env.envp) : -1;
	exec_env_done(&env);
	return ret;
}

static int cordon_execvp(const char *file, char *const argv[])
{
	char run[PATH_BUF];
	int saved = errno;
	bool found = search(file, run);
	int err = found ? decide("execvp", run) : 0;

	if (err)
		return refuse(err);
	errno = saved;
	return run_execvp(file, found ? run : NULL, argv);
}
INTERPOSE(cordon_execvp, execvp);

/* ---- posix_spawn: returns the error number, leaves errno alone ---- */

typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

/*
 * A relative path with file actions may be looked up after a chdir the
 * actions make (posix_spawn_file_actions_addchdir_np), which the shim
 * cannot read in the opaque actions: it decides on absolute paths only
 * then, and Seatbelt decides on the rest.
 */
static int spawn(spawn_fn *real, const char *name, bool use_path, pid_t *pid,
		 const char *file, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[],
		 char *const envp[])
{
	char run[PATH_BUF];
	struct strbuf sb = STRBUF(run, sizeof(run));
	int saved = errno;
	struct exec_env env;
	bool found;
	int err = 0;

	if (use_path) {
		found = search(file, run);
	} else {
		sb_puts(&sb, file ? file : "");
		found = file && !sb.full;
	}
	if (found && (!fa || run[0] == '/'))
		err = decide(name, run);
	if (!err)
		err = -exec_env_build(&env, envp);
	errno = saved;
	if (err)
		return err;
	err = real(pid, file, fa, attr, argv, env.envp);
	exec_env_done(&env);
	return err;
}

static int cordon_posix_spawn(pid_t *pid, const char *path,
			      const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *attr, char *const argv[],
			      char *const envp[])
{
	return spawn(posix_spawn, "posix_spawn", false, pid, path, fa, attr,
		     argv, envp);
}
INTERPOSE(cordon_posix_spawn, posix_spawn);

static int cordon_posix_spawnp(pid_t *pid, const char *file,
			       const posix_spawn_file_actions_t *fa,
			       const posix_spawnattr_t *attr,
			       char *const argv[], char *const envp[])
{
	return spawn(posix_spawnp, "posix_spawnp", true, pid, file, fa, attr,
		     argv, envp);
}
INTERPOSE(cordon_posix_spawnp, posix_spawnp);

/* ---- /bin/sh from libSystem: system and popen ---- */

/* The shell must be runnable; SIP keeps the shim out of it and of all
 * it runs, which the record says (exec_env_note_unshimmed). */
static int cordon_system(const char *cmd)
{
	int saved = errno;
	int err = cmd ? decide("system", _PATH_BSHELL) : 0;

	if (err) {
		errno = err;
		return W_EXITCODE(127, 0); /* as when the shell cannot run */
	}
	errno = saved;
	return system(cmd);
}
INTERPOSE(cordon_system, system);

static FILE *cordon_popen(const char *cmd, const char *mode)
{
	int saved = errno;
	int err = cmd && mode ? decide("popen", _PATH_BSHELL) : 0;

	if (err) {
		errno = err;
		return NULL;
	}
	errno = saved;
	return popen(cmd, mode);
}
INTERPOSE(cordon_popen, popen);
