/*
 * cli_parse.c - parse cordon's command line into a request.
 *
 * Parsing only: paths are recorded as written (expanded and checked by
 * roots.c), nothing touches the filesystem or the environment.  Every
 * error is one line that names the option and what was wrong with it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/cli/cli.h"
#include "enforce/proxy/proxy.h"
#include "enforce/base/base.h"

static const char *const mode_names[] = {
	[MODE_READ_ONLY] = "read-only",
	[MODE_WORKSPACE_WRITE] = "workspace-write",
	[MODE_WORKSPACE_NET] = "workspace-net",
	[MODE_FULL_DEV] = "full-dev",
	[MODE_CI] = "ci",
};

const char *cli_mode_name(enum cli_mode mode)
{
	return mode_names[mode];
}

enum {
	OPT_NO_DEFAULTS = 256,
	OPT_NET,
	OPT_CONNECT,
	OPT_BIND,
	OPT_INHERIT_ENV,
	OPT_BEST_EFFORT,
	OPT_NO_CAPTURE,
	OPT_ASK,
	OPT_JSON,
	OPT_LOG,
	OPT_NO_SHIM,
	OPT_CONNECT_UNIX,
	OPT_ALLOW_HOST,
	OPT_IDLE,
	OPT_SESSION,
	OPT_CWD,
	OPT_ALLOW_BROAD,
	OPT_CREATE,
};

static const struct option options[] = {
	{ "read", required_argument, NULL, 'r' },
	{ "write", required_argument, NULL, 'w' },
	{ "exec", required_argument, NULL, 'x' },
	{ "create", required_argument, NULL, OPT_CREATE },
	{ "mode", required_argument, NULL, 'm' },
	{ "no-defaults", no_argument, NULL, OPT_NO_DEFAULTS },
	{ "net", no_argument, NULL, OPT_NET },
	{ "connect", required_argument, NULL, OPT_CONNECT },
	{ "connect-unix", required_argument, NULL, OPT_CONNECT_UNIX },
	{ "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "env", required_argument, NULL, 'e' },
	{ "inherit-env", no_argument, NULL, OPT_INHERIT_ENV },
	{ "best-effort", no_argument, NULL, OPT_BEST_EFFORT },
	{ "no-capture", no_argument, NULL, OPT_NO_CAPTURE },
	{ "ask", optional_argument, NULL, OPT_ASK },
	{ "quiet", no_argument, NULL, 'q' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "no-shim", no_argument, NULL, OPT_NO_SHIM },
	{ "profile", required_argument, NULL, 'p' },
	{ "output", required_argument, NULL, 'o' },
	{ "allow-broad", no_argument, NULL, OPT_ALLOW_BROAD },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "idle", required_argument, NULL, OPT_IDLE },
	{ "session", required_argument, NULL, OPT_SESSION },
	{ "cwd", required_argument, NULL, OPT_CWD },
	{ NULL, 0, NULL, 0 },
};

static int parse_mode(const char *s, enum cli_mode *mode)
{
	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]);
	     i++) {
		if (strcmp(s, mode_names[i]) == 0) {
			*mode = (enum cli_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

static bool is_env_name(const char *s, size_t len, bool pattern)
{
	if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];

		if (pattern && ch == '*' && i == len - 1 && i > 0)
			continue;
		if (!(ch == '_' || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')))
			return false;
	}
	return true;
}

/* The network a mode brings, unless a flag said otherwise. */
static void mode_net(struct cli *c)
{
	if (c->net_set)
		return;
	if (c->mode == MODE_WORKSPACE_NET || c->mode == MODE_FULL_DEV)
		c->policy.net = NET_ON;
	else if (c->mode == MODE_CI)
		c->policy.net = NET_OFF;
}

bool cli_is_env_name(const char *s, size_t len)
{
	return is_env_name(s, len, false);
}

int cli_set_mode(struct cli *c, const char *name)
{
	if (parse_mode(name, &c->mode))
		return -EINVAL;
	mode_net(c);
	return 0;
}

