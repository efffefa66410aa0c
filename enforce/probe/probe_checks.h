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

#include <jansson.h>

#include "shim/core/feature.h"
#include "shim/core/policy.h"

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
	bool inside; /* in an attempt: made inside the sandbox */
	/* the isolation checks' fixture (probe_iso.c) */
	int shm_key, shm_id; /* a SysV segment of the probe's */
	char dev_shm[64];    /* a file of the probe's in /dev/shm */
	int pty;	     /* the master of a terminal of the probe's */
	char pts[64];	     /* its slave's name */
	/* the late socket (probe_unix.c): bound once the attempt runs */
	char late[128];
	int late_fd;
	int gate; /* in a sandboxed attempt: the broker's gate, or -1 */
	/* the allowed host of the hosts checks (probe_hosts.c) */
	int hosts_fd;
	struct sockaddr_in hosts_addr;
	char hosts_rule[32]; /* "127.0.0.1:PORT", its --allow-host */
};

/* The boundary a check's attempt runs in: a row proves its own layer,
 * not one that refuses first or makes the action moot. */
enum probe_how {
	PROBE_WHOLE,	   /* the default policy's whole boundary */
	PROBE_NO_NETNS,	   /* the same, but the network namespace (the
			    * network off in Landlock and the filter, the
			    * host's network namespace kept) */
	PROBE_NETNS_ALONE, /* the namespaces alone, network off: no
			    * Landlock, no filter, no capability drop */
	PROBE_HOSTS,	   /* the whole boundary, with one host allowed
			    * (hosts_rule) through the proxy */
	PROBE_UDP_OTHER,   /* the whole boundary, the host's network, a
			    * UDP port granted: not the listener's */
	PROBE_UDP_GRANTED, /* the same, the listener's UDP port granted */
	PROBE_THREADS,	   /* nothing before the attempt, which applies
			    * Landlock itself with a thread running, as
			    * the shim used alone does */
};

struct check {
	const char *layer;
	const char *name;
	int (*attempt)(struct ctx *c);	 /* in a child: 0 done, else errno */
	bool (*happened)(struct ctx *c); /* in the parent: the effect */
	void (*reset)(struct ctx *c);	 /* put the fixture back */
	enum probe_how how;
	/* in the parent, once the attempt's sandbox holds (its broker
	 * served): what appears outside only after the start */
	void (*late)(struct ctx *c);
	/* the effect must happen inside too (a grant that works), not be
	 * kept from happening */
	bool positive;
	/* the feature row (its name) a Landlock-alone check proves: where
	 * this kernel's Landlock lacks it and other rows hold its
	 * guarantees (feature_stood_in()), the check is made with the
	 * whole sandbox instead, and its row says what held it */
	const char *feature;
	/* the guarantee the check proves, when the row holds more than one:
	 * what held it is said of this one (NULL: all the row's) */
	const char *guarantee;
};

extern const struct check probe_checks[];
extern const size_t probe_nchecks;

/* What isolates the command from the host's other processes: cordon's
 * init, SysV IPC, /dev/shm, the terminals, git's files (probe_iso.c). */
extern const struct check probe_iso_checks[];
extern const size_t probe_iso_nchecks;

/* Make and remove the fixture of the isolation checks.
 * Return (setup): 0 or -errno. */
int probe_iso_setup(struct ctx *c);
void probe_iso_teardown(struct ctx *c);

/* A datagram to the UDP listener (0 or errno), and whether it came. */
int probe_try_udp(struct ctx *c);
bool probe_udp_contacted(struct ctx *c);

/* Landlock's rights past ABI 7, live: UDP ports (ABI 10), every thread
 * of a process (ABI 8) (probe_landlock.c). */
extern const struct check probe_landlock_checks[];
extern const size_t probe_landlock_nchecks;

/* What cannot be covered when the command starts: a UNIX socket that
 * a process outside binds afterwards (probe_unix.c). */
extern const struct check probe_unix_checks[];
extern const size_t probe_unix_nchecks;

/* --allow-host, live: the proxy reaches the allowed host and no other,
 * and the namespace holds a direct connect (probe_hosts.c). */
extern const struct check probe_hosts_checks[];
extern const size_t probe_hosts_nchecks;
int probe_hosts_setup(struct ctx *c);
void probe_hosts_teardown(struct ctx *c);

/* The guarantees of @fs and what holds each (probe_guarantees.c): the
 * probe's first section, and its JSON array "guarantees". */
void probe_guarantees_print(const struct feature_set *fs);
json_t *probe_guarantees_json(const struct feature_set *fs);

/* Does every needed guarantee hold (and every row of none)? */
bool probe_guarantees_ok(const struct feature_set *fs);

/* What holds the guarantees of @f in its place (only @guarantee, when
 * not NULL), in words, into @out. */
const char *probe_stood_in_by(const struct feature_set *fs,
			      const struct feature *f, const char *guarantee,
			      char *out, size_t len);

/* A process outside the sandbox that waits for a signal (30 s at most). */
pid_t probe_start_victim(void);

#endif
