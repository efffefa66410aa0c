/*
 * cli.h - the command line (enforce/cli/): cordon's argv parsed into a
 * request (subcommand, policy options, command) and the --help text.  The
 * folder's whole interface; every other part reads the request it makes.
 */
#ifndef CORDON_CLI_H
#define CORDON_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "shim/core/policy.h"

enum cli_cmd {
	CMD_RUN,
	CMD_PROBE,
	CMD_EXPLAIN,
	CMD_LEARN,
	CMD_HELP,
	CMD_VERSION,
	CMD_WRAP,	   /* cordon wrap: the argv and env to spawn */
	CMD_SESSION_START, /* cordon session start */
	CMD_SESSION_STOP,  /* cordon session stop ID */
	CMD_SESSION_LIST,  /* cordon session list */
	CMD_SESSION_RUN,   /* cordon run --session ID */
};

enum cli_mode {
	MODE_READ_ONLY,
	MODE_WORKSPACE_WRITE, /* the default */
	MODE_WORKSPACE_NET,
	MODE_FULL_DEV, /* workspace-net + the toolchain caches */
	MODE_CI,       /* hermetic: no network, no home, a fresh temp dir */
};

/* A root as the user wrote it, before expansion and canonicalisation. */
struct root_req {
	const char *path; /* points into argv (or a profile's copy) */
	unsigned int rights;
	const char *flag; /* "--read", "--write", "--exec", a profile */
	bool optional;	  /* from a built-in profile: skipped if absent */
	bool create;	  /* --create, a profile's "create": a directory
			   * made (mkdir -p) before the run when missing */
};

#define CLI_MAX_PROFILES 16

struct cli {
	enum cli_cmd cmd;
	enum cli_mode mode;
	bool no_defaults;
	bool json;
	bool no_shim;		 /* the kernel layer only: no preloaded shim */
	bool no_capture;	 /* hosts through the proxy variables alone */
	bool ask;		 /* --ask: a refused host asked about */
	const char *ask_profile; /* --ask=PROFILE: where "always" goes */
	const char *log;	 /* --log FILE, or NULL for the default */
	const char *output;	 /* cordon learn -o PROFILE */
	bool allow_broad;	 /* cordon learn --allow-broad */
	struct root_req reqs[POLICY_MAX_ROOTS];
	size_t nreqs;
	bool mode_set, net_set, env_set; /* given by a flag: profiles yield */
	const char *profiles[CLI_MAX_PROFILES]; /* --profile FILE|NAME */
	size_t nprofiles;
	struct policy policy; /* net, env and flags; roots come later */
	char **argv;	      /* the command, NULL-terminated */
	/* the option words as written, before the command (cordon wrap) */
	char **words;
	int nwords;
	/* sessions: the id (stop, run --session), --idle, run's --cwd */
	const char *session;
	long idle;
	const char *cwd;
	/* cordon explain: the access asked about and the paths (ports) */
	unsigned int explain_need; /* RIGHT_*; 0 with explain_connect */
	bool explain_connect;
	char **explain_args;
	size_t nexplain;
};

/**
 * cli_parse - parse @argv into @c.
 * Return: 0, or -EINVAL with a one-line message in @err.
 */
int cli_parse(int argc, char **argv, struct cli *c, char *err, size_t errlen);

/* What the subcommand parsed into @c takes: the words from @optind on
 * (the command), the options that go with it alone.
 * Return: 0, or -EINVAL with a one-line message in @err. */
int cli_check(struct cli *c, int argc, char **argv, int optind, char *err,
	      size_t errlen);

/* @fmt into @err, made one line.  Return: -EINVAL. */
int cli_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Add a root request (--read and friends, or a profile's entry). */
int cli_add_req(struct cli *c, const char *path, unsigned int rights,
		const char *flag, char *err, size_t errlen);

/* Add a writable directory made before the run when missing (--create,
 * a profile's "create"). */
int cli_add_create(struct cli *c, const char *path, const char *flag, char *err,
		   size_t errlen);

/* Set the mode by @name (a profile's "mode"); -EINVAL if unknown. */
int cli_set_mode(struct cli *c, const char *name);

/* Add --env NAME, PREFIX* or NAME=VALUE to @p. */
int cli_add_env(struct policy *p, const char *arg, char *err, size_t errlen);

/* Is @s (@len bytes) a variable's name (no pattern)? */
bool cli_is_env_name(const char *s, size_t len);

/* Parse "80,443,8000-8010" for --connect (or --bind). */
/* --allow-host @arg (HOST[:PORT], *.DOMAIN[:PORT], an IP literal),
 * checked and kept in @p once.  Return: 0, or -errno with @err set. */
int cli_add_host(struct policy *p, const char *arg, char *err, size_t errlen);

/* Once the flags and the profiles are in: hosts allowed without --net
 * make the network NET_HOSTS (with --connect ports: an error, @err set).
 * Return: 0, or -EINVAL. */
int cli_settle_net(struct cli *c, char *err, size_t errlen);

int cli_add_ports(struct cli *c, const char *arg, bool connect, char *err,
		  size_t errlen);

/* The --help text. */
extern const char cli_usage[];

/* The name of @mode, as --mode takes it. */
const char *cli_mode_name(enum cli_mode mode);

#endif
