/*
 * session.h - sessions (enforce/session/): a sandbox prepared once, in
 * which many commands run; the folder's whole interface (session.c: the
 * supervisor; session_pid1.c: its pid 1;
 * session_client.c: run --session, stop, list; session_proto.h: what
 * crosses between them).
 */
#ifndef CORDON_SESSION_H
#define CORDON_SESSION_H

#include "enforce/cli/cli.h"

int session_start(struct cli *c);
int session_stop(struct cli *c);
int session_list(struct cli *c);
int session_run(struct cli *c);

/* In the session's pid 1, once the boundary is installed: serve the
 * supervisor's calls on @chan until it goes (session_pid1.c). */
int session_pid1(struct cli *c, int chan);

#endif
