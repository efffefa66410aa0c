/*
 * lookup.h - does a host name need a name server (lookup_linux.c)?  What
 * cordon learn asks of a name the command looked up: the network policy
 * it learns for must then let DNS through.
 */
#ifndef CORDON_LOOKUP_H
#define CORDON_LOOKUP_H

#include <stdbool.h>

/**
 * lookup_needs_dns - would looking up @node ask a name server: it is no
 * IPv4 or IPv6 address, and no name in @hosts (/etc/hosts; its own
 * buffer on the stack, no allocation).  A hosts file that cannot be
 * read answers nothing.
 */
bool lookup_needs_dns(const char *node, const char *hosts);

#endif
