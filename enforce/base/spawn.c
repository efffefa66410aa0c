/*
 * spawn.c - exec the command and turn an exec failure into one line
 * that says why, and the exit status env(1) would use.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim/core/path.h"
#include "shim/core/shebang.h"
#include "shim/core/strbuf.h"
#include "enforce/base/base.h"
#include "shim/core/rule.h"

/* Find @cmd the way execvp(3) would (spawn.h). */
bool spawn_locate(const char *cmd, char out[PATH_BUF])
{
	const char *path = getenv("PATH");
	char buf[PATH_BUF];

	if (strchr(cmd, '/'))
		return path_resolve(AT_FDCWD, cmd, 0, out) == 0;
	if (!path)
		path = PATH_SEARCH_DEFAULT;
	while (path_search_next(&path, cmd, buf))
		if (faccessat(AT_FDCWD, buf, F_OK, 0) == 0)
			return path_resolve(AT_FDCWD, buf, 0, out) == 0;
	return false;
}

/* The "#!" interpreter of the file @path, resolved into @out: the
 * kernel checks X on it too (the shim's exec hooks decide on it
 * likewise). */
static bool interpreter_of(const char *path, char out[PATH_BUF])
{
	char line[SHEBANG_BUF];
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       shebang_read(AT_FDCWD, path, 0, line) &&
	       path_resolve(AT_FDCWD, line, 0, out) == 0;
}

/* @cmd, allowed, is a script whose interpreter is not: say so. */
static bool explain_interpreter(const char *cmd, const char *where,
				const struct policy *p)
{
	char interp[PATH_BUF], word[2 * PATH_BUF];
	struct strbuf sb = STRBUF(word, sizeof(word));

	if (!interpreter_of(where, interp) || policy_allows(p, RIGHT_X, interp))
		return false;
	sb_shell(&sb, interp);
	fprintf(stderr,
		"cordon: cannot execute '%s': Permission denied (its "
		"interpreter %s is outside the exec roots); allow with "
		"--exec %s\n",
		cmd, word, word);
	return true;
}

static void explain_denied(const char *cmd, const struct policy *p)
{
	char where[PATH_BUF], opt[2 * PATH_BUF + 32];
	struct strbuf ob = STRBUF(opt, sizeof(opt));

	if (spawn_locate(cmd, where) && policy_allows(p, RIGHT_X, where) &&
	    explain_interpreter(cmd, where, p))
		return;
	if (!spawn_locate(cmd, where) || policy_allows(p, RIGHT_X, where)) {
		fprintf(stderr,
			"cordon: cannot execute '%s': Permission denied\n",
			cmd);
		return;
	}
	/* the option the shim's lines name: the program, or its tool's
	 * root (--exec ~/.rustup) */
	if (!rule_put_option(&ob, p, "execve", RIGHT_X, where))
		opt[0] = '\0';
	fprintf(stderr,
		"cordon: cannot execute '%s': Permission denied (%s is "
		"outside the exec roots)%s%s\n",
		cmd, where, opt[0] ? "; allow with " : "", opt);
}

/* The status and the line for an exec of @cmd that failed with @err. */
static int exec_failed(const char *cmd, int err, const struct policy *p)
{
	if (err == ENOENT) {
		fprintf(stderr, "cordon: '%s': %s\n", cmd,
			strchr(cmd, '/') ? "No such file or directory"
					 : "command not found");
		return EXIT_NOT_FOUND;
	}
	if (err == EACCES)
		explain_denied(cmd, p);
	else
		fprintf(stderr, "cordon: cannot execute '%s': %s\n", cmd,
			strerror(err));
	return EXIT_CANNOT_RUN;
}

/*
 * Wipe from memory every string of @old (the environment this process
 * started with) that @keep (the command's) does not hold: a process
 * that stays beside the command (pid 1) must not carry the secrets the
 * scrub removed, in /proc/PID/environ or anywhere else.
 */
