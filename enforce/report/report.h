/*
 * report.h - what the command's processes report, kept outside the sandbox
 * (enforce/report/): the supervisor, the audit log and its budget, the tally
 * and the summary said when the command ends.
 *
 * One header, the folder's whole interface: the rest of cordon includes
 * this and nothing else of enforce/report/.  Its parts, each with the file
 * that implements it, follow.
 */
#ifndef CORDON_ENFORCE_REPORT_H
#define CORDON_ENFORCE_REPORT_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shim/core/path.h"
#include "shim/core/policy.h"

/*
 * auditlog.c - the audit log file (auditlog.c): opened once, outside,
 * never through a symbolic link, appended to a line at a time, and
 * rotated when it passes AUDITLOG_SIZE_MAX, so that no run, nor any
 * number of runs, fills the disk.
 *
 * What a log is at most: FILE, FILE.1 and FILE.2 (AUDITLOG_KEEP old
 * files), each AUDITLOG_SIZE_MAX and one record (RECORD_DATAGRAM_MAX
 * escaped, at most 96 KiB) at most; what a rotation drops is FILE.2,
 * the oldest.  A file that is not a regular one (/dev/null, a pipe, a
 * terminal) is never rotated: it fills no disk.
 */

#define AUDITLOG_SIZE_MAX (16u << 20) /* bytes of FILE before it rotates */
#define AUDITLOG_KEEP	  2	      /* old files kept: FILE.1, FILE.2 */

struct auditlog {
	int fd;	   /* the file, O_APPEND; -1: none */
	int dirfd; /* its directory; -1: the file is never rotated */
	char name[NAME_MAX + 1]; /* its name in dirfd */
	size_t rotations;	 /* this process made */
};

#define AUDITLOG_NONE ((struct auditlog){ .fd = -1, .dirfd = -1 })

/**
 * auditlog_open - open @path for appending (created 0600), through the
 * directory its name lies in, never following a symbolic link in its
 * last component.
 * Return: 0, or -errno (-ELOOP: a symbolic link; -EISDIR: no file
 * name).
 */
int auditlog_open(struct auditlog *l, const char *path);

/**
 * auditlog_append - @line (@len bytes, ending in '\n') at the end of the
 * file that is the log now, under an exclusive flock(2) on it: the file
 * at the log's name (another run may have rotated it), rotated first
 * when the line would take it past AUDITLOG_SIZE_MAX.  A line cut short
 * by an error is ended, so that the next one starts on a line of its
 * own.  @done: the bytes written.
 * Return: 0, or -errno (then nothing more than @done was written).
 */
int auditlog_append(struct auditlog *l, const char *line, size_t len,
		    size_t *done);

void auditlog_close(struct auditlog *l);

/*
 * budget.c - what each source of records may write to the audit log
 * (budget.c): in a run, in each call of a session and in the whole
 * session.  One mechanism for every writer: the supervisor asks it
 * before each record it would write, whoever made the record.
 *
 * A source is the kind of record (budget_source_of()): the command's
 * reports (the shim's, from inside), the broker's refusals on paths,
 * the proxy's refusals, the refused listen()s, the launcher's own notes.
 * Of the supervisor's sources, a record that says what one written
 * already said (the same source, call, operation, path as given and
 * resolved, destination) is not written again: it is counted under the
 * one written.  The shim sends one record per (operation, path) per
 * process itself, and the supervisor cannot tell its processes apart in
 * a plain run: its reports are not compared.  Past a source's limits
 * (BUDGET_RECORDS, BUDGET_BYTES; a session BUDGET_SESSION_SCALE times
 * them, each of its calls them once) nothing more of it is written.
 * What was not written is counted, per source, per call and in all, and
 * said in a record of its own ("operation": "dropped",
 * budget_dropped()) and in the summary.
 */

enum budget_source {
	BUDGET_SHIM,	 /* the command's reports (record_parse()) */
	BUDGET_BROKER,	 /* the broker's refusals on a path */
	BUDGET_PROXY,	 /* the proxy's refusals on a destination */
	BUDGET_LISTEN,	 /* the broker's refused listen() */
	BUDGET_LAUNCHER, /* the launcher's own: git plants, SIGSYS */
	BUDGET_SOURCES,
};

/* A run's, and a call's of a session; the shim's are the limits the
 * reports have had since the report socket was made. */
#define BUDGET_SHIM_RECORDS  10000
#define BUDGET_SHIM_BYTES    (16u << 20)
#define BUDGET_OWN_RECORDS   1000 /* each of the other sources */
#define BUDGET_OWN_BYTES     (1u << 20)
#define BUDGET_SESSION_SCALE 4	/* a session's, times a run's */
#define BUDGET_CALLS	     64 /* calls counted apart at once */
#define BUDGET_REPEATED	     8	/* records repeated most, listed */

