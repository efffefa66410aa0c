/*
 * filteronly.c - cordon's seccomp system filter alone (the variant a run
 * with the network off in a namespace of its own installs, from
 * enforce/linux/filters.c), nothing else: no Landlock, no namespace, no
 * shim.  What the filter adds to each system call, for the bench.
 *
 *   filteronly -- COMMAND [ARGS...]
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce/linux/filters.h"

int main(int argc, char **argv)
{
	/* the network off, TCP sockets only, a PID namespace of its own */
	const struct filters_prog *f =
		&filters_compiled[FILTERS_NET_TCP_ONLY * 2 + 1];
	struct sock_fprog prog = { f->len, (struct sock_filter *)f->insns };

	if (argc < 3 || strcmp(argv[1], "--") != 0) {
		fprintf(stderr, "usage: filteronly -- COMMAND [ARGS...]\n");
		return 125;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		perror("filteronly");
		return 125;
	}
	execvp(argv[2], argv + 2);
	perror("filteronly: exec");
	return 127;
}
