/*
 * supervise.h - the launcher's parent half: the report socket, the audit
 * log, the wait for the command, the summary.  Reports come from inside
 * the sandbox: they are validated and bounded (record.h) before they
 * reach the log, and escaped before they reach the terminal.
 */
#ifndef CORDON_SUPERVISE_H
#define CORDON_SUPERVISE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "enforce/report/auditlog.h"
#include "enforce/report/budget.h"
#include "enforce/report/tally.h"
#include "shim/core/path.h"
#include "shim/core/policy.h"

/* What the command's wait status says of SIGSYS, the seccomp filter's
 * kill (sysfilter.c: a system call of another architecture). */
enum supervise_sigsys {
	SUPERVISE_NO_SIGSYS,
	/* the kernel's own wait status: killed by SIGSYS */
	SUPERVISE_KILLED_BY_SIGSYS,
	/* exit 128+SIGSYS relayed by the namespace's pid 1, or the
	 * command's own exit(159) */
	SUPERVISE_EXIT_159,
};

#define SUPERVISE_SIGSYS_RULE                                                  \
	"a system call refused by the seccomp filter (the process was killed)"
#define SUPERVISE_SIGSYS_RELAYED                                               \
	"exit status 159: what the namespace's pid 1 relays when the seccomp " \
	"filter killed the command with SIGSYS (a system call it refused), "   \
	"and what the command may exit with itself: from outside, the two "    \
	"cannot be told apart"

struct supervisor {
	int sock;			  /* datagrams from the shims */
	struct auditlog log;		  /* the audit log, append-only */
	char sockpath[108];		  /* sun_path */
	int sockdir;			  /* its directory (rundir.h), held */
	unsigned long sock_dev, sock_ino; /* its file, as bound */
	char logpath[PATH_BUF];
	struct budget budget;	  /* what each source may write (budget.h) */
	size_t records;		  /* written to the log, every source */
	size_t unwritten;	  /* records the log did not take */
	int write_err;		  /* the errno of the last of them */
	size_t denials_unwritten; /* of tally.denials, not in the log (the
				   * log's errors, the budget's drops) */
	size_t own_denials;	  /* of tally.denials, the supervisor's own
				   * (the broker's, the proxy's) */
	enum supervise_sigsys sigsys;
	/* a session's: adds its fields to every record before it is
	 * written (the session, the call), or NULL */
	void (*tag)(void *arg, json_t *rec);
	void *tag_arg;
	/* a session's: each record counted for the summary (@own: the
	 * supervisor's), once tagged, under the log's lock (from the
	 * broker's and the proxy's threads too), or NULL */
	void (*note)(void *arg, json_t *rec, bool own);
	/* a session's: the kernel's word on each report's sender
	 * (SO_PASSCRED), its pid as this process sees it in @sender while
	 * the report is tagged and noted; 0 for the supervisor's own */
	bool creds;
	pid_t sender;
	struct tally tally; /* what the kept reports said; the last
			     * member (supervise_prepare) */
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

/* The directory of the report socket supervise_prepare() bound, in
 * @out.  Return: 0, or -ENOENT when there is none. */
int supervise_socket_dir(const struct supervisor *s, char out[PATH_BUF]);

/* Serve the socket until @pid ends; return its status as env(1) would. */
int supervise_wait(struct supervisor *s, pid_t pid);

/* Read what the shims have sent (a batch at most), as supervise_wait()
 * does: for a supervisor that polls the socket itself (a session). */
void supervise_drain(struct supervisor *s);

/* Ask the kernel for each report's sender (a session's tag). */
int supervise_want_creds(struct supervisor *s);

/* A record of what the log lacks of each source (budget_dropped()),
 * when anything; supervise_wait() writes them at the end of a run, a
 * session at its end. */
void supervise_note_losses(struct supervisor *s);

/* Call @call of a session has ended: what each source did not write in
 * it, into @lost (the summary's), and in the log, a record each. */
void supervise_note_call_losses(struct supervisor *s, uint32_t call,
				struct budget_count lost[BUDGET_SOURCES]);

/* Append @rec, a record of the launcher's own (record_new()), to the
 * log, and take it (json_decref).  Nothing without a log (--no-shim). */
void supervise_record(struct supervisor *s, json_t *rec);

/* The same for a denial the broker made (sockgate.h), from one of its
 * threads: counted for the summary too.  @arg is the supervisor. */
void supervise_broker_record(void *arg, json_t *rec);

/* Once the command and everything it started have ended: move aside
 * what it planted for git outside (gitguard.h), one WARNING line and a
 * record of the launcher's own each. */
void supervise_sweep(struct supervisor *s, const struct policy *p);

void supervise_close(struct supervisor *s);

/* At the end of a run or a session: if the report socket's file is not
 * the one bound any more (moved, replaced), say it in one line and in a
 * record of the launcher's own: reports after that were not sent. */
void supervise_report_check(struct supervisor *s);

#endif
