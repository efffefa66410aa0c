/* Unit tests of the command-line parser (enforce/cli/cli_parse.c). */
#include <criterion/criterion.h>
#include <errno.h>

#include "enforce/cli/cli.h"
#include "enforce/policy/policy.h"

static struct cli c;
static char err[512];

static int parse(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return cli_parse(argc, argv, &c, err, sizeof(err));
}

static void fini(void)
{
	policy_free(&c.policy);
}

TestSuite(cli, .fini = fini);

Test(cli, defaults)
{
	char *argv[] = { "cordon", "--", "make", "-j2", NULL };

	cr_assert_eq(parse(argv), 0);
	cr_assert_eq(c.cmd, CMD_RUN);
	cr_assert_eq(c.mode, MODE_WORKSPACE_WRITE);
	cr_assert_eq(c.policy.net, NET_OFF);
	cr_assert_eq(c.policy.env, ENV_SCRUB);
	cr_assert_str_eq(c.argv[0], "make");
	cr_assert_str_eq(c.argv[1], "-j2");
	cr_assert_null(c.argv[2]);
}

Test(cli, roots_keep_their_rights_and_flag)
{
	char *argv[] = { "cordon", "-r",  "/a",	  "--write=/b",
			 "-x",	   "~/c", "true", NULL };

	cr_assert_eq(parse(argv), 0);
	cr_assert_eq(c.nreqs, 3);
	cr_assert_eq(c.reqs[0].rights, RIGHT_R);
	cr_assert_eq(c.reqs[1].rights, RIGHT_R | RIGHT_W);
	cr_assert_str_eq(c.reqs[1].path, "/b");
	cr_assert_str_eq(c.reqs[1].flag, "--write");
	cr_assert_eq(c.reqs[2].rights, RIGHT_R | RIGHT_X);
	cr_assert_str_eq(c.argv[0], "true");
}

Test(cli, the_command_options_are_not_ours)
{
	char *argv[] = { "cordon", "ls", "-r", "/x", NULL };

	cr_assert_eq(parse(argv), 0);
	cr_assert_eq(c.nreqs, 0);
	cr_assert_str_eq(c.argv[1], "-r");
}

Test(cli, ports)
{
	char *argv[] = { "cordon", "--connect", "80,443,8000-8002",
			 "--bind", "0",		"true",
			 NULL };

	cr_assert_eq(parse(argv), 0);
	cr_assert_eq(c.policy.net, NET_PORTS);
	cr_assert_eq(c.policy.nconnect, 5);
	cr_assert_eq(c.policy.connect_ports[4], 8002);
	cr_assert_eq(c.policy.nbind, 1);
	cr_assert_eq(c.policy.bind_ports[0], 0);
}

/* UDP ports: a prefix for the items after it, a suffix for one; each
 * list apart from the TCP one. */
Test(cli, udp_ports)
{
	char *argv[] = { "cordon",	   "--connect", "443,udp:53,5353",
			 "--connect",	   "123/udp",	"--bind",
			 "udp:0,tcp:8080", "true",	NULL };

	cr_assert_eq(parse(argv), 0);
	cr_assert_eq(c.policy.net, NET_PORTS);
	cr_assert_eq(c.policy.nconnect, 1);
	cr_assert_eq(c.policy.connect_ports[0], 443);
	cr_assert_eq(c.policy.nconnect_udp, 3);
	cr_assert_eq(c.policy.connect_udp[0], 53);
	cr_assert_eq(c.policy.connect_udp[1], 5353);
	cr_assert_eq(c.policy.connect_udp[2], 123);
	cr_assert_eq(c.policy.nbind_udp, 1);
	cr_assert_eq(c.policy.bind_udp[0], 0);
	cr_assert_eq(c.policy.nbind, 1);
	cr_assert_eq(c.policy.bind_ports[0], 8080);
}

Test(cli, net_wins_over_ports_in_any_order)
{
	char *a[] = { "cordon", "--net", "--connect", "80", "true", NULL };
	char *b[] = { "cordon", "--connect", "80", "--net", "true", NULL };

	cr_assert_eq(parse(a), 0);
	cr_assert_eq(c.policy.net, NET_ON);
	policy_free(&c.policy);
	cr_assert_eq(parse(b), 0);
	cr_assert_eq(c.policy.net, NET_ON);
}

