/*
 * session_proto.h - what crosses between a session's parts.
 *
 *  - client <-> supervisor, over the session's socket (a UNIX stream
 *    socket, mode 0600 in a 0700 directory): one line of JSON per
 *    request, at most SESSION_LINE_MAX bytes; a "run" request carries
 *    the caller's descriptors 0, 1 and 2 (SCM_RIGHTS) with its first
 *    bytes; the answer {"tty": true} carries the master of the call's
 *    pty (session_pty.c).  The supervisor answers in lines of JSON
 *    (doc/session-protocol.md).
 *  - supervisor <-> pid 1, over a SOCK_SEQPACKET socketpair made before
 *    the fork: one message per datagram, a struct session_msg head and
 *    for SESSION_SPAWN the call's strings.  What pid 1 sends comes from
 *    inside the command's namespaces: the supervisor takes it as
 *    untrusted (fixed size, each field checked).
 */
#ifndef CORDON_SESSION_PROTO_H
#define CORDON_SESSION_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shim/core/path.h"

#define SESSION_ID_LEN	    16		/* hex digits */
#define SESSION_LINE_MAX    (64 << 10)	/* a request, JSON */
#define SESSION_SPAWN_MAX   (128 << 10) /* argv, env and cwd to pid 1 */
#define SESSION_ARGS_MAX    4096	/* words of argv, variables */
#define SESSION_CALLS_MAX   64		/* running at once */
#define SESSION_CLIENTS_MAX 64		/* connections at once */

enum session_msg_type {
	/* supervisor -> pid 1 */
	SESSION_SPAWN = 1, /* + "cwd\0argv...\0\0env...\0", 3 fds */
	SESSION_SIGNAL,	   /* value: the signal, to the call's group */
	/* pid 1 -> supervisor */
	SESSION_READY,	 /* pid 1 is inside the whole boundary */
	SESSION_STARTED, /* value: the call's pid (in the namespace) */
	SESSION_EXITED,	 /* value: its status, as env(1) (0..255) */
};

struct session_msg {
	uint32_t type;
	uint32_t call;
	int32_t value;
	uint32_t len; /* of what follows, SESSION_SPAWN only */
};

/* A session id: SESSION_ID_LEN lowercase hex digits. */
bool session_id_valid(const char *id);

/* A new random id into @out (SESSION_ID_LEN + 1 bytes). */
int session_id_new(char *out);

/**
 * session_dir - where the sessions' sockets live: rundir_get()'s
 * directory ($XDG_RUNTIME_DIR/cordon when trusted, else cordon's
 * private state directory's "run"), made 0700 and checked.
 * Return: 0, or -errno after one line on stderr.
 */
int session_dir(char out[PATH_BUF]);

/* The socket of session @id, into @out (108 bytes); -ENAMETOOLONG
 * when it does not fit a socket address. */
int session_sock_path(const char *id, char out[108]);

/* Send @len bytes of @buf on the stream @fd, @nfds descriptors of @fds
 * with the first bytes.  Return: 0 or -errno. */
int session_send(int fd, const void *buf, size_t len, const int *fds, int nfds);

/* A line read from a stream, with the descriptors that came with it. */
struct session_line {
	char *buf; /* SESSION_LINE_MAX + 1 bytes */
	size_t len;
	size_t used; /* the line returned, its newline included */
	int fds[3];
	int nfds; /* -1: more came than a request may carry */
};

/**
 * session_read_line - read from @fd into @l until a newline: 1 when a
 * whole line is in l->buf (NUL-terminated, the newline removed; what
 * came after it is kept for the next call), 0 when more is needed (a
 * non-blocking @fd), -EOF... -errno on an error, -EPIPE at the end of
 * the stream, -EMSGSIZE when the line is too long.  Descriptors that
 * come are kept in l->fds (close-on-exec); beyond three, all are closed
 * and l->nfds is -1.
 */
int session_read_line(int fd, struct session_line *l);

/* Drop the line session_read_line() returned, keep what followed. */
void session_line_next(struct session_line *l);

/* Close the descriptors @l holds. */
void session_line_close_fds(struct session_line *l);

#endif
