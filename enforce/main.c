/*
 * main.c - cordon: run a command inside a fail-closed kernel boundary.
 *
 * Orchestration only: parse, build the roots, find out what the kernel
 * enforces, refuse (exit 125) when the policy needs what it cannot
 * enforce unless --best-effort, scrub the environment, restrict, exec.
 * The kernel's part is the platform's (platform.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enforce/cli.h"
#include "shim/core/env.h"
#include "enforce/explain.h"
#include "enforce/gitguard.h"
#include "enforce/learn.h"
#include "enforce/platform.h"
#include "enforce/probe.h"
#include "enforce/profile.h"
#include "enforce/record.h"
#include "enforce/protect.h"
#include "enforce/roots.h"
#include "enforce/shimenv.h"
#include "shim/core/snapshot.h"
#include "enforce/supervise.h"
#include "enforce/spawn.h"
#include "enforce/policy_edit.h"

#define CORDON_VERSION "0.1.0"

static void refuse(const struct feature_set *fs, int kernel)
{
	const char *hint = platform_hint(kernel);
	char host[256];

	platform_describe(kernel, host, sizeof(host));
	for (size_t i = 0; i < fs->n; i++) {
		const struct feature *f = &fs->f[i];

		if (!f->needed || f->available || f->advisory)
			continue;
		fprintf(stderr,
			"cordon: refusing to run: the kernel cannot enforce %s "
			"(needs %s; this is %s)\n",
			f->name, f->needs, host);
	}
	if (hint)
		fprintf(stderr, "hint: %s\n", hint);
	fprintf(stderr, "hint: 'cordon probe' shows what this host enforces; "
			"--best-effort runs without what is missing\n");
}

static void warn_best_effort(const struct feature_set *fs, int kernel)
{
	const char *sep = "";
	char host[256];

	platform_describe(kernel, host, sizeof(host));
	fprintf(stderr, "cordon: WARNING: --best-effort: NOT ENFORCED: ");
	for (size_t i = 0; i < fs->n; i++) {
		const struct feature *f = &fs->f[i];

		if (!f->needed || f->available || f->advisory)
			continue;
		fprintf(stderr, "%s%s (needs %s)", sep, f->name, f->needs);
		sep = "; ";
	}
	fprintf(stderr, " [%s]\n", host);
}

static void note_advisory(const struct feature_set *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct feature *f = &fs->f[i];

		if (f->needed && !f->available && f->advisory && !f->gap)
			fprintf(stderr, "cordon: note: no %s (needs %s)\n",
				f->name, f->needs);
	}
}

/* The command's environment, with room for the shim's three variables
 * (LD_PRELOAD, ASAN_OPTIONS, CORDON_POLICY). */
static char **scrubbed_env(const struct policy *p, size_t *cap)
{
	extern char **environ;
	size_t n = 0;
	const char **out;

	while (environ[n])
		n++;
	n += p->nenv_sets + 4;
	out = calloc(n, sizeof(*out));
	if (!out || env_filter(p, environ, out, n) < 0)
		return NULL;
	*cap = n;
	return (char **)out;
}

static void warn_workspace(const struct policy *p)
{
	const char *home = roots_home();
	char cwd[PATH_BUF];

	if (!getcwd(cwd, sizeof(cwd)))
		return;
	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		if (r->origin != ORIGIN_DEFAULT || !(r->rights & RIGHT_W) ||
		    strcmp(r->path, cwd) != 0)
			continue;
		if (strcmp(cwd, "/") == 0 || (home && strcmp(cwd, home) == 0))
			fprintf(stderr,
				"cordon: note: the workspace is '%s', so all "
				"of it is writable; run from a project "
				"directory to narrow it\n",
				cwd);
	}
}

static void warn_git(const struct cli *c)
{
	bool truncated;
	size_t n = gitguard_count(&truncated);

	if (truncated && c->cmd != CMD_LEARN)
		fprintf(stderr,
			"cordon: WARNING: more git directories in the "
			"writable roots than cordon protects (%zu): git "
			"outside may run what the command writes in the "
			"others\n",
			n);
}

