/*
 * cli_check.c - what each subcommand takes, once cli_parse.c has parsed
 * the words: the options that go with it alone, the command it needs or
 * refuses.  Every refusal is one line that says what was expected
 * (cli_fail(), which the parser's refusals use too).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "enforce/base/base.h"
#include "enforce/cli/cli.h"

int cli_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	say_oneline(err);
	return -EINVAL;
}

int cli_check(struct cli *c, int argc, char **argv, int optind, char *err,
	      size_t errlen)
{
	bool cmd_needed = c->cmd == CMD_RUN || c->cmd == CMD_LEARN ||
			  c->cmd == CMD_WRAP || c->cmd == CMD_SESSION_RUN;
	bool no_cmd = c->cmd == CMD_PROBE || c->cmd == CMD_EXPLAIN ||
		      c->cmd == CMD_SESSION_START || c->cmd == CMD_SESSION_LIST;

	if (c->cmd == CMD_SESSION_STOP) {
		if (optind + 1 != argc)
			return cli_fail(err, errlen,
					"session stop takes one ID");
		c->session = argv[optind];
		return 0;
	}
	if ((c->session != NULL) != (c->cmd == CMD_SESSION_RUN))
		return cli_fail(err, errlen,
				c->session
					? "--session goes with run"
					: "run needs --session ID (cordon "
					  "session start prints one); to run a "
					  "command in a new sandbox: cordon -- "
					  "COMMAND");
	if (no_cmd && optind < argc)
		return cli_fail(err, errlen, "%s takes no command: '%s'",
				c->cmd == CMD_PROBE	? "probe"
				: c->cmd == CMD_EXPLAIN ? "explain"
							: "session",
				argv[optind]);
	/* the probe proves the default policy: a policy option would be
	 * ignored, so it is refused, unless --mode asks about its policy */
	if (c->cmd == CMD_PROBE && !c->mode_set &&
	    (c->nreqs || c->net_set || c->nprofiles || c->no_defaults ||
	     c->policy.nhosts || c->env_set || c->log || c->no_shim ||
	     c->policy.best_effort))
		return cli_fail(err, errlen,
				"probe takes policy options only with --mode "
				"MODE (whether this kernel enforces that "
				"policy)");
	if (cmd_needed && optind >= argc)
		return cli_fail(err, errlen, "no command given");
	if (c->cmd == CMD_LEARN && !c->output)
		return cli_fail(err, errlen,
				"learn: -o PROFILE names the file to "
				"write");
	if (c->json && c->cmd != CMD_PROBE && c->cmd != CMD_EXPLAIN &&
	    c->cmd != CMD_WRAP && c->cmd != CMD_SESSION_START &&
	    c->cmd != CMD_SESSION_LIST)
		return cli_fail(err, errlen,
				"--json goes with probe, explain, wrap and "
				"session");
	if (c->cmd == CMD_SESSION_RUN &&
	    (c->nreqs || c->mode_set || c->net_set || c->nprofiles ||
	     c->no_defaults || c->policy.env == ENV_INHERIT || c->log ||
	     c->no_shim || c->policy.best_effort))
		return cli_fail(err, errlen,
				"run --session takes --cwd and -e only: the "
				"policy is the session's");
	if (c->cwd && c->cmd != CMD_SESSION_RUN)
		return cli_fail(err, errlen, "--cwd goes with run --session");
	if (c->idle && c->cmd != CMD_SESSION_START)
		return cli_fail(err, errlen, "--idle goes with session start");
	return 0;
}
