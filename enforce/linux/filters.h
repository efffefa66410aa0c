/*
 * filters.h - the seccomp programs cordon installs (filters.c builds
 * them with libseccomp when cordon is built; filters_compiled[] holds
 * them as BPF).
 */
#ifndef CORDON_FILTERS_H
#define CORDON_FILTERS_H

#include <linux/filter.h>
#include <seccomp.h>
#include <stddef.h>

/* The system filter's network rules (sysfilter.c): none (--net), plain
 * TCP only (ports, or the network off in a network namespace of the
 * command's own), no IPv4 or IPv6 socket at all, plain TCP and plain
 * UDP (UDP ports granted: Landlock ABI 10 holds their ports). */
enum {
	FILTERS_NET_ON,
	FILTERS_NET_TCP_ONLY,
	FILTERS_NET_NO_IP,
	FILTERS_NET_TCP_UDP,
	FILTERS_NETS
};

/* Variants 0 to FILTERS_SYSTEM - 1 are the system filter's: its network
 * rules * 2, + 1 when the command has a PID namespace of its own; then
 * the broker's four: the command in a network namespace of its own
 * (connect and sends), sharing the host's (bind too: broker_own.c),
 * with TCP ports (listen too), and listen() alone (TCP ports where
 * Landlock holds the UNIX sockets: sockgate.c). */
#define FILTERS_SYSTEM	      (FILTERS_NETS * 2)
#define FILTERS_BROKER	      FILTERS_SYSTEM
#define FILTERS_BROKER_SHARED (FILTERS_BROKER + 1)
#define FILTERS_BROKER_PORTS  (FILTERS_BROKER + 2)
#define FILTERS_BROKER_LISTEN (FILTERS_BROKER + 3)
#define FILTERS_N	      (FILTERS_BROKER + 4)

struct filters_prog {
	const struct sock_filter *insns;
	unsigned short len;
};

/* Built with cordon (scripts/filtergen.c), indexed by variant. */
extern const struct filters_prog filters_compiled[FILTERS_N];

/* The broker's variant for the network mode @net (policy.h's). */
unsigned int filters_broker_variant(int net);

/**
 * filters_build - add the rules of system filter @variant to @ctx.
 * Return: 0, or -errno (libseccomp's).
 */
int filters_build(scmp_filter_ctx ctx, unsigned int variant);

/**
 * filters_export - build @variant (from FILTERS_BROKER: the broker's) with
 * libseccomp, as BPF: *@insns (malloc'd, the caller frees) of *@n
 * instructions.
 * Return: 0, or -errno.
 */
int filters_export(unsigned int variant, struct sock_filter **insns, size_t *n);

#endif
