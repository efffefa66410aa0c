/*
 * net_names.h - the names a process looked up and the addresses they
 * gave, so that a connect to one of them is learned, or explained, as
 * the host asked for (--allow-host, "allow_hosts"), not as a bare port
 * or the whole network.
 */
#ifndef CORDON_NET_NAMES_H
#define CORDON_NET_NAMES_H

#include <netdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* @node's answer @res (getaddrinfo's), kept; the oldest goes first. */
void net_names_note(const char *node, const struct addrinfo *res);

/**
 * net_names_find - the name whose answer held the address of @ss (an
 * AF_INET or AF_INET6 address), into @name (@len bytes).  Reads memory
 * only: async-signal-safe.  Return: true when found.
 */
bool net_names_find(const struct sockaddr_storage *ss, char *name, size_t len);

#endif
