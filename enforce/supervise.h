/*
 * supervise.h - the launcher's parent half: the report socket, the audit
 * log, the wait for the command, the summary.
 */
#ifndef CORDON_SUPERVISE_H
#define CORDON_SUPERVISE_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

#include "path.h"

#define SUPERVISE_UNSHIMMED_MAX 16

struct supervisor {
	int sock;	    /* datagrams from the shims */
	int logfd;	    /* the audit log, append-only */
	char sockpath[108]; /* sun_path */
	char logpath[PATH_BUF];
	size_t records;	       /* kept in the log */
	size_t denials;	       /* of them, denials */
	size_t kernel_denials; /* of them, observed as the kernel's */
	struct {
		char program[256];
		const char *why; /* "static or foreign binary", "SIP: ..." */
	} unshimmed[SUPERVISE_UNSHIMMED_MAX];
	size_t nunshimmed;
};

/* ~/.local/state/cordon/audit.jsonl ($XDG_STATE_HOME), its dir created. */
int supervise_default_log(char out[PATH_BUF]);

/**
 * supervise_prepare - open @log (NULL: the default) for appending and
 * bind the report socket, before the fork.
 * Return: 0, or -errno with a one-line reason in @err.
 */
int supervise_prepare(struct supervisor *s, const char *log, char *err,
		      size_t errlen);

/* Serve the socket until @pid ends; return its status as env(1) would. */
int supervise_wait(struct supervisor *s, pid_t pid);

/* Take note of a kept record for the summary. */
void supervise_note(struct supervisor *s, json_t *record);

/* The end-of-run summary on stderr; nothing when there is nothing. */
void supervise_summary(const struct supervisor *s);

void supervise_close(struct supervisor *s);

#endif
