/*
 * session_serve.h - a session's supervisor, outside the sandbox: its
 * clients, its calls, and the channel to pid 1 (session_serve.c).
 */
#ifndef CORDON_SESSION_SERVE_H
#define CORDON_SESSION_SERVE_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "enforce/cli/cli.h"
#include "enforce/run/launch.h"
#include "enforce/session/session_proto.h"
#include "enforce/report/supervise.h"

/* The proxy's lines kept per call, and their length (hostgate_line()) */
#define SESSION_LINES_KEPT 16
#define SESSION_NOTE_LINE  1024
#define PROXY_DEST_MAX	   (256 + 8) /* PROXY_HOST_MAX and ":PORT" */

struct session_note;

struct client {
	int fd; /* -1: gone (its call may still run) */
	struct session_line line;
	uint32_t call;	/* 0: none */
	bool running;	/* its call has not ended */
	pid_t pid;	/* the call's, in the namespace (pid 1's word) */
	pid_t host_pid; /* the same process as this process sees it, once
			 * found (session_tag()), or 0 */
	struct session_note *note; /* its call's records (session_note.c) */
};

struct session {
	char id[SESSION_ID_LEN + 1];
	char sockpath[108];
	struct cli *c;
	struct launch l;
	struct supervisor sup;
	int listen_fd, chan, pidfd;
	pid_t pid1;
	long idle; /* seconds, 0: none */
	struct timespec last;
	uint32_t calls; /* started so far */
	size_t running;
	struct client clients[SESSION_CLIENTS_MAX];
	int stopper; /* the client that asked to stop, or -1 */
	/* the clients' notes, and what other threads read of a client
	 * (session_tag(), session_note()) */
	pthread_mutex_t mu;
	int wake; /* an eventfd: a note has a line to send */
};

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

/* The supervisor's tag (supervise.h): the session and the call. */
void session_tag(void *arg, json_t *rec);

/* Send @doc (taken) to client @k, one line, if it is still there. */
void session_reply(struct client *k, json_t *doc);

/* The supervisor's note (supervise.h): @rec counted for its call, and
 * a line of the proxy queued for its caller. */
void session_note(void *arg, json_t *rec, bool own);

/* Send the lines queued, each as {"line": "..."} to its call's client. */
void session_note_flush(struct session *s);

/* Client @k's call has ended: the summary of its denials (free() it),
 * or NULL; its note is freed. */
char *session_note_take(struct session *s, struct client *k);

#endif