int cli_add_env(struct policy *p, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	char **list = eq ? p->env_sets : p->env_names;
	size_t *n = eq ? &p->nenv_sets : &p->nenv_names;

	if (!is_env_name(arg, len, !eq))
		return cli_fail(
			err, errlen,
			"--env '%s': not a variable name (NAME, PREFIX* "
			"or NAME=VALUE)",
			arg);
	if (*n == POLICY_MAX_ENV)
		return cli_fail(err, errlen,
				"--env '%s': more than %d variables", arg,
				POLICY_MAX_ENV);
	list[*n] = strdup(arg);
	if (!list[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

int cli_add_req(struct cli *c, const char *path, unsigned int rights,
		const char *flag, char *err, size_t errlen)
{
	if (*path == '\0')
		return cli_fail(err, errlen, "%s: the path is empty", flag);
	if (c->nreqs == POLICY_MAX_ROOTS)
		return cli_fail(err, errlen, "%s '%s': too many roots", flag,
				path);
	c->reqs[c->nreqs++] =
		(struct root_req){ path, rights, flag, false, false };
	return 0;
}

int cli_add_create(struct cli *c, const char *path, const char *flag, char *err,
		   size_t errlen)
{
	int ret = cli_add_req(c, path, RIGHT_R | RIGHT_W, flag, err, errlen);

	if (!ret)
		c->reqs[c->nreqs - 1].create = true;
	return ret;
}

int cli_add_ports(struct cli *c, const char *arg, bool connect, char *err,
		  size_t errlen)
{
	struct policy *p = &c->policy;
	int ret;

	ret = policy_add_ports(p, arg, !connect);
	if (ret)
		return cli_fail(err, errlen,
				"%s '%s': expected ports like "
				"80,443,8000-8010 or udp:53 (0-65535, at "
				"most 64 of each protocol)",
				connect ? "--connect" : "--bind", arg);
	if (p->net == NET_OFF)
		p->net = NET_PORTS;
	return 0;
}

int cli_add_host(struct policy *p, const char *arg, char *err, size_t errlen)
{
	struct proxy_rule rule;

	if (proxy_rule_parse(arg, &rule))
		return cli_fail(
			err, errlen,
			"--allow-host '%s': expected HOST, *.DOMAIN or an "
			"IP address, then :PORT if not 80 and 443",
			arg);
	for (size_t i = 0; i < p->nhosts; i++)
		if (strcmp(p->hosts[i], arg) == 0)
			return 0;
	if (p->nhosts == POLICY_MAX_HOSTS)
		return cli_fail(err, errlen,
				"--allow-host '%s': more than %d hosts", arg,
				POLICY_MAX_HOSTS);
	p->hosts[p->nhosts] = strdup(arg);
	if (!p->hosts[p->nhosts])
		return -ENOMEM;
	p->nhosts++;
	return 0;
}

int cli_settle_net(struct cli *c, char *err, size_t errlen)
{
	struct policy *p = &c->policy;

	if (c->ask && (p->net == NET_ON || p->nconnect))
		return cli_fail(err, errlen,
				"--ask asks about hosts: not with --net or "
				"--connect");
	if ((p->nhosts == 0 && !c->ask) || p->net == NET_ON)
		return 0; /* --net: the whole network, hosts or not */
	if (p->nconnect)
		return cli_fail(
			err, errlen,
			"--allow-host and --connect: --connect opens its "
			"ports on every host; name them as "
			"--allow-host HOST:PORT");
	p->net = NET_HOSTS; /* --bind ports: on the namespace's loopback */
	return 0;
}

static int parse_idle(struct cli *c, const char *arg, char *err, size_t errlen)
{
	char *end;

	errno = 0;
	c->idle = strtol(arg, &end, 10);
	if (errno || *arg < '0' || *arg > '9' || *end || c->idle <= 0 ||
	    c->idle > 31L * 24 * 3600)
		return cli_fail(err, errlen,
				"--idle '%s': expected seconds, 1 to 2678400",
				arg);
	return 0;
}

static int option(struct cli *c, int opt, const char *arg, char *err,
		  size_t errlen)
{
	switch (opt) {
	case 'r':
		return cli_add_req(c, arg, RIGHT_R, "--read", err, errlen);
	case 'w':
		return cli_add_req(c, arg, RIGHT_R | RIGHT_W, "--write", err,
				   errlen);
	case 'x':
		return cli_add_req(c, arg, RIGHT_R | RIGHT_X, "--exec", err,
				   errlen);
	case OPT_CREATE:
		return cli_add_create(c, arg, "--create", err, errlen);
	case 'm':
		if (parse_mode(arg, &c->mode))
			return cli_fail(
				err, errlen,
				"--mode '%s': expected read-only, "
				"workspace-write, workspace-net, full-dev "
				"or ci",
				arg);
		c->mode_set = true;
		mode_net(c);
		return 0;
	case OPT_NO_DEFAULTS:
		c->no_defaults = true;
		return 0;
	case OPT_NET:
		c->policy.net = NET_ON;
		c->net_set = true;
		return 0;
	case OPT_CONNECT_UNIX:
		return cli_add_req(c, arg, RIGHT_U, "--connect-unix", err,
				   errlen);
	case OPT_ALLOW_HOST:
		return cli_add_host(&c->policy, arg, err, errlen);
	case OPT_CONNECT:
	case OPT_BIND:
		c->net_set = true;
		return cli_add_ports(c, arg, opt == OPT_CONNECT, err, errlen);
	case 'e':
		c->env_set = true;
		return cli_add_env(&c->policy, arg, err, errlen);
	case OPT_INHERIT_ENV:
		c->policy.env = ENV_INHERIT;
		c->env_set = true;
		return 0;
	case 'o':
		if (c->cmd != CMD_LEARN)
			return cli_fail(err, errlen, "-o goes with learn");
		c->output = arg;
		return 0;
	case OPT_ALLOW_BROAD:
		if (c->cmd != CMD_LEARN)
			return cli_fail(err, errlen,
					"--allow-broad goes with learn");
		c->allow_broad = true;
		return 0;
	case 'p':
		if (c->nprofiles == CLI_MAX_PROFILES)
			return cli_fail(err, errlen,
					"--profile '%s': more than %d "
					"profiles",
					arg, CLI_MAX_PROFILES);
		c->profiles[c->nprofiles++] = arg;
		return 0;
	case OPT_BEST_EFFORT:
		c->policy.best_effort = true;
		return 0;
	case OPT_NO_CAPTURE:
		c->no_capture = true;
		return 0;
	case OPT_ASK:
		c->ask = true;
		c->ask_profile = arg;
		return 0;
	case 'q':
		c->policy.quiet = true;
		return 0;
	case OPT_JSON:
		c->json = true;
		return 0;
	case OPT_LOG:
		if (*arg == '\0')
			return cli_fail(err, errlen,
					"--log: the path is empty");
		c->log = arg;
		return 0;
	case OPT_NO_SHIM:
		c->no_shim = true;
		return 0;
	case OPT_IDLE:
		return parse_idle(c, arg, err, errlen);
	case OPT_SESSION:
		c->session = arg;
		return 0;
	case OPT_CWD:
		if (*arg == '\0')
			return cli_fail(err, errlen,
					"--cwd: the path is empty");
		c->cwd = arg;
		return 0;
	case 'h':
		c->cmd = CMD_HELP;
		return 0;
	case 'V':
		c->cmd = CMD_VERSION;
		return 0;
	default:
		return -EINVAL;
	}
}

static int bad_option(char **argv, int opt, char *err, size_t errlen)
{
	const char *word = argv[optind - 1];

	if (opt == ':' || (optopt && strchr("rwxmepo", optopt)))
		return cli_fail(err, errlen, "option '%s' needs an argument",
				word);
	return cli_fail(err, errlen, "unknown option '%s'", word);
}

/*
 * cordon explain [--json] [--read|--write|--exec|--connect-unix|--connect]
 * PATH...
 * [OPTIONS]: the access asked about (read by default) and --json, in
 * either order, then the paths (or ports), then the policy options as
 * for a run (--json among them too).  Leaves argv at the options.
 */
static int explain_args(struct cli *c, int *argc, char ***argv, char *err,
			size_t errlen)
{
	static const struct {
		const char *flag;
		unsigned int need;
	} access[] = { { "--read", RIGHT_R },
		       { "--write", RIGHT_W },
		       { "--exec", RIGHT_X },
		       { "--connect-unix", RIGHT_U },
		       { "--connect", 0 } };
	char **v = *argv + 2;
	int n = *argc - 2;

	bool asked = false;

	c->cmd = CMD_EXPLAIN;
	c->explain_need = RIGHT_R;
	/* --json and the access, in either order, before the paths */
	while (n > 0) {
		size_t i = 0;

		if (strcmp(v[0], "--json") == 0) {
			c->json = true;
			v++;
			n--;
			continue;
		}
		while (i < sizeof(access) / sizeof(access[0]) &&
		       strcmp(v[0], access[i].flag) != 0)
			i++;
		if (asked || i == sizeof(access) / sizeof(access[0]))
			break;
		c->explain_need = access[i].need;
		c->explain_connect = access[i].need == 0;
		asked = true;
		v++;
		n--;
	}
	c->explain_args = v;
	while (n > 0 && v[0][0] != '-') {
		c->nexplain++;
		v++;
		n--;
	}
	if (c->nexplain == 0)
		return cli_fail(err, errlen, "explain: no %s given",
				c->explain_connect ? "port" : "path");
	/* getopt sees "explain" as argv[0] and the options after it */
	*argv = v - 1;
	*argc = n + 1;
	return 0;
}

/* The subcommand in @argv[1] (and [2] for "session"): sets c->cmd and
 * says how many words it took. */
static int subcommand(struct cli *c, int argc, char **argv)
{
	static const struct {
		const char *word, *second;
		enum cli_cmd cmd;
	} subs[] = {
		{ "probe", NULL, CMD_PROBE },
		{ "learn", NULL, CMD_LEARN },
		{ "wrap", NULL, CMD_WRAP },
		{ "run", NULL, CMD_SESSION_RUN },
		{ "session", "start", CMD_SESSION_START },
		{ "session", "stop", CMD_SESSION_STOP },
		{ "session", "list", CMD_SESSION_LIST },
	};

	for (size_t i = 0; argc > 1 && i < sizeof(subs) / sizeof(subs[0]);
	     i++) {
		/* "cordon run" is always the subcommand: a program named
		 * run is "cordon -- run" */
		if (strcmp(argv[1], subs[i].word) != 0)
			continue;
		if (!subs[i].second) {
			c->cmd = subs[i].cmd;
			return 1;
		}
		if (argc > 2 && strcmp(argv[2], subs[i].second) == 0) {
			c->cmd = subs[i].cmd;
			return 2;
		}
	}
	if (argc > 1 && strcmp(argv[1], "session") == 0)
		return -1;
	return 0;
}

int cli_parse(int argc, char **argv, struct cli *c, char *err, size_t errlen)
{
	int opt, ret, skip;

	memset(c, 0, sizeof(*c));
	c->mode = MODE_WORKSPACE_WRITE;
	if (argc > 1 && strcmp(argv[1], "explain") == 0) {
		ret = explain_args(c, &argc, &argv, err, errlen);
		if (ret)
			return ret;
	} else {
		skip = subcommand(c, argc, argv);
		if (skip < 0)
			return cli_fail(
				err, errlen,
				"session: expected start, stop or list");
		/* getopt sees the last word of the subcommand as argv[0] */
		argc -= skip;
		argv += skip;
	}
	optind = 0; /* full reinitialisation: cli_parse may run twice */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:r:w:x:m:e:p:o:qhV", options,
				  NULL)) != -1) {
		if (opt == '?' || opt == ':')
			return bad_option(argv, opt, err, errlen);
		ret = option(c, opt, optarg, err, errlen);
		if (ret)
			return ret;
	}
	c->argv = argv + optind;
	c->words = argv + 1;
	c->nwords = optind - 1;
	return cli_check(c, argc, argv, optind, err, errlen);
}
