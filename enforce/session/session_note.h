/*
 * session_note.h - what each call of a session says, as a plain run
 * would (session_note.c): the records tagged with their call, the
 * proxy's lines queued for its caller, its summary when it ends.
 */
#ifndef CORDON_SESSION_NOTE_H
#define CORDON_SESSION_NOTE_H

#include <jansson.h>
#include <stdbool.h>

#include "enforce/session/session_state.h"

/* The supervisor's tag (supervise.h): the session and the call. */
void session_tag(void *arg, json_t *rec);

/* The supervisor's note (supervise.h): @rec counted for its call, and
 * a line of the proxy queued for its caller. */
void session_note(void *arg, json_t *rec, bool own);

/* With s->mu held: the running call whose process holds the socket of
 * @port in the session's network namespace (a TCP connection's, @udp: a
 * UDP socket's), or NULL. */
struct client *session_note_call_of_port(struct session *s, unsigned int port,
					 bool udp);

/* Send the lines queued, each as {"line": "..."} to its call's client. */
void session_note_flush(struct session *s);

/* Client @k's call has ended: the summary of its denials (free() it),
 * or NULL; its note is freed. */
char *session_note_take(struct session *s, struct client *k);

#endif
