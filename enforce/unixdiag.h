/*
 * unixdiag.h - whether a socket file's socket belongs to the caller's
 * network namespace (unixdiag.c).
 */
#ifndef CORDON_UNIXDIAG_H
#define CORDON_UNIXDIAG_H

#include <stdbool.h>
#include <sys/types.h>

/**
 * unixdiag_bound_here - is a UNIX socket of the caller's network
 * namespace bound at the file @dev, @ino (st_dev, st_ino of the socket
 * file)?  Thread-safe; allocates nothing.
 * Return: 1 yes, 0 no, -errno when the kernel could not be asked.
 */
int unixdiag_bound_here(dev_t dev, ino_t ino);

#endif