struct budget_count {
	size_t written;	 /* records written */
	size_t bytes;	 /* their bytes */
	size_t repeats;	 /* not written: as one written said */
	size_t over;	 /* not written: past the limits */
	size_t rejected; /* not valid records (the shim's) */
};

struct budget_key; /* budget.c */

struct budget {
	unsigned int scale; /* 1: a run; BUDGET_SESSION_SCALE: a session */
	struct budget_count all[BUDGET_SOURCES];
	struct {
		uint32_t call; /* 0: a free slot */
		struct budget_count of[BUDGET_SOURCES];
	} calls[BUDGET_CALLS];
	struct budget_key **keys; /* the records written, to compare */
	size_t nkeys, slots;
	uint64_t seed[2];
};

enum budget_verdict { BUDGET_WRITE, BUDGET_REPEAT, BUDGET_OVER };

/* Start counting, for a run (@scale 1) or a session. */
void budget_init(struct budget *b, unsigned int scale);

void budget_free(struct budget *b);

/* Which source @rec (a record of the supervisor's, record_new()) is. */
enum budget_source budget_source_of(const json_t *rec);

/* The name of @src in records and the summary: "shim", "broker"... */
const char *budget_name(enum budget_source src);

/* Has @src used up the run's (the session's) limits?  Then a record of
 * it need not even be read: budget_over() counts it. */
bool budget_full(const struct budget *b, enum budget_source src);

void budget_over(struct budget *b, enum budget_source src);

void budget_reject(struct budget *b, enum budget_source src);

/**
 * budget_take - may @rec of @src, @len bytes once dumped, be written?
 * Counted either way, in all and under the record's "call".
 * Return: BUDGET_WRITE, or why not.
 */
enum budget_verdict budget_take(struct budget *b, enum budget_source src,
				const json_t *rec, size_t len);

/* What @src did not write in call @call (0: in all); NULL for a call
 * that is not counted. */
const struct budget_count *budget_of(const struct budget *b,
				     enum budget_source src, uint32_t call);

/* Has the count anything not written? */
bool budget_lost(const struct budget_count *c);

/**
 * budget_dropped - the record that says what @src did not write in call
 * @call (0: the run, the session): the counts, the limits and the
 * records repeated most, each with how often it was made.
 * Return: the record (record_new()), or NULL when nothing was lost.
 */
json_t *budget_dropped(const struct budget *b, enum budget_source src,
		       uint32_t call);

/* Call @call has ended: its slot is free again. */
void budget_end_call(struct budget *b, uint32_t call);

/*
 * tally.c - what the command's reports said, counted while it runs:
 * supervise.c notes each report it keeps, summary.c prints the count
 * when the command ends.
 *
 * Every string here came from inside the sandbox: it is kept as text
 * and escaped only where it is printed.
 */

#define TALLY_UNSHIMMED_MAX 16
#define TALLY_RULES_KEPT    32	/* distinct rules counted */
#define TALLY_PATHS_KEPT    32	/* distinct paths counted per rule */
#define TALLY_OPTIONS_MAX   256 /* distinct options kept */
#define TALLY_PORTS_MAX	    64	/* as the policy's port lists */
#define TALLY_SHADOWED_MAX  8

/* No option allows the target (RULE_NO_OPTION), or it was not kept. */
#define TALLY_NO_OPTION (-1)
#define TALLY_LOST	(-2)
#define TALLY_NO_LINK	(-3) /* RULE_NO_LINK: a hard link across mounts */
/* No option, for a reason of the record's own (a raw socket, an
 * abstract UNIX socket of a process outside): its rule says it. */
#define TALLY_NO_GRANT (-4)

struct tally_target {
	char what[256]; /* the resolved path, or the destination */
	int option;	/* in tally.options, or TALLY_NO_OPTION, TALLY_LOST */
	size_t count;
	bool acted; /* a record that was no look-up (see "probe") */
};

/*
 * An option that allows a denial, computed outside from the record's
 * operation, need and resolved path (rule_put_option(), the shim's own
 * code) or from its network option read as a port: never the record's
 * text, which came from inside.
 */
struct tally_option {
	enum {
		TALLY_PATH,
		TALLY_NET,
		TALLY_CONNECT,
		TALLY_BIND,
		TALLY_HOST,
		TALLY_ENV
	} kind;
	unsigned int rights; /* a path's: the flag's RIGHT_* */
	char *path;	   /* a path's, canonical; a host's rule (allocated) */
	const char *text;  /* "--write '/a b'", "--connect 443" (allocated) */
	unsigned int port; /* TALLY_CONNECT, TALLY_BIND */
	bool udp;	   /* ... of a UDP port ("--connect udp:53") */
	/* the built-in profile that grants a tool's root (toolroot.h), or
	 * NULL */
	const char *profile;
	/* a record that was no look-up needs it: look-ups a program went
	 * on from (a stat, an access(), a bind to port 0) are no reason to
	 * grant, and the summed-up options leave them out */
	bool acted;
	bool wide; /* it grants all of /, $HOME or /proc: said so */
};