Test(cli, bad_ports)
{
	static char *bad[] = { "",	  "x",	     "70000",
			       "80,",	  "9-1",     "1-2000",
			       "-1",	  "80;81",   "0x50",
			       "udp:",	  "udp",     "udp:x",
			       "53/",	  "53/sctp", "sctp:53",
			       "udp:53/", "UDP:53",  "udp:53/udp/udp" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "cordon", "--connect", bad[i], "true", NULL };

		cr_assert_eq(parse(argv), -EINVAL, "accepted '%s'", bad[i]);
		cr_assert(strstr(err, "--connect"), "message: %s", err);
	}
}

Test(cli, modes)
{
	char *a[] = { "cordon", "-m", "read-only", "true", NULL };
	char *b[] = { "cordon", "--mode", "workspace-net", "true", NULL };
	char *bad[] = { "cordon", "--mode", "rw", "true", NULL };

	cr_assert_eq(parse(a), 0);
	cr_assert_eq(c.mode, MODE_READ_ONLY);
	cr_assert_eq(parse(b), 0);
	cr_assert_eq(c.policy.net, NET_ON);
	cr_assert_eq(parse(bad), -EINVAL);
	cr_assert_str_eq(err, "--mode 'rw': expected read-only, "
			      "workspace-write, workspace-net, full-dev or ci");
}

Test(cli, modes_full_dev_and_ci)
{
	char *a[] = { "cordon", "-m", "full-dev", "true", NULL };
	char *b[] = { "cordon", "-m", "ci", "true", NULL };
	char *c2[] = { "cordon", "--net", "-m", "ci", "true", NULL };

	cr_assert_eq(parse(a), 0);
	cr_assert_eq(c.mode, MODE_FULL_DEV);
	cr_assert_eq(c.policy.net, NET_ON);
	cr_assert_eq(parse(b), 0);
	cr_assert_eq(c.mode, MODE_CI);
	cr_assert_eq(c.policy.net, NET_OFF);
	/* a flag wins over the mode */
	cr_assert_eq(parse(c2), 0);
	cr_assert_eq(c.policy.net, NET_ON);
}

Test(cli, subcommands)
{
	char *wrap[] = {
		"cordon", "wrap", "--json", "-w", "x", "--", "ls", NULL
	};
	char *start[] = { "cordon", "session", "start", "--idle", "5", NULL };
	char *stop[] = { "cordon", "session", "stop", "abc", NULL };
	char *run[] = { "cordon", "run", "--session", "abc",  "--cwd",
			"/d",	  "-e",	 "A=1",	      "true", NULL };
	char *plain_run[] = { "cordon", "run", "--", "x", NULL };
	char *run_alone[] = { "cordon", "run", NULL };
	char *named_run[] = { "cordon", "--", "run", "x", NULL };
	char *run_late[] = { "cordon",	  "run", "--cwd", "/d",
			     "--session", "abc", "true",  NULL };
	char *bad_idle[] = {
		"cordon", "session", "start", "--idle", "0", NULL
	};
	char *bad_sub[] = { "cordon", "session", "go", NULL };
	char *cwd_plain[] = { "cordon", "--cwd", "/", "true", NULL };

	cr_assert_eq(parse(wrap), 0);
	cr_assert_eq(c.cmd, CMD_WRAP);
	cr_assert(c.json);
	cr_assert_eq(c.nwords, 4);
	cr_assert_str_eq(c.words[0], "--json");
	cr_assert_str_eq(c.argv[0], "ls");
	cr_assert_eq(parse(start), 0);
	cr_assert_eq(c.cmd, CMD_SESSION_START);
	cr_assert_eq(c.idle, 5);
	cr_assert_eq(parse(stop), 0);
	cr_assert_eq(c.cmd, CMD_SESSION_STOP);
	cr_assert_str_eq(c.session, "abc");
	cr_assert_eq(parse(run), 0);
	cr_assert_eq(c.cmd, CMD_SESSION_RUN);
	cr_assert_str_eq(c.cwd, "/d");
	cr_assert_str_eq(c.argv[0], "true");
	/* run without --session: what it expects, not a program named run
	 * (that one is "cordon -- run") */
	cr_assert_eq(parse(plain_run), -EINVAL);
	cr_assert_str_eq(err, "run needs --session ID (cordon session start "
			      "prints one); to run a command in a new "
			      "sandbox: cordon -- COMMAND");
	policy_free(&c.policy);
	cr_assert_eq(parse(run_alone), -EINVAL);
	cr_assert_str_eq(err, "run needs --session ID (cordon session start "
			      "prints one); to run a command in a new "
			      "sandbox: cordon -- COMMAND");
	policy_free(&c.policy);
	cr_assert_eq(parse(named_run), 0);
	cr_assert_eq(c.cmd, CMD_RUN);
	cr_assert_str_eq(c.argv[0], "run");
	cr_assert_str_eq(c.argv[1], "x");
	policy_free(&c.policy);
	/* --session anywhere among run's options */
	cr_assert_eq(parse(run_late), 0);
	cr_assert_eq(c.cmd, CMD_SESSION_RUN);
	cr_assert_str_eq(c.session, "abc");
	cr_assert_str_eq(c.argv[0], "true");
	cr_assert_eq(parse(bad_idle), -EINVAL);
	cr_assert_eq(parse(bad_sub), -EINVAL);
	cr_assert_eq(parse(cwd_plain), -EINVAL);
}

