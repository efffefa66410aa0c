/*
 * launch.c - what a plain run (main.c) and a session (session.c) share
 * on their way into the sandbox: one implementation of the policy's
 * roots, the refusal, the shim and the fork into the boundary.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "enforce/run/run.h"
#include "enforce/learn/learn.h"
#include "enforce/linux/linux.h"
#include "enforce/base/base.h"

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
 * kernel (Landlock's RESOLVE_UNIX, or the broker) lets through: a file
 * root added after the shim's snapshot was taken, named in no message. */
static int open_gate(struct cli *c, const struct feature_set *fs,
		     struct supervisor *sup, int gate[2])
{
	int on = 1, ret;

	gate[0] = gate[1] = -1;
	if (sup->sock >= 0) {
		ret = policy_add_root(&c->policy, sup->sockpath, RIGHT_U,
				      ORIGIN_DEFAULT, false);
		if (ret)
			return ret;
	}
	if (!platform_gate(fs, &c->policy, c->cmd == CMD_LEARN))
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, gate) < 0 ||
	    setsockopt(gate[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0)
		return -errno;
	return 0;
}

/* A PATH entry the policy hides, whose commands others run in place of
 * the user's: a look-up there is no probe the command went on from. */
static void shadowed(void *tally, const char *dir)
{
	tally_shadowed(tally, dir);
}

static int ask_yes(const char *spec, unsigned int client_port, bool udp)
{
	(void)client_port; /* one command: the terminal's */
	(void)udp;
	return ask_host(spec) != ASK_NO;
}

/* --ask: the terminal opened, the proxy told whom to ask, the command
 * given the terminal's foreground (ask.c). */
static int start_asking(struct cli *c)
{
	char err[256];

	if (c->cmd == CMD_SESSION_START) {
		/* the session's callers are asked, through the protocol
		 * (session_ask.c serves the proxy's question) */
		ask_hold(c->ask_profile);
		return 0;
	}
	if (c->cmd != CMD_RUN) {
		say_error("--ask goes with a run or a session: cordon --ask "
			  "-- COMMAND");
		return -1;
	}
	if (ask_start(c->ask_profile, err, sizeof(err))) {
		say_error("%s", err);
		return -1;
	}
	c->policy.ask_fg = true;
	platform_hosts_ask(ask_yes);
	return 0;
}

int launch_prepare(struct cli *c, struct launch *l, struct supervisor *sup)
{
	struct policy *p = &c->policy;
	char err[512 + PATH_BUF];
	char **from;
	int ret;

	memset(l, 0, sizeof(*l));
	l->sup = sup;
	if (modes_prepare(c, err, sizeof(err)) ||
	    roots_build(c, p, err, sizeof(err)) ||
	    citmp_refuse(p, err, sizeof(err))) {
		say_error("%s", err);
		return EXIT_CORDON;
	}
	l->kernel = platform_features(p, &l->fs);
	if (feature_missing(&l->fs)) {
		if (!p->best_effort) {
			notes_refusal(&l->fs, l->kernel);
			return EXIT_CORDON;
		}
		notes_best_effort(&l->fs, l->kernel);
	}
	if (!p->quiet)
		notes_before_run(c, &l->fs);
	/* hosts allowed: the proxy's variables; where no network namespace
	 * can be made (--best-effort, noted above), no network at all */
	if (p->net == NET_HOSTS && c->cmd != CMD_LEARN) {
		const struct feature *cap =
			feature_find(&l->fs, FEATURE_CAPTURE);

		/* captured: every program connects and resolves as it
		 * would bare, without the proxy's variables */
		p->capture = cap && cap->available && !c->no_capture;
		if (!feature_layer_ok(&l->fs, "hosts") ||
		    !feature_layer_ok(&l->fs, "mount"))
			p->net = NET_OFF;
		else if (!p->capture && policy_proxy_env(p)) {
			say_error("cannot set the proxy's variables");
			return EXIT_CORDON;
		}
	}
	if (c->ask && start_asking(c))
		return EXIT_CORDON;
	ret = platform_roots(p, &l->fs, c->cmd == CMD_LEARN);
	if (ret) {
		say_error("cannot add the terminal's root: %s", strerror(-ret));
		return EXIT_CORDON;
	}
	from = modes_environ(c);
	l->envp = from ? shimenv_scrubbed(p, from, &l->cap) : NULL;
	if (!l->envp) {
		say_error("cannot build the environment: %s", strerror(ENOMEM));
		return EXIT_CORDON;
	}
	if (c->no_shim && c->cmd == CMD_LEARN) {
		say_error("learn needs the shim: it is what records; drop "
			  "--no-shim");
		return EXIT_CORDON;
	}
	if (c->no_shim) {
		sup->sock = -1; /* nothing reports, nothing is logged */
		sup->log = AUDITLOG_NONE;
		budget_init(&sup->budget, 1);
	} else if (shimenv_prepare(c, from, l->envp, l->cap, sup, &l->fs))
		return EXIT_CORDON;
	/* after the supervisor's tally is set up (shimenv_prepare) */
	if (c->cmd != CMD_LEARN)
		shadow_note(p, l->envp, p->quiet, c->no_shim ? NULL : shadowed,
			    &sup->tally);
	return 0;
}

/* In pid 1: capture was wanted but did not hold (no nf_tables NAT in
 * this kernel): the proxy's variables after all, said once. */
static void hosts_fallback(struct cli *c, struct launch *l)
{
	const char *why = platform_hosts_capture_why();

	if (c->policy.net != NET_HOSTS || !c->policy.capture || !why)
		return;
	if (!c->policy.quiet)
		fprintf(stderr,
			"cordon: no transparent capture here (%s): only "
			"programs that take the proxy variables reach the "
			"allowed hosts\n",
			why);
	shimenv_add_proxy(l->envp, l->cap);
}

pid_t launch_start(struct cli *c, struct launch *l,
		   int (*inside)(struct cli *c, struct launch *l, void *arg),
		   void *arg)
{
	bool learning = c->cmd == CMD_LEARN;
	struct supervisor *sup = l->sup;
	int gate[2], ret;
	pid_t pid;

	ret = open_gate(c, &l->fs, sup, gate);
	if (ret) {
		say_error("cannot make the broker's channel: %s",
			  strerror(-ret));
		return -1;
	}
	fflush(NULL);
	pid = platform_fork(&l->fs, learning);
	if (pid < 0) {
		/* -2: the namespaces refused, and said so (ns.c) */
		if (pid == -1)
			say_error("cannot start the command: %s",
				  strerror(errno));
		return -1;
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
			    &l->fs, l->kernel,
			    sup->sock >= 0 ? sup->sockpath : NULL, learning,
			    gate[1]))
			_exit(EXIT_CORDON);
		hosts_fallback(c, l);
		_exit(inside(c, l, arg));
	}
	if (gate[0] >= 0) {
		close(gate[1]);
		ret = platform_gate_serve(gate[0], &c->policy,
					  supervise_broker_record, sup,
					  &l->served);
		if (ret) {
			say_error("cannot serve the broker: %s",
				  strerror(-ret));
			kill(pid, SIGKILL);
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
	}
	return pid;
}

void launch_stop(struct launch *l)
{
	platform_gate_stop(l->served);
	l->served = NULL;
	ask_stop();
}