/*
 * What the kernel layer holds while learning: the options' own roots,
 * the whole filesystem readable and executable, $HOME writable, and the
 * network (the seccomp filter and the capability drop as always; no
 * namespaces).  The system directories stay unwritable even to root:
 * a build that would install into /usr fails there, as it should.  The
 * shim records what the options' policy alone would refuse.
 */
static const struct policy *learning_policy(const struct policy *p)
{
	static struct policy wide;
	const char *home = roots_home();
	int ret = 0;

	if (wide.nroots)
		return &wide;
	for (size_t i = 0; !ret && i < p->nroots; i++)
		/* protections are not kept while learning */
		if (p->roots[i].origin != ORIGIN_PROTECTED)
			ret = policy_add_root(
				&wide, p->roots[i].path, p->roots[i].rights,
				ORIGIN_DEFAULT, p->roots[i].is_dir);
	if (!ret)
		ret = policy_add_root(&wide, "/", RIGHT_R | RIGHT_X,
				      ORIGIN_DEFAULT, true);
	if (!ret && home && strcmp(home, "/") != 0 && access(home, F_OK) == 0)
		ret = policy_add_root(&wide, home, RIGHT_ALL, ORIGIN_DEFAULT,
				      true);
	wide.net = NET_ON;
	return &wide;
}

static int enforce(const struct policy *p, const struct feature_set *fs,
		   int kernel, const char *keep, bool learning)
{
	char err[512];
	int ret = platform_enforce(p, fs, kernel, keep, learning, err,
				   sizeof(err));

	if (ret) {
		cli_oneline(err);
		fprintf(stderr, "cordon: %s\n", err);
	}
	return ret;
}

/* The shim: grant its file, preload it, bind the report socket. */
static int prepare_shim(struct cli *c, char **envp, size_t cap,
			struct supervisor *sup)
{
	struct policy *p = &c->policy;
	struct snapshot_extra x = { .log = NULL, .learn = c->cmd == CMD_LEARN };
	char lib[PATH_BUF], log[sizeof(sup->sockpath) + 8], err[PATH_BUF + 256];
	char dir[PATH_BUF];
	static char snap[SNAPSHOT_MAX];
	int ret;

	if (shimenv_locate(lib)) {
		fprintf(stderr,
			"cordon: cannot find %s next to cordon or in "
			"../lib/cordon\n"
			"hint: --no-shim runs with the kernel layer only\n",
			platform_shim_file());
		return -ENOENT;
	}
	ret = policy_add_root(p, lib, RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, false);
	if (!ret)
		ret = supervise_prepare(sup, c->log, err, sizeof(err));
	/* cordon's own files, where a writable root holds them */
	if (!ret)
		ret = protect_write(p, lib);
	if (!ret)
		ret = protect_write(p, sup->logpath);
	/* the socket's directory, where a writable root holds it: the
	 * command must not unlink the socket or put its own in its place */
	if (!ret && supervise_socket_dir(sup, dir) == 0)
		ret = protect_write(p, dir);
	if (ret == -ENOMEM || ret == -E2BIG)
		snprintf(err, sizeof(err), "cannot grant '%s': %s", lib,
			 strerror(-ret));
	if (!ret) {
		snprintf(log, sizeof(log), "unix:%s", sup->sockpath);
		x.log = log;
		ret = snapshot_encode(p, &x, snap, sizeof(snap));
		if (ret < 0)
			snprintf(err, sizeof(err),
				 "the policy is too large "
				 "to pass to the shim");
	}
	if (ret >= 0) {
		ret = shimenv_apply(envp, cap, lib, snap);
		if (ret < 0)
			snprintf(err, sizeof(err),
				 "cannot pass the shim to the command: %s",
				 strerror(-ret));
	}
	if (ret < 0) {
		cli_oneline(err);
		fprintf(stderr, "cordon: %s\n", err);
	}
	return ret < 0 ? ret : 0;
}

