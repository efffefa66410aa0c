/*
 * probe_checks.h - the fixture and the checks of `cordon probe`.
 */
#ifndef CORDON_PROBE_CHECKS_H
#define CORDON_PROBE_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <netinet/in.h>
#include <sys/types.h>
#include <sys/un.h>

#include "policy.h"

#define PROBE_SECRET "cordon-probe-secret\n"

struct ctx {
	char base[64];	      /* the probe's scratch directory */
	char ws[96], out[96]; /* workspace (granted), outside (not) */
	struct policy policy;
	int abi;
	int tcp, udp, unix_fd; /* listeners owned by the parent */
	struct sockaddr_in tcp_addr, udp_addr;
	struct sockaddr_un unix_addr;
	socklen_t unix_len;
	pid_t victim;
};

struct check {
	const char *layer;
	const char *name;
	int (*attempt)(struct ctx *c);	 /* in a child: 0 done, else errno */
	bool (*happened)(struct ctx *c); /* in the parent: the effect */
	void (*reset)(struct ctx *c);	 /* put the fixture back */
};

extern const struct check probe_checks[];
extern const size_t probe_nchecks;

/* A process outside the sandbox that waits for a signal (30 s at most). */
pid_t probe_start_victim(void);

#endif
