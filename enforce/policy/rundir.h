/*
 * rundir.h - the directories cordon listens in and keeps its sockets'
 * identities in, chosen where no sandbox can bind or rename (rundir.c).
 */
#ifndef CORDON_RUNDIR_H
#define CORDON_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include "shim/core/path.h"
#include "shim/core/policy.h"

struct rundir {
	char path[PATH_BUF];
	int fd; /* the directory, O_DIRECTORY, held for the process */
	dev_t dev;
	ino_t ino;
};

/**
 * rundir_get - the directory of cordon's sockets (a session's control
 * socket, a run's report socket), chosen and checked once a process:
 * $XDG_RUNTIME_DIR/cordon, else /run/user/UID/cordon, when that
 * runtime directory is trusted (rundir_open_trusted()) and no default
 * writable root of a run (/tmp, /var/tmp, /dev/shm, $TMPDIR) holds it;
 * else the private state directory's "run".  An $XDG_RUNTIME_DIR
 * refused is said in one line, once for each value (a mark in the
 * directory chosen).
 * Return: 0 with *@out set, or -errno with a one-line reason in @err.
 */
int rundir_get(const struct rundir **out, char *err, size_t errlen);

/**
 * rundir_report - the directory of a run's report socket, which the
 * shim reaches by path: rundir_get()'s when a name fits after it in
 * @room bytes; else /tmp/cordon-UID (0700, checked; a sibling sandbox
 * may rename it: the run protects it, and the shim checks the socket's
 * identity before each record).  Its path into @path, its descriptor
 * into *@fd (held for the process: never closed).
 * Return: 0, or -errno with a one-line reason in @err.
 */
int rundir_report(size_t room, char path[PATH_BUF], int *fd, char *err,
		  size_t errlen);

/**
 * rundir_state_sub - cordon's private state directory's @sub (made
 * 0700), checked as rundir_get() checks its own: opened into *@fd and
 * its path in @path.
 * Return: 0, or -errno with a one-line reason in @err.
 */
int rundir_state_sub(const char *sub, char path[PATH_BUF], int *fd, char *err,
		     size_t errlen);

/**
 * rundir_open_trusted - open @path, an absolute path in normal form,
 * component by component (O_NOFOLLOW: no symlink anywhere), each
 * directory above it owned by root or this user and writable by no one
 * else (a world-writable /tmp fails), @path itself this user's and
 * writable by no one else; and not in a default writable root of a run.
 * Return: an O_PATH descriptor of it, or -errno with the reason in @why.
 */
int rundir_open_trusted(const char *path, char *why, size_t len);

/* The address of @name in the directory @dirfd, through the descriptor
 * ("/proc/self/fd/N/NAME"): a bind or a connect that no rename of a
 * directory above can redirect, whatever the path's length.
 * Return: the address's length, or -ENAMETOOLONG. */
int rundir_addr(int dirfd, const char *name, struct sockaddr_un *sa);

/* Does @p reach the directory @dir: a root that lets the command write
 * in it or connect to a socket in it?  Such a run is refused. */
bool rundir_reached(const struct policy *p, const char *dir);

/* Protect (protect.h) every directory a run of this user may keep its
 * sockets in, whatever its environment: $XDG_RUNTIME_DIR/cordon,
 * /run/user/UID/cordon. */
int rundir_protect(struct policy *p);

#endif
