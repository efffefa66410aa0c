/*
 * session_state.c - a reply to a session's client (session_state.h):
 * one JSON line, written blocking (the client waits for it), with a
 * descriptor when there is one to hand over.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/session/session_proto.h"
#include "enforce/session/session_state.h"

int session_reply_fd(struct client *k, json_t *doc, int fd)
{
	char *line = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	size_t len = line ? strlen(line) : 0;
	int ret;

	json_decref(doc);
	if (!line || k->fd < 0) {
		free(line);
		return -EPIPE;
	}
	line[len] = '\n'; /* json_dumps' NUL: replaced, not sent */
	/* the client waits for it: a short blocking write */
	fcntl(k->fd, F_SETFL, 0);
	ret = session_send(k->fd, line, len + 1, &fd, fd >= 0);
	fcntl(k->fd, F_SETFL, O_NONBLOCK);
	free(line);
	return ret;
}

void session_reply(struct client *k, json_t *doc)
{
	session_reply_fd(k, doc, -1);
}
