/*
 * fuzz_cli.c - libFuzzer target for the option parser
 * (enforce/cli/cli_parse.c).
 *
 * The input is split on NUL bytes into argv.  Whatever it is, cli_parse()
 * must return 0 or -EINVAL, write a one-line NUL-terminated message on
 * error, and on success leave a command argv that lies inside the input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/cli/cli.h"
#include "enforce/policy/policy.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cli c;
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2], err[512];
	int argc = 1, ret;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = "cordon";
	for (char *p = buf; p <= buf + size && argc < MAX_ARGS;
	     p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	memset(err, 'x', sizeof(err));
	ret = cli_parse(argc, argv, &c, err, sizeof(err));
	if (ret != 0 && ret != -EINVAL)
		abort();
	if (ret && (!memchr(err, '\0', sizeof(err)) || strchr(err, '\n')))
		abort();
	if (!ret && c.cmd == CMD_RUN && (!c.argv || !c.argv[0]))
		abort();
	policy_free(&c.policy);
	free(buf);
	return 0;
}
