/*
 * session_state.h - what a session's supervisor holds (session_state.c):
 * the session, its clients and their calls, and a reply to a client.
 * The supervisor's loop (session_serve.c) and the notes of its calls
 * (session_note.c) both work on it; neither calls the other through it.
 */
#ifndef CORDON_SESSION_STATE_H
#define CORDON_SESSION_STATE_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "enforce/cli/cli.h"
#include "enforce/run/run.h"
#include "enforce/session/session_proto.h"
#include "enforce/report/report.h"

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
	bool asks; /* its caller answers --ask's questions ("ask": true) */
};

/* --ask: the one question the proxy's asker thread waits on, under
 * s->mu (session_ask.c). */
struct session_question {
	pthread_cond_t answered;
	uint32_t id;   /* the last one asked (0: none yet) */
	int client;    /* the asked call's client, -1: none waits */
	uint32_t call; /* that client's call when asked */
	bool sent;     /* {"ask": ...} is on its way */
	bool over;     /* the session ends: every question is no */
	int answer;    /* -1: none yet, else ASK_NO, ASK_YES, ASK_ALWAYS */
	char spec[PROXY_DEST_MAX];
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
	struct session_question q;
};

/* Send @doc (taken) to client @k, one line, if it is still there. */
void session_reply(struct client *k, json_t *doc);

/* Send @doc (taken) to client @k, one line, with the descriptor @fd
 * (-1: none).  Return: 0, or -errno (-EPIPE: the client is gone). */
int session_reply_fd(struct client *k, json_t *doc, int fd);

#endif
