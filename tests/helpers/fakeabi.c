/*
 * fakeabi: run a command as if the kernel had an older Landlock ABI.
 *
 *   fakeabi [--no-scopes] ABI -- COMMAND ARGS...
 *
 * With --no-scopes, a ruleset of the size that holds Landlock's scopes
 * (24 bytes, ABI 6) is refused with EINVAL, as by a kernel that claims
 * its ABI without them (a distribution's backport): a smaller ruleset
 * works.
 *
 * The child asks to be traced, installs a seccomp filter that stops at
 * every Landlock version query (landlock_create_ruleset() with attr
 * NULL, size 0, flags LANDLOCK_CREATE_RULESET_VERSION) for its tracer,
 * and executes COMMAND.  This process, the tracer, answers each such
 * stop with ABI, the call skipped; every other call, real rulesets
 * included, runs in the kernel unchanged.  Only the version number is
 * faked: rights newer than ABI are not rejected.
 *
 * By ptrace, not by a seccomp listener: the kernel takes one listener
 * per chain of filters, and cordon needs its own (its UNIX-socket
 * broker).  Only COMMAND's first process is traced (not its children):
 * a child that asks for the version gets ENOSYS (no tracer behind the
 * filter); cordon asks only in its first process.  SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT are passed on to the child; if the tracer dies,
 * the child is killed (PTRACE_O_EXITKILL).
 *
 * Exit status: 2 on misuse or a failure of its own setup; 126 or 127 (as
 * env(1)) if COMMAND cannot be run; otherwise COMMAND's status, 128+N if it
 * was killed by signal N.
 */
#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG				"fakeabi"
#define MAX_ABI				9999
#define LANDLOCK_CREATE_RULESET_VERSION 1U

/* The number from the unified syscall table, used if libseccomp is too old. */
#ifdef __SNR_landlock_create_ruleset
#define NR_LANDLOCK_CREATE_RULESET SCMP_SYS(landlock_create_ruleset)
#else
#define NR_LANDLOCK_CREATE_RULESET 444
#endif

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static volatile pid_t child;

/* Print "fakeabi: MESSAGE" and leave with @status; _exit() in the child. */
static void fail(bool in_child, int status, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

static void fail(bool in_child, int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (in_child)
		_exit(status);
	exit(status);
}

#define die(...) fail(false, 2, __VA_ARGS__)

static bool no_scopes;

/* Returns the index in @argv of COMMAND; sets *@abi. */
static int parse_args(int argc, char **argv, long *abi)
{
	char *end;
	int first = 1, cmd;

	if (argc > 1 && strcmp(argv[1], "--no-scopes") == 0) {
		no_scopes = true;
		first = 2;
	}
	cmd = first + 1;
	if (argc < first + 2)
		die("usage: " PROG " [--no-scopes] ABI -- COMMAND ARGS...");
	errno = 0;
	*abi = strtol(argv[first], &end, 10);
	if (errno || *argv[first] < '0' || *argv[first] > '9' || *end ||
	    *abi < 1 || *abi > MAX_ABI)
		die("bad ABI '%s': want 1..%d", argv[first], MAX_ABI);
	if (strcmp(argv[cmd], "--") == 0)
		cmd++;
	if (cmd >= argc)
		die("usage: " PROG " [--no-scopes] ABI -- COMMAND ARGS...");
	return cmd;
}

/* Stop for the tracer at a version query, and nowhere else. */
static void install_filter(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (!ctx)
		fail(true, 2, "cannot create the seccomp filter");
	rc = seccomp_rule_add(
		ctx, SCMP_ACT_TRACE(1), NR_LANDLOCK_CREATE_RULESET, 3,
		SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A1(SCMP_CMP_EQ, 0),
		SCMP_A2(SCMP_CMP_EQ, LANDLOCK_CREATE_RULESET_VERSION));
	if (rc < 0)
		fail(true, 2, "cannot add the seccomp rule: %s", strerror(-rc));
	/* a ruleset as large as the scopes: refused, as where they lack */
	if (no_scopes)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL),
				      NR_LANDLOCK_CREATE_RULESET, 1,
				      SCMP_A1(SCMP_CMP_GE, 24));
	if (rc < 0)
		fail(true, 2, "cannot add the seccomp rule: %s", strerror(-rc));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail(true, 2, "cannot set no_new_privs: %s", strerror(errno));
	rc = seccomp_load(ctx);
	if (rc < 0)
		fail(true, 2, "cannot load the seccomp filter: %s",
		     strerror(-rc));
	seccomp_release(ctx);
}

static void run_child(char **cmd) __attribute__((noreturn));

/* The child: traced from its first stop, filtered, then COMMAND. */
static void run_child(char **cmd)
{
	int rc;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
		fail(true, 2, "cannot be traced: %s", strerror(errno));
	raise(SIGSTOP); /* the tracer sets its options meanwhile */
	install_filter();
	execvp(cmd[0], cmd);
	rc = errno;
	fail(true, rc == ENOENT ? 127 : 126, "cannot run '%s': %s", cmd[0],
	     strerror(rc));
}

/* At a seccomp stop: skip the call, answer @abi. */
static void answer(pid_t pid, long abi)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0)
		return;
	regs.orig_rax = (unsigned long long)-1;
	regs.rax = (unsigned long long)abi;
	ptrace(PTRACE_SETREGS, pid, NULL, &regs);
}

static void pass_on(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* Trace the child until it ends; returns its wait status. */
static int trace(long abi)
{
	int st;

	for (;;) {
		int sig = 0;

		if (waitpid(child, &st, 0) < 0) {
			if (errno == EINTR)
				continue;
			die("cannot wait for the child: %s", strerror(errno));
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return st;
		if (!WIFSTOPPED(st))
			continue;
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8)))
			answer(child, abi);
		else if (WSTOPSIG(st) != SIGTRAP)
			sig = WSTOPSIG(st); /* a signal: delivered */
		ptrace(PTRACE_CONT, child, NULL, (void *)(long)sig);
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = pass_on };
	long abi;
	int cmd, st;

	cmd = parse_args(argc, argv, &abi);
	child = fork();
	if (child < 0)
		die("cannot fork: %s", strerror(errno));
	if (child == 0)
		run_child(&argv[cmd]);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, NULL);
	/* its first stop, then the options */
	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			die("cannot wait for the child: %s", strerror(errno));
	if (!WIFSTOPPED(st))
		return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
	if (ptrace(PTRACE_SETOPTIONS, child, NULL,
		   (void *)(long)(PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL)) <
	    0)
		die("cannot trace the child: %s", strerror(errno));
	ptrace(PTRACE_CONT, child, NULL, NULL);
	st = trace(abi);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
