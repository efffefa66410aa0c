/*
 * session_serve.h - a session's supervisor, outside the sandbox: its
 * clients, its calls, and the channel to pid 1 (session_serve.c).
 */
#ifndef CORDON_SESSION_SERVE_H
#define CORDON_SESSION_SERVE_H

#include <stdbool.h>

#include "enforce/session/session_state.h"

/* Serve until stopped, idle, or the sandbox ends. */
void session_serve(struct session *s);

/* What crosses into the supervisor, parsed by the two functions below
 * (the session's loop calls them; tests/fuzz/fuzz_session.c drives them
 * with any bytes): */
/* Client @k's requests: the lines and descriptors waiting on k->fd
 * (non-blocking), each taken, validated and answered or refused. */
void session_client_input(struct session *s, struct client *k);
/* One message from pid 1 on s->chan, from inside: untrusted, taken only
 * whole, of a call it was given, its values in range.  Return: false
 * when pid 1 is gone. */
bool session_pid1_input(struct session *s);

/* End pid 1 (and the namespace), answer every client, remove the
 * session's files. */
void session_end(struct session *s);

#endif