static void forget_environ(char **old, char *const *keep)
{
	for (size_t i = 0; old && old[i]; i++) {
		bool kept = false;

		for (size_t j = 0; keep && keep[j] && !kept; j++)
			kept = keep[j] == old[i];
		if (!kept)
			explicit_bzero(old[i], strlen(old[i]));
	}
}

/* Set by the vfork child, whose memory is this process's. */
static volatile int child_errno;
static volatile bool child_cwd_failed;

/* In the vfork child: the call's descriptors as 0, 1 and 2 (dup2()
 * clears close-on-exec), its own process group (or session, with its
 * pty as the controlling terminal), its directory. */
static void child_setup(const struct spawn_call *call)
{
	static const int ignored[] = { SIGINT, SIGQUIT, SIGPIPE, SIGTERM,
				       SIGHUP, SIGUSR1, SIGUSR2 };
	sigset_t none;

	if (!call)
		return;
	/* what the session's pid 1 blocks and ignores, as a shell leaves
	 * it: default (the vfork child has its own handlers' table) */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_DFL);
	if (call->terminal)
		setsid();
	else
		setpgid(0, 0);
	for (int fd = 0; fd < 3; fd++)
		if (call->fds[fd] != fd)
			dup2(call->fds[fd], fd);
		else
			fcntl(fd, F_SETFD, 0);
	/* job control and /dev/tty as bare: the pty is its terminal */
	for (int fd = 0; call->terminal && fd < 3; fd++)
		if (isatty(fd) && ioctl(fd, TIOCSCTTY, 0) == 0)
			break;
	if (call->cwd && chdir(call->cwd) < 0) {
		child_cwd_failed = true;
		child_errno = errno;
		_exit(EXIT_CORDON);
	}
}

/* In the vfork child, --ask: a process group of its own, the
 * terminal's foreground (the launcher's is then in the background; it
 * takes the terminal back to ask: enforce/run/ask.c). */
static void foreground(void)
{
	for (int fd = 0; fd < 3; fd++) {
		if (!isatty(fd))
			continue;
		setpgid(0, 0);
		signal(SIGTTOU, SIG_IGN);
		tcsetpgrp(fd, getpgrp());
		signal(SIGTTOU, SIG_DFL);
		return;
	}
}

int spawn_child(char **argv, char **envp, const struct policy *p,
		const struct spawn_call *call, pid_t *out)
{
	char **old = environ;
	pid_t pid;

	environ = envp; /* execvp searches the PATH the command will see */
	child_errno = 0;
	child_cwd_failed = false;
	pid = vfork();
	if (pid == 0) {
		child_setup(call);
		if (!call && p && p->ask_fg)
			foreground();
		execvp(argv[0], argv);
		child_errno = errno;
		_exit(EXIT_CANNOT_RUN);
	}
	environ = old;
	if (pid < 0) {
		fprintf(stderr, "cordon: cannot fork: %s\n", strerror(errno));
		return EXIT_CORDON;
	}
	if (child_errno) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		if (child_cwd_failed) {
			fprintf(stderr, "cordon: --cwd '%s': %s\n", call->cwd,
				strerror(child_errno));
			return EXIT_CORDON;
		}
		return exec_failed(argv[0], child_errno, p);
	}
	*out = pid;
	return 0;
}

void spawn_forget_environ(char **old, char *const *keep)
{
	forget_environ(old, keep);
}

int spawn_exec(char **argv, char **envp, const struct policy *p)
{
	pid_t pid;
	int ret;

	if (!platform_stays()) {
		environ = envp;
		execvp(argv[0], argv);
		return exec_failed(argv[0], errno, p);
	}
	/* This process stays (pid 1 of the command's namespace): the
	 * command is its child, made by vfork, which copies nothing (a
	 * fork copies the page tables and then every page either writes):
	 * the child only execs, or says why it could not. */
	forget_environ(environ, envp);
	ret = spawn_child(argv, envp, p, NULL, &pid);
	if (ret)
		return ret;
	platform_relay(pid);
}
