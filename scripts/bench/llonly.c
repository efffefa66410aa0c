/*
 * llonly.c - Landlock alone: cordon's own ruleset code, nothing else.
 *
 *   llonly WORKSPACE -- COMMAND [ARGS...]
 *
 * Grants / readable and executable, WORKSPACE, /tmp, /var/tmp and /dev
 * writable, with every right of the running ABI (shim/core/landlock.c),
 * sets no_new_privs, restricts itself and execs COMMAND: no namespaces,
 * no seccomp, no shim, no supervisor.  The bench's floor for a launcher
 * that applies Landlock and execs, the role the kernel's sandboxer plays.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shim/core/landlock.h"
#include "shim/core/policy.h"
#include "enforce/policy/policy.h"

int main(int argc, char **argv)
{
	static struct policy p;
	const char *rw[] = { argv[1], "/tmp", "/var/tmp", "/dev" };
	char err[512];
	int abi = landlock_abi();

	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr,
			"usage: llonly WORKSPACE -- COMMAND [ARGS...]\n");
		return 125;
	}
	if (abi < 1) {
		fprintf(stderr, "llonly: no Landlock (%d)\n", abi);
		return 125;
	}
	if (policy_add_root(&p, "/", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true))
		return 125;
	for (size_t i = 0; i < sizeof(rw) / sizeof(rw[0]); i++)
		if (policy_add_root(&p, rw[i], RIGHT_ALL, ORIGIN_DEFAULT, true))
			return 125;
	if (landlock_apply(&p, abi, NULL, err, sizeof(err))) {
		fprintf(stderr, "llonly: %s\n", err);
		return 125;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
