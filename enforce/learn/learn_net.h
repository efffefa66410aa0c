/*
 * learn_net.h - what `cordon learn` learns of the network from the
 * records of a run (learn_net.c).
 */
#ifndef CORDON_LEARN_NET_H
#define CORDON_LEARN_NET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/**
 * learn_net_note - take note of a network record: its @dest, the option
 * @allow that the shim says allows it (or NULL) and its operation @op
 * (or NULL).  Every field is untrusted.
 * Return: false when the record holds no valid port or host (nothing
 * noted: the caller counts it).
 */
bool learn_net_note(const char *dest, const char *allow, const char *op);

/* What learn_net_put() wrote, for the last line. */
struct learn_net_sum {
	size_t ports, hosts;
	bool net;
};

/**
 * learn_net_put - write into @prof what was noted: "net", or
 * "allow_hosts", "connect" and "bind"; and its counts in @sum.
 */
void learn_net_put(json_t *prof, struct learn_net_sum *sum);

#endif
