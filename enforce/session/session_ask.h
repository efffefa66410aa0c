/*
 * session_ask.h - --ask in a session (session_ask.c): the proxy's
 * question goes to the caller of the call that caused it, through the
 * protocol.
 */
#ifndef CORDON_SESSION_ASK_H
#define CORDON_SESSION_ASK_H

#include <jansson.h>

#include "enforce/session/session_state.h"

/* Before the sandbox (and its gate) is made: the proxy told to ask @s's
 * callers. */
void session_ask_start(struct session *s);

/* The loop, woken: a question waiting is sent to its caller. */
void session_ask_flush(struct session *s);

/* Client @k's {"op": "answer", "id": N, "allow": ...}.  Return: NULL,
 * or the reason the request is refused (an answer to a question no
 * longer waiting is ignored). */
const char *session_ask_answer(struct session *s, struct client *k,
			       json_t *req);

/* With s->mu held: a call's pid is known (a question waiting for its
 * call looks again). */
void session_ask_started(struct session *s);

/* The session ends: a question waiting is answered no. */
void session_ask_stop(struct session *s);

#endif
