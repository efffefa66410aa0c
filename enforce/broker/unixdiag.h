/*
 * unixdiag.h - the UNIX sockets of the caller's network namespace bound
 * at a file or an abstract name, asked of the kernel's socket
 * diagnostics (unixdiag.c).
 */
#ifndef CORDON_UNIXDIAG_H
#define CORDON_UNIXDIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where a socket is bound: the socket file (st_dev, st_ino), or, when
 * @name is not NULL, the abstract name (@len bytes, its leading NUL
 * included: the address's sun_path as long as the address says). */
struct unixdiag_at {
	dev_t dev;
	ino_t ino;
	const char *name;
	size_t len;
};

/* One socket found: its inode (as /proc/PID/fd shows "socket:[INO]")
 * and its cookie (SO_COOKIE: never reused while the system runs). */
struct unixdiag_sock {
	uint32_t ino;
	uint64_t cookie;
	uint8_t type;  /* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET */
	uint8_t state; /* UNIXDIAG_LISTEN, or another TCP_* state */
};

/* The state of a listening socket (the kernel's TCP_LISTEN). */
#define UNIXDIAG_LISTEN 10

/**
 * unixdiag_each - call @fn for each UNIX socket of the caller's network
 * namespace bound at @at (the bound one, and the connections accepted
 * from it, which carry its address), or each at all when @at is NULL,
 * until @fn returns true.
 * Thread-safe; allocates nothing.
 * Return: 1 when @fn returned true, 0 when it never did, -errno when
 * the kernel could not be asked.
 */
int unixdiag_each(const struct unixdiag_at *at,
		  bool (*fn)(void *arg, const struct unixdiag_sock *s),
		  void *arg);

/**
 * unixdiag_bound_here - is a UNIX socket of the caller's network
 * namespace bound at the file @dev, @ino (st_dev, st_ino of the socket
 * file)?  Thread-safe; allocates nothing.
 * Return: 1 yes, 0 no, -errno when the kernel could not be asked.
 */
int unixdiag_bound_here(dev_t dev, ino_t ino);

#endif