/* What the sweep after the run moved aside: one line each, and a
 * record of the launcher's own. */
static void swept(const struct gitguard_event *e, void *arg)
{
	json_t *more;

	if (e->moved)
		fprintf(stderr,
			"cordon: WARNING: moved '%s' to '%s': %s; allow it "
			"with --write %s\n",
			e->path, e->moved, e->why, e->allow);
	else
		fprintf(stderr,
			"cordon: WARNING: cannot move '%s' aside (%s): %s; "
			"remove it before running git there\n",
			e->path, strerror(e->err), e->why);
	more = json_pack("{s:s, s:s, s:s, s:s}", "path", e->path, "resolved",
			 e->path, "moved", e->moved ? e->moved : "", "allow",
			 e->allow);
	supervise_record(arg, record_new(RECORD_LAUNCHER, "git-plant", "deny",
					 e->why, more));
	json_decref(more);
}

/* Fork: the child enters the sandbox and execs, the parent keeps the
 * reports outside it, and once the command has ended, sweeps. */
static int run_supervised(struct cli *c, char **envp,
			  const struct feature_set *fs, int kernel,
			  struct supervisor *sup)
{
	bool learning = c->cmd == CMD_LEARN;
	pid_t pid;
	int status;

	fflush(NULL);
	pid = platform_fork(fs, learning);
	if (pid < 0) {
		fprintf(stderr, "cordon: cannot start the command: %s\n",
			strerror(errno));
		return EXIT_CORDON;
	}
	if (pid == 0) {
		if (enforce(learning ? learning_policy(&c->policy) : &c->policy,
			    fs, kernel, sup->sock >= 0 ? sup->sockpath : NULL,
			    learning))
			_exit(EXIT_CORDON);
		_exit(spawn_exec(c->argv, envp, &c->policy));
	}
	/* the summary goes to a stderr that may be a closed pipe: an
	 * EPIPE, never a death that would lose the command's status (the
	 * child, made before this, keeps the default) */
	signal(SIGPIPE, SIG_IGN);
	status = supervise_wait(sup, pid);
	if (!learning)
		gitguard_sweep(&c->policy, swept, sup);
	if (c->cmd == CMD_LEARN) {
		char err[512];

		if (learn_write(c->output, &c->policy, err, sizeof(err))) {
			fprintf(stderr, "cordon: %s\n", err);
			status = EXIT_CORDON;
		}
	}
	if (!c->policy.quiet)
		supervise_summary(sup);
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
		cli_oneline(err);
		fprintf(stderr, "cordon: %s\n", err);
		return EXIT_CORDON;
	}
	kernel = platform_features(p, &fs);
	if (feature_missing(&fs)) {
		if (!p->best_effort) {
			refuse(&fs, kernel);
			return EXIT_CORDON;
		}
		warn_best_effort(&fs, kernel);
	}
	if (!p->quiet) {
		note_advisory(&fs);
		warn_workspace(p);
		warn_git(c);
	}
	ret = platform_roots(p, &fs, c->cmd == CMD_LEARN);
	if (ret) {
		fprintf(stderr, "cordon: cannot add the terminal's root: %s\n",
			strerror(-ret));
		return EXIT_CORDON;
	}
	envp = scrubbed_env(p, &cap);
	if (!envp) {
		fprintf(stderr, "cordon: cannot build the environment: %s\n",
			strerror(ENOMEM));
		return EXIT_CORDON;
	}
	if (c->no_shim && c->cmd == CMD_LEARN) {
		fprintf(stderr, "cordon: learn needs the shim: it is what "
				"records; drop --no-shim\n");
		return EXIT_CORDON;
	}
	if (c->no_shim)
		sup.sock = sup.logfd = -1; /* nothing reports */
	else if (prepare_shim(c, envp, cap, &sup))
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
	    profile_apply(&c, err, sizeof(err))) {
		cli_oneline(err);
		fprintf(stderr, "cordon: %s\n", err);
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