Test(cli, env_options)
{
	char *argv[] = { "cordon",  "-e", "FOO",     "-e",
			 "BAR=1=2", "-e", "CARGO_*", "--inherit-env",
			 "true",    NULL };

	cr_assert_eq(parse(argv), 0);
	cr_assert_eq(c.policy.nenv_names, 2);
	cr_assert_eq(c.policy.nenv_sets, 1);
	cr_assert_str_eq(c.policy.env_sets[0], "BAR=1=2");
	cr_assert_eq(c.policy.env, ENV_INHERIT);
}

Test(cli, bad_env_names)
{
	static char *bad[] = { "1X", "A-B", "*", "A*B", "=v", "" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "cordon", "-e", bad[i], "true", NULL };

		cr_assert_eq(parse(argv), -EINVAL, "accepted '%s'", bad[i]);
	}
}

Test(cli, errors_are_one_line)
{
	char *a[] = { "cordon", "--bogus", "true", NULL };
	char *b[] = { "cordon", "-w", NULL };
	char *d[] = { "cordon", NULL };
	char *e[] = { "cordon", "-w", "", "true", NULL };

	cr_assert_eq(parse(a), -EINVAL);
	cr_assert_str_eq(err, "unknown option '--bogus'");
	cr_assert_eq(parse(b), -EINVAL);
	cr_assert_str_eq(err, "option '-w' needs an argument");
	cr_assert_eq(parse(d), -EINVAL);
	cr_assert_str_eq(err, "no command given");
	cr_assert_eq(parse(e), -EINVAL);
	cr_assert_str_eq(err, "--write: the path is empty");
}

Test(cli, probe)
{
	char *a[] = { "cordon", "probe", "--json", NULL };
	char *b[] = { "cordon", "probe", "ls", NULL };
	char *d[] = { "cordon", "--json", "ls", NULL };

	cr_assert_eq(parse(a), 0);
	cr_assert_eq(c.cmd, CMD_PROBE);
	cr_assert(c.json);
	cr_assert_eq(parse(b), -EINVAL);
	cr_assert_eq(parse(d), -EINVAL);
}

Test(cli, help_and_version)
{
	char *a[] = { "cordon", "--help", NULL };
	char *b[] = { "cordon", "-V", NULL };

	cr_assert_eq(parse(a), 0);
	cr_assert_eq(c.cmd, CMD_HELP);
	cr_assert_eq(parse(b), 0);
	cr_assert_eq(c.cmd, CMD_VERSION);
}

/* cordon explain: the access and --json before the paths, in either
 * order, the policy options (--json among them) after. */

