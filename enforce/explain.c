/*
 * explain.c - `cordon explain`: what the policy a run would have decides
 * for each path (or port), in the words of the shim's denial lines.
 *
 *   cordon explain [--read|--write|--exec|--connect] PATH... [OPTIONS]
 *
 * One line per path on stdout:
 *   allowed write ./out.o (/home/u/proj/out.o): granted by /home/u/proj (rwx)
 *   denied read ~/.ssh/id_rsa (/home/u/.ssh/id_rsa): outside the readable
 *     roots /usr, /etc, /opt, ...; allow with --read /home/u/.ssh/id_rsa
 * Exit status: 0 when every one is allowed, 1 otherwise, 125 when the
 * policy itself is wrong (a missing root, a bad option).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/explain.h"
#include "shim/core/path.h"
#include "enforce/roots.h"
#include "enforce/say.h"
#include "shim/core/rule.h"
#include "enforce/spawn.h"

static void print_path(const char *given, const char *resolved)
{
	if (strcmp(given, resolved) == 0)
		printf("%s", given);
	else
		printf("%s (%s)", given, resolved);
}

static bool explain_path(const struct policy *p, unsigned int need,
			 const char *given)
{
	char resolved[PATH_BUF], line[1024], rights[4];
	struct strbuf sb = STRBUF(line, sizeof(line));
	const struct root *r;
	int ret;

	ret = path_resolve(AT_FDCWD, given, 0, resolved);
	if (ret) {
		printf("error %s %s: %s\n", rule_word(need), given,
		       strerror(-ret));
		return false;
	}
	r = policy_allows(p, need, resolved) ? rule_granting(p, resolved, need)
					     : NULL;
	if (r) {
		printf("allowed %s ", rule_word(need));
		print_path(given, resolved);
		printf(": granted by %s (%s)\n", r->path,
		       policy_rights_str(r->rights, rights));
		return true;
	}
	rule_put(&sb, p, need, resolved);
	sb_puts(&sb, "; allow with ");
	sb_puts(&sb, rule_flag(need));
	sb_puts(&sb, " ");
	rule_put_grant(&sb, resolved);
	printf("denied %s ", rule_word(need));
	print_path(given, resolved);
	printf(": %s\n", line);
	return false;
}

static bool explain_port(const struct policy *p, const char *given)
{
	char line[256];
	struct strbuf sb = STRBUF(line, sizeof(line));
	char *end;
	unsigned long port;

	errno = 0;
	port = strtoul(given, &end, 10);
	if (errno || *end || end == given || port > 65535) {
		printf("error connect %s: not a TCP port\n", given);
		return false;
	}
	if (policy_tcp_allowed(p, false, (unsigned int)port)) {
		printf("allowed connect %lu: %s\n", port,
		       p->net == NET_ON ? "the network is on"
					: "granted by --connect");
		return true;
	}
	rule_put_tcp(&sb, p, false, (unsigned int)port);
	printf("denied connect %lu: %s; allow with --connect %lu\n", port, line,
	       port);
	return false;
}

int explain_run(struct cli *c)
{
	char err[512 + PATH_BUF];
	bool all = true;

	if (roots_build(c, &c->policy, err, sizeof(err))) {
		say_error("%s", err);
		return EXIT_CORDON;
	}
	for (size_t i = 0; i < c->nexplain; i++) {
		bool ok = c->explain_connect
				  ? explain_port(&c->policy, c->explain_args[i])
				  : explain_path(&c->policy, c->explain_need,
						 c->explain_args[i]);

		all = all && ok;
	}
	return all ? 0 : 1;
}
