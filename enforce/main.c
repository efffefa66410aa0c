/*
 * main.c - cordon: run a command inside a fail-closed kernel boundary.
 *
 * The story, and nothing else: parse the options and the profiles;
 * build the roots; find out what the kernel enforces and refuse (exit
 * 125) when the policy needs what it cannot, unless --best-effort;
 * scrub the environment and prepare the shim; fork: the child installs
 * the boundary (the platform's, platform.h) and runs the command, the
 * parent supervises it from outside (supervise.c) and leaves with its
 * status.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "enforce/cli.h"
#include "enforce/explain.h"
#include "enforce/learn.h"
#include "enforce/notes.h"
#include "enforce/platform.h"
#include "enforce/policy_edit.h"
#include "enforce/probe.h"
#include "enforce/profile.h"
#include "enforce/roots.h"
#include "enforce/say.h"
#include "enforce/shimenv.h"
#include "enforce/spawn.h"
#include "enforce/summary.h"
#include "enforce/supervise.h"

#define CORDON_VERSION "0.1.0"

static int enforce(const struct policy *p, const struct feature_set *fs,
		   int kernel, const char *keep, bool learning, int gate)
{
	char err[512] = "";
	int ret = platform_enforce(p, fs, kernel, keep, learning, gate, err,
				   sizeof(err));

	if (ret && err[0])
		say_error("%s", err);
	return ret;
}

/* The gate's socketpair (platform_gate()), before the fork; the
 * report socket, which every shim sends its records to, is one the
 * broker lets through (a file root: named in no message). */
static int open_gate(struct cli *c, const struct feature_set *fs,
		     struct supervisor *sup, int gate[2])
{
	int on = 1;

	gate[0] = gate[1] = -1;
	if (!platform_gate(fs, &c->policy, c->cmd == CMD_LEARN))
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, gate) < 0 ||
	    setsockopt(gate[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0)
		return -errno;
	if (sup->sock >= 0)
		return policy_add_root(&c->policy, sup->sockpath, RIGHT_U,
				       ORIGIN_DEFAULT, false);
	return 0;
}

/* Fork: the child enters the sandbox and execs, the parent keeps the
 * reports outside it (and serves the gate), and once the command has
 * ended, sweeps. */
static int run_supervised(struct cli *c, char **envp,
			  const struct feature_set *fs, int kernel,
			  struct supervisor *sup)
{
	bool learning = c->cmd == CMD_LEARN;
	void *served = NULL;
	int status, gate[2], ret;
	pid_t pid;

	if (learning)
		learn_start(c);
	ret = open_gate(c, fs, sup, gate);
	if (ret) {
		say_error("cannot make the broker's channel: %s",
			  strerror(-ret));
		return EXIT_CORDON;
	}
	fflush(NULL);
	pid = platform_fork(fs, learning);
	if (pid < 0) {
		if (pid == -1)
			say_error("cannot start the command: %s",
				  strerror(errno));
		supervise_close(sup);
		return EXIT_CORDON;
	}
	if (pid == 0) {
		/* pid 1 closes what is close-on-exec when it seals itself
		 * (pid1.c); the gate's end is closed once it has served */
		if (gate[0] >= 0) {
			close(gate[0]);
			fcntl(gate[1], F_SETFD, 0);
		}
		if (enforce(learning ? learn_kernel_policy(&c->policy)
				     : &c->policy,
			    fs, kernel, sup->sock >= 0 ? sup->sockpath : NULL,
			    learning, gate[1]))
			_exit(EXIT_CORDON);
		_exit(spawn_exec(c->argv, envp, &c->policy));
	}
	/* the summary goes to a stderr that may be a closed pipe: an
	 * EPIPE, never a death that would lose the command's status (the
	 * child, made before this, keeps the default) */
	signal(SIGPIPE, SIG_IGN);
	sup->tally.policy = &c->policy; /* its protections decide options */
	if (gate[0] >= 0) {
		close(gate[1]);
		ret = platform_gate_serve(gate[0], &c->policy,
					  supervise_broker_record, sup,
					  &served);
		if (ret) {
			say_error("cannot serve the broker: %s",
				  strerror(-ret));
			kill(pid, SIGKILL);
		}
	}
	status = supervise_wait(sup, pid);
	platform_gate_stop(served);
	if (ret)
		status = EXIT_CORDON;
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
	struct policy *p = &c->policy;
	struct feature_set fs = { .n = 0 };
	static struct supervisor sup;
	char err[512 + PATH_BUF];
	static char **envp; /* lives until exit: the supervisor holds it */
	size_t cap;
	int kernel, ret;

	if (roots_build(c, p, err, sizeof(err))) {
		say_error("%s", err);
		return EXIT_CORDON;
	}
	kernel = platform_features(p, &fs);
	if (feature_missing(&fs)) {
		if (!p->best_effort) {
			notes_refusal(&fs, kernel);
			return EXIT_CORDON;
		}
		notes_best_effort(&fs, kernel);
	}
	if (!p->quiet)
		notes_before_run(c, &fs);
	/* hosts allowed: the proxy's variables; where no network namespace
	 * can be made (--best-effort, noted above), no network at all */
	if (p->net == NET_HOSTS && c->cmd != CMD_LEARN) {
		if (!feature_layer_ok(&fs, "hosts") ||
		    !feature_layer_ok(&fs, "mount"))
			p->net = NET_OFF;
		else if (policy_proxy_env(p)) {
			say_error("cannot set the proxy's variables");
			return EXIT_CORDON;
		}
	}
	ret = platform_roots(p, &fs, c->cmd == CMD_LEARN);
	if (ret) {
		say_error("cannot add the terminal's root: %s", strerror(-ret));
		return EXIT_CORDON;
	}
	envp = shimenv_scrubbed(p, &cap);
	if (!envp) {
		say_error("cannot build the environment: %s", strerror(ENOMEM));
		return EXIT_CORDON;
	}
	if (c->no_shim && c->cmd == CMD_LEARN) {
		say_error("learn needs the shim: it is what records; drop "
			  "--no-shim");
		return EXIT_CORDON;
	}
	if (c->no_shim)
		sup.sock = sup.logfd = -1; /* nothing reports */
	else if (shimenv_prepare(c, envp, cap, &sup))
		return EXIT_CORDON;
	return run_supervised(c, envp, &fs, kernel, &sup);
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

int main(int argc, char **argv)
{
	static struct cli c;
	char err[512];

	hold_std_fds();

	if (cli_parse(argc, argv, &c, err, sizeof(err))) {
		fprintf(stderr,
			"cordon: %s\n"
			"Try 'cordon --help' for more information.\n",
			err);
		return EXIT_CORDON;
	}
	if ((c.cmd == CMD_RUN || c.cmd == CMD_EXPLAIN || c.cmd == CMD_LEARN) &&
	    (profile_apply(&c, err, sizeof(err)) ||
	     cli_settle_net(&c, err, sizeof(err)))) {
		say_error("%s", err);
		return EXIT_CORDON;
	}
	switch (c.cmd) {
	case CMD_HELP:
		fputs(cli_usage, stdout);
		return 0;
	case CMD_VERSION:
		printf("cordon %s\n", CORDON_VERSION);
		return 0;
	case CMD_PROBE:
		return probe_run(&c);
	case CMD_EXPLAIN:
		return explain_run(&c);
	case CMD_RUN:
	case CMD_LEARN:
		break;
	}
	return run(&c);
}
