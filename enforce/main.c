/*
 * main.c - cordon: run a command inside a fail-closed kernel boundary.
 *
 * The story, and nothing else: parse the options and the profiles;
 * build the roots; find out what the kernel enforces and refuse (exit
 * 125) when the policy needs what it cannot, unless --best-effort;
 * scrub the environment and prepare the shim (launch.c, which a session
 * shares); fork: the child installs the boundary (the platform's,
 * platform.h) and runs the command, the parent supervises it from
 * outside (supervise.c) and leaves with its status.  The subcommands
 * have files of their own: probe.c, explain.c, learn.c, wrap.c and
 * session*.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "enforce/cli/cli.h"
#include "enforce/learn/learn.h"
#include "enforce/run/run.h"
#include "enforce/policy/policy.h"
#include "enforce/probe/probe.h"
#include "enforce/base/base.h"
#include "enforce/session/session.h"
#include "enforce/report/report.h"

#define CORDON_VERSION "0.1.0"

/* In the sandbox: the command, which replaces this process or (pid 1)
 * becomes its child. */
static int exec_command(struct cli *c, struct launch *l, void *arg)
{
	(void)arg;
	return spawn_exec(c->argv, l->envp, &c->policy);
}

/* Fork: the child enters the sandbox and execs, the parent keeps the
 * reports outside it (and serves the gate), and once the command has
 * ended, sweeps. */
static int run_supervised(struct cli *c, struct launch *l)
{
	struct supervisor *sup = l->sup;
	bool learning = c->cmd == CMD_LEARN;
	int status;
	pid_t pid;

	if (learning)
		learn_start(c);
	pid = launch_start(c, l, exec_command, NULL);
	if (pid < 0) {
		modes_cleanup();
		supervise_close(sup);
		return EXIT_CORDON;
	}
	/* the summary goes to a stderr that may be a closed pipe: an
	 * EPIPE, never a death that would lose the command's status (the
	 * child, made before this, keeps the default) */
	signal(SIGPIPE, SIG_IGN);
	sup->tally.policy = &c->policy; /* its protections decide options */
	status = supervise_wait(sup, pid);
	launch_stop(l);
	modes_cleanup();
	if (!learning)
		supervise_sweep(sup, &c->policy);
	if (c->cmd == CMD_LEARN) {
		char err[512];

		if (learn_write(c->output, &c->policy, err, sizeof(err))) {
			say_error("%s", err);
			status = EXIT_CORDON;
		}
	}
	if (!c->policy.quiet)
		summary_print(sup);
	supervise_close(sup);
	return status;
}

static int run(struct cli *c)
{
	static struct supervisor sup;
	static struct launch l; /* lives until exit: the environment too */
	int ret = launch_prepare(c, &l, &sup);

	if (ret) {
		modes_cleanup();
		return ret;
	}
	return run_supervised(c, &l);
}

/*
 * A descriptor 0, 1 or 2 closed when cordon starts: taken by /dev/null
 * (as coreutils do), so that none of cordon's own files (the audit
 * log, the report socket) becomes the command's stdin, stdout or
 * stderr; close-on-exec, so that the command finds it closed, as it
 * would without cordon.
 */
static void hold_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int null;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0 && null != fd) {
			dup3(null, fd, O_CLOEXEC);
			close(null);
		}
	}
}

/* Was --json among cordon's own words (before "--")?  For an error of
 * the parser, which stops before it may have read it. */
static bool asks_json(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0)
			return true;
	return false;
}

static int dispatch(struct cli *c)
{
	switch (c->cmd) {
	case CMD_HELP:
		fputs(cli_usage, stdout);
		return 0;
	case CMD_VERSION:
		printf("cordon %s\n", CORDON_VERSION);
		return 0;
	case CMD_PROBE:
		return probe_run(c);
	case CMD_EXPLAIN:
		return explain_run(c);
	case CMD_WRAP:
		return wrap_run(c);
	case CMD_SESSION_START:
		return session_start(c);
	case CMD_SESSION_STOP:
		return session_stop(c);
	case CMD_SESSION_LIST:
		return session_list(c);
	case CMD_SESSION_RUN:
		return session_run(c);
	case CMD_RUN:
	case CMD_LEARN:
		break;
	}
	return run(c);
}

int main(int argc, char **argv)
{
	static struct cli c;
	char err[512];

	hold_std_fds();

	if (cli_parse(argc, argv, &c, err, sizeof(err))) {
		say_json(c.json || asks_json(argc, argv));
		say_error("%s", err);
		fputs("Try 'cordon --help' for more information.\n", stderr);
		return say_exit(EXIT_CORDON);
	}
	say_json(c.json);
	if ((c.cmd == CMD_RUN || c.cmd == CMD_EXPLAIN || c.cmd == CMD_LEARN ||
	     c.cmd == CMD_WRAP || c.cmd == CMD_SESSION_START ||
	     (c.cmd == CMD_PROBE && c.mode_set)) &&
	    (profile_apply(&c, err, sizeof(err)) ||
	     cli_settle_net(&c, err, sizeof(err)))) {
		say_error("%s", err);
		return say_exit(EXIT_CORDON);
	}
	return say_exit(dispatch(&c));
}