Test(cli, explain_text_by_default)
{
	char *a[] = { "cordon", "explain", "/a", "/b", "-w", "/c", NULL };

	cr_assert_eq(parse(a), 0, "%s", err);
	cr_assert_eq(c.cmd, CMD_EXPLAIN);
	cr_assert_not(c.json);
	cr_assert_eq(c.explain_need, RIGHT_R);
	cr_assert_eq(c.nexplain, 2);
	cr_assert_str_eq(c.explain_args[1], "/b");
	cr_assert_eq(c.nreqs, 1);
	cr_assert_str_eq(c.reqs[0].path, "/c");
}

Test(cli, explain_json_before_or_after_the_access)
{
	char *a[] = { "cordon", "explain", "--json", "--write", "/a", NULL };
	char *b[] = { "cordon", "explain", "--write", "--json", "/a", NULL };
	char *d[] = { "cordon", "explain", "--json", "/a", NULL };

	cr_assert_eq(parse(a), 0, "%s", err);
	cr_assert(c.json);
	cr_assert_eq(c.explain_need, RIGHT_W);
	cr_assert_eq(c.nexplain, 1);
	cr_assert_str_eq(c.explain_args[0], "/a");
	policy_free(&c.policy);
	cr_assert_eq(parse(b), 0, "%s", err);
	cr_assert(c.json);
	cr_assert_eq(c.explain_need, RIGHT_W);
	cr_assert_eq(c.nexplain, 1);
	policy_free(&c.policy);
	cr_assert_eq(parse(d), 0, "%s", err);
	cr_assert(c.json);
	cr_assert_eq(c.explain_need, RIGHT_R);
	cr_assert_eq(c.nexplain, 1);
}

Test(cli, explain_json_among_the_options)
{
	char *a[] = { "cordon",	   "explain", "--connect", "80", "443",
		      "--connect", "443",     "--json",	   NULL };

	cr_assert_eq(parse(a), 0, "%s", err);
	cr_assert(c.json);
	cr_assert(c.explain_connect);
	cr_assert_eq(c.nexplain, 2);
	cr_assert_eq(c.policy.nconnect, 1);
}

/* The access is asked once: a second access word is no path. */
Test(cli, explain_bad_input)
{
	char *a[] = { "cordon", "explain", "--json", NULL };
	char *b[] = { "cordon", "explain", "--read", "--write", "/a", NULL };
	char *d[] = { "cordon", "--json", "--", "ls", NULL };
	char *e[] = {
		"cordon", "learn", "--json", "-o", "p", "--", "ls", NULL
	};

	cr_assert_eq(parse(a), -EINVAL);
	cr_assert_str_eq(err, "explain: no path given");
	policy_free(&c.policy);
	cr_assert_eq(parse(b), -EINVAL);
	cr_assert_str_eq(err, "explain: no path given");
	policy_free(&c.policy);
	cr_assert_eq(parse(d), -EINVAL);
	cr_assert_str_eq(err,
			 "--json goes with probe, explain, wrap and session");
	policy_free(&c.policy);
	cr_assert_eq(parse(e), -EINVAL);
	cr_assert_str_eq(err,
			 "--json goes with probe, explain, wrap and session");
}

/* probe proves the default policy: a policy option without --mode would
 * be ignored, so it is refused; with --mode it is that mode's policy */
Test(cli, probe_policy_options_need_mode)
{
	char *bare[] = { "cordon", "probe", "--json", NULL };
	char *ignored[] = { "cordon", "probe", "-w", "/x", NULL };
	char *mode[] = { "cordon", "probe", "--mode", "ci", "-w", "/x", NULL };

	cr_assert_eq(parse(bare), 0);
	cr_assert_eq(c.cmd, CMD_PROBE);
	policy_free(&c.policy);
	cr_assert_eq(parse(ignored), -EINVAL);
	cr_assert_str_eq(err, "probe takes policy options only with --mode "
			      "MODE (whether this kernel enforces that "
			      "policy)");
	policy_free(&c.policy);
	cr_assert_eq(parse(mode), 0);
	cr_assert(c.mode_set);
	cr_assert_eq(c.nreqs, 1);
}