struct tally_group {
	char rule[256];
	size_t count; /* every denial under the rule, kept targets or not */
	struct tally_target targets[TALLY_PATHS_KEPT];
	size_t ntargets;
};

struct tally {
	size_t denials;	       /* of the kept reports, denials */
	size_t kernel_denials; /* of them, observed as the kernel's */
	bool last_lookup;      /* the last of them a path only to be seen */
	int last_option;       /* the last denial's option (or < 0) */
	/* PATH entries the policy hides whose commands others run in place
	 * of the user's (shadow.c): a look-up there is needed */
	char shadowed[TALLY_SHADOWED_MAX][512];
	size_t nshadowed;
	size_t lookups; /* denials that were look-ups (see "probe") */
	struct {
		char program[256];
		const char *why; /* "static or foreign binary", "SIP: ..." */
	} unshimmed[TALLY_UNSHIMMED_MAX];
	size_t nunshimmed;
	struct tally_group groups[TALLY_RULES_KEPT];
	size_t ngroups;
	/* the run's policy (its protections decide an option), set by the
	 * launcher before the first report; NULL: none known */
	const struct policy *policy;
	struct tally_option options[TALLY_OPTIONS_MAX];
	size_t noptions;
	size_t options_lost; /* distinct options past TALLY_OPTIONS_MAX */
};

/* Start counting: the counts only.  A group, a target or a program is
 * set up as it is taken, so the tables (570 KB) are not touched before
 * a report needs them: clearing them cost every start a quarter of a
 * millisecond in page faults. */
void tally_init(struct tally *t);

/* Count @record, a report kept from the shim: a denial under its rule
 * and target, a program run without the shim, or a learned access
 * (learn.h). */
void tally_note(struct tally *t, json_t *record);

/* Hand every "learn" record tally_note() sees to @note (NULL: drop
 * them): `cordon learn` (learn.c) registers itself here, so that the
 * reports never call up into it. */
void tally_learn_to(void (*note)(json_t *record));

/* Does @path lie in one of @own (NULL-ended: cordon's audit log and
 * state), which no option grants? */
bool tally_is_own(const char *path, const char *const own[]);

/* Note @dir, a PATH entry that shadows commands (shadow.c). */
void tally_shadowed(struct tally *t, const char *dir);

/* Does a denial need options[@i]: one that was no look-up, or the run's
 * last one (which may be what stopped the command)? */
bool tally_needed(const struct tally *t, size_t i);

/**
 * tally_options - every option of @t that no other implies (a root
 * grants the union of the rights of every root above a path: a --write
 * of a directory implies a --read below it; an option naming or lying
 * below a protection is kept, a root above one does not lift it) and
 * that names nothing in @own (tally_is_own()), the ports of each kind in
 * one list, separated by spaces: "--read /a --write '/b c' --connect
 * 80,443".  Free with free().
 * Return: the text, or NULL when there is none (or no memory).
 */
char *tally_options(const struct tally *t, const char *const own[]);

/* Free what the options of @t hold (a tally that does not live until
 * the end: a session's call's). */
void tally_free(struct tally *t);

/* Put the groups, and the targets of each, most frequent first. */
void tally_sort(struct tally *t);

/*
 * supervise.c - the launcher's parent half: the report socket, the audit
 * log, the wait for the command, the summary.  Reports come from inside
 * the sandbox: they are validated and bounded (record.h) before they
 * reach the log, and escaped before they reach the terminal.
 */

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

/*
 * summary.c - what the launcher says when the command ends (summary.c),
 * from the supervisor's counts and its tally of the reports.
 */

/* The end-of-run summary on stderr; nothing when there is nothing. */
void summary_print(struct supervisor *s);

/**
 * summary_of_call - the summary of one call of a session, from its own
 * tally @t (NULL: none; @own_denials of them the supervisor's) and what
 * each source did not write of it (@lost, or NULL): the lines a plain
 * run prints at its end, naming the call, for the caller to print.
 * The log's errors are the session's, said at its end.
 * Return: the text (free() it), or NULL when there is nothing to say.
 */
char *summary_of_call(const struct supervisor *s, struct tally *t,
		      size_t own_denials, const char *session, uint32_t call,
		      const struct budget_count lost[BUDGET_SOURCES]);

#endif
