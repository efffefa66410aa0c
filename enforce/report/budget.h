/*
 * budget.h - what each source of records may write to the audit log
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
#ifndef CORDON_BUDGET_H
#define CORDON_BUDGET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
