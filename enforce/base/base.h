/*
 * base.h - what every part of the launcher uses (enforce/base/): where the
 * user's files are, the platform's boundary as the launcher sees it, /proc,
 * the audit records, removing a tree, saying an error, running the command.
 *
 * One header, the folder's whole interface: the rest of cordon includes
 * this and nothing else of enforce/base/.  Its parts, each with the file
 * that implements it, follow.
 */
#ifndef CORDON_ENFORCE_BASE_H
#define CORDON_ENFORCE_BASE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "shim/core/feature.h"
#include "shim/core/path.h"
#include "shim/core/policy.h"

/*
 * home.c - where the user's files and cordon's own state are (home.c):
 * the home directory, "~" expanded, the state directory, and mkdir -p.
 * Every part of the launcher asks here; nothing here decides a policy.
 */

/* $HOME when it is absolute, else the password database's; NULL when
 * neither says. */
const char *home_dir(void);

/* @path with a leading "~" (alone or before '/') replaced by
 * home_dir(), into @out.  Return: 0, -ENOENT (no home), -ENAMETOOLONG. */
int home_expand(const char *path, char out[PATH_BUF]);

/* cordon's state directory: $XDG_STATE_HOME/cordon when that is
 * absolute, else ~/.local/state/cordon.  Only its name: nothing made. */
int home_state_dir(char out[PATH_BUF]);

/* home_state_dir(), made (0700) if missing.  Return: 0, or -errno. */
int home_state_make(char out[PATH_BUF]);

/* mkdir -p @path; what it creates gets @mode.  Return: 0, or -errno. */
int home_mkdirs(char *path, mode_t mode);

/*
 * platform.h - the kernel boundary of one OS, as the launcher sees it.
 *
 * main.c knows only this seam.  On Linux (platform_linux.c) it is
 * Landlock, the seccomp filter, the capability drop and the namespaces;
 * on macOS (darwin/platform_darwin.c) it is the Seatbelt profile of
 * sbpl.c applied with sandbox_init().  It also names the running
 * executable and the shim's file, which differ by OS.  Each OS implements every
 * function here in a file of its own; the Makefile picks the files.
 */

/**
 * platform_features - find out what this kernel enforces, and describe
 * for policy @p what is needed and what holds into @s.
 * Return: the kernel's state, an opaque value that platform_enforce(),
 * platform_describe() and platform_hint() take (on Linux: the Landlock
 * ABI, or a negative errno when there is none).
 */
int platform_features(const struct policy *p, struct feature_set *s);

/**
 * platform_enforce - put the calling process (and what it will exec)
 * inside the boundary of @p: everything @s says holds, and nothing
 * less, or nothing at all.  @keep is the launcher's report socket (NULL
 * without the shim); @learning widens nothing here but leaves out what
 * would hide from the shim what it must record; @gate is the child's
 * end of the gate (platform_gate()), or -1.
 * Return: 0, or nonzero with one line in @err (empty when the refusal
 * of what @s counted on is said already).
 */
int platform_enforce(const struct policy *p, const struct feature_set *s,
		     int state, const char *keep, bool learning, int gate,
		     char *err, size_t errlen);

/**
 * platform_gate - does the boundary @s describes need a part in the
 * supervisor (on Linux: the broker of connects and sends to socket
 * files, sockgate.h)?  Then main.c makes a stream socketpair before the
 * fork, gives one end to platform_enforce() and the other, once forked,
 * to platform_gate_serve().  Never while @learning.
 */
bool platform_gate(const struct feature_set *s, const struct policy *p,
		   bool learning);

/* Serve the gate's end @fd with @p, records to @record(@arg); *@handle
 * for platform_gate_stop().  Return: 0, or -errno. */
int platform_gate_serve(int fd, const struct policy *p,
			void (*record)(void *arg, json_t *rec), void *arg,
			void **handle);
void platform_gate_stop(void *handle);

/* In the process platform_enforce() ran in, with hosts allowed and
 * capture wanted: NULL when every program's connections are captured
 * (enforce/linux/netcap.c), else why not. */
const char *platform_hosts_capture_why(void);

/* --ask: before the gate is served, what the proxy calls before a
 * refusal (from a thread of its own; nonzero: allow @spec).
 * @client_port: the asker's port inside, its TCP connection's or its
 * query's (@udp), or 0. */
void platform_hosts_ask(int (*ask)(const char *spec, unsigned int client_port,
				   bool udp));

/**
 * platform_roots - add to @p what exists only inside the boundary @s
 * describes (on Linux, with the namespaces: the controlling terminal
 * under /dev/console, devices.h); @learning as for platform_fork().
 * Return: 0, or -errno.
 */
int platform_roots(struct policy *p, const struct feature_set *s,
		   bool learning);

/**
 * platform_fork - fork() the process that will call platform_enforce()
 * with the same @s and @learning, made the cheapest way the platform
 * has (on Linux: born in its namespaces already).
 * Return: as fork(); -2 when the kernel refused what @s counted on (the
 * refusal is said: the caller leaves with 125).
 */
pid_t platform_fork(const struct feature_set *s, bool learning);

/**
 * platform_stays - true when the process platform_enforce() left must
 * outlive the command (on Linux: pid 1 of the command's PID namespace).
 * spawn_exec() then runs the command as its child, and
 * platform_relay() waits for it and leaves with its status.
 */
bool platform_stays(void);
void platform_relay(pid_t child) __attribute__((noreturn));

/* "Linux 6.1.0, Landlock ABI 2", "macOS 14.5, Seatbelt": the host, for
 * the refusal and --best-effort lines. */
void platform_describe(int state, char *buf, size_t len);

/* A hint line (without "hint: ") for a kernel in @state, or NULL. */
const char *platform_hint(int state);

/**
 * platform_self_exe - the path of the running executable (cordon
 * itself), which its protection and the search for the shim start from.
 * Return: 0 with the path in @out, or -errno.
 */
int platform_self_exe(char out[PATH_BUF]);

/* The shim's file name on this OS: "libcordon.so", "libcordon.dylib". */
const char *platform_shim_file(void);

/*
 * procfs.c - what the launcher reads of a process in /proc (procfs.c):
 * its parent, process group and terminal from "stat", its pid in its
 * innermost PID namespace from "status", its start time; this boot's
 * id, the mount a descriptor is on.  Pids as this process sees
 * them; a process gone is an error, never a guess.
 */

struct procfs_stat {
	pid_t ppid, pgrp;
	unsigned long long tty;	  /* tty_nr: the controlling terminal */
	unsigned long long start; /* starttime: with the pid, the process */
};

/* /proc/@pid/stat (@pid 0: this process's).  Return: 0, or -1. */
int procfs_stat(pid_t pid, struct procfs_stat *out);

/* @pid's pid in its innermost PID namespace ("NSpid:"'s last), and in
 * *@levels how many namespaces it is in.  Return: it, or -1. */
pid_t procfs_ns_pid(pid_t pid, int *levels);

/* The children of @pid's main thread (/proc/PID/task/PID/children),
 * at most @cap of them, into @out.  Return: how many, or -1. */
int procfs_children(pid_t pid, pid_t *out, size_t cap);

/* @pid's start time (clock ticks after boot: "stat"'s field 22), which
 * with its pid tells it from a later process of the same pid; 0 when
 * it is gone (or unreadable). */
unsigned long long procfs_start(pid_t pid);

/* "BOOT.NS": this boot's id (hex, 32 digits) and the inode of this
 * process's PID namespace, where its pids mean something.  Return: 0,
 * or -1 (no /proc). */
int procfs_boot_ns(char *out, size_t len);

/* The id of the mount the descriptor @fd is on (fdinfo's "mnt_id"):
 * a bind mount of the same file system has a device of its parent's
 * but an id of its own.  Return: 0, or -1. */
int procfs_mnt_id(int fd, unsigned long long *id);

/*
 * record.c - audit records that cross the trust line: each datagram a
 * shim sends from inside the sandbox is validated against the shape the
 * shim writes (shim/audit.c) and re-serialised by the supervisor, which
 * alone says where a record came from ("source").  The text of a record
 * is escaped again before it reaches a terminal.
 *
 * A record from inside is kept only when it is one JSON object (no
 * duplicate keys, no NUL in a string) holding exactly these fields:
 *   time       number >= 0 (seconds since the epoch)         required
 *   pid, ppid  integer 0..RECORD_PID_MAX                      required
 *   program    string, at most RECORD_TEXT_MAX bytes          required
 *   operation  1..RECORD_NAME_MAX bytes of [A-Za-z0-9_.$-]    required
 *   verdict    "deny", "learn" (cordon learn) or "note"
 *              (the exec-unshimmed records)                   required
 *   rule       string, at most RECORD_TEXT_MAX bytes          required
 *   layer      "shim" or "kernel"                             required
 *   allow      string, at most RECORD_TEXT_MAX bytes          optional
 * and either a network destination
 *   destination  string, at most RECORD_TEXT_MAX bytes
 * or a path, with neither of the other two missing
 *   path, resolved  strings, at most RECORD_TEXT_MAX bytes
 *   need            integer 0..15 (RIGHT_R | RIGHT_W | RIGHT_X | RIGHT_U)
 * Anything else is rejected, including a "source" field: only the
 * supervisor writes one, so a sender that names itself is forging.
 */

#define RECORD_DATAGRAM_MAX 16384   /* a longer datagram is rejected */
#define RECORD_TEXT_MAX	    4096    /* bytes of a path, a rule, a program */
#define RECORD_NAME_MAX	    64	    /* bytes of an operation's name */
#define RECORD_PID_MAX	    4194304 /* PID_MAX_LIMIT */

/* Where a record came from: written by the supervisor, never read. */
enum record_source {
	RECORD_SHIM,	 /* sent over the report socket from inside */
	RECORD_LAUNCHER, /* the supervisor's own note */
	RECORD_KERNEL,	 /* what the kernel told the supervisor */
};

/**
 * record_parse - validate the datagram @buf (@len bytes, a trailing
 * newline allowed) from inside the sandbox.
 *
 * Return: a new object holding the known fields in the shim's order and
 * "source": "shim", or NULL with @why (when not NULL) set to a static
 * reason.
 */
json_t *record_parse(const char *buf, size_t len, const char **why);

/**
 * record_new - a record the supervisor writes itself: the time,
 * @operation, @verdict, @rule, the fields of @more (an object, or NULL;
 * still the caller's) and "source" naming @source (RECORD_LAUNCHER or
 * RECORD_KERNEL).
 * Return: the new object, or NULL when out of memory.
 */
json_t *record_new(enum record_source source, const char *operation,
		   const char *verdict, const char *rule, json_t *more);

/**
 * record_dump - @rec as one log line: compact JSON ending in '\n', with
 * every control character (C0, DEL, C1) escaped as \u00XX, so that no
 * raw control byte reaches the log.  Free with free().
 * Return: the line, its length in @len; NULL when out of memory.
 */
char *record_dump(const json_t *rec, size_t *len);

/**
 * record_escape - @in (text from inside) for a terminal, into @out
 * (@outlen bytes, NUL-terminated, at least 1): \n, \r, \t and \\ as
 * such, other C0 bytes, DEL and bytes that are not UTF-8 as \xHH, C1
 * controls and the bidirectional overrides as \uHHHH; printable UTF-8
 * stays as it is.  Text that does not fit is cut before an escape or a
 * character, never inside one.
 * Return: @out.
 */
char *record_escape(char *out, size_t outlen, const char *in);

/*
 * rmtree.c - remove a directory tree outside the sandbox, on the
 * command's behalf, through descriptors only (rmtree.c): what cordon
 * removes (the ci temp dirs, the probe's fixture) may have been written
 * by a sandboxed process, which would swap a directory for a symbolic
 * link to make the launcher delete a file outside every root.
 */

/* Directories deeper than this below the top are left (and counted). */
#define RMTREE_DEPTH_MAX (1u << 20)

/* What rmtree_at() could not remove. */
struct rmtree_left {
	size_t n;	/* entries left, directories holding them included */
	int err;	/* the first one's reason (an errno) */
	char name[256]; /* the first one's name (its last component) */
};

/**
 * rmtree_at - remove @name in @dirfd and everything below it, as
 * `rm -rf` would for its owner (a directory of the caller's that it
 * may not write or search is made u+rwx first): each directory opened
 * O_NOFOLLOW from its parent's descriptor and checked to be the one
 * fstatat() saw, every entry unlinked relative to its directory, no
 * symbolic link followed at any depth, no other filesystem entered
 * (st_dev), no path rebuilt from names.  A directory moved away during
 * the walk is left where it went.  Depth is bounded by the heap
 * (RMTREE_DEPTH_MAX levels), never by the stack.
 * Return: 0 when nothing is left (or @name was not there); otherwise
 * -errno of the first entry left, with what was left in *@left (which
 * may be NULL).
 */
int rmtree_at(int dirfd, const char *name, struct rmtree_left *left);

/*
 * say.c - cordon's own error line on stderr: "cordon: ...", one line
 * whatever it holds; with --json, also one error document on stdout.
 */

/* "cordon: <what>" and a newline; control characters in @fmt's
 * arguments (a path, a profile's key) shown as '?'.  The first one
 * (not a "WARNING: ...") is kept for say_exit(). */
void say_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An error another process (a session's daemon) said on stderr
 * already: kept for say_exit() as say_error() keeps one, not printed. */
void say_kept(const char *msg);

/* The error kept (the first said), or NULL. */
const char *say_first(void);

/* --json was asked: say_exit() answers a failure with a document. */
void say_json(bool on);

/**
 * say_exit - cordon's exit status, @status, said: with --json and
 * @status 125 (cordon failed or refused, and printed no document of its
 * own), {"error":{"status":125,"message":"<the first error said>"}} and
 * a newline on stdout (doc/schema/error.schema.json).
 * Return: @status.
 */
int say_exit(int status);

/* Replace control characters (a newline in a path) with '?', so that a
 * message stays one line whatever the user typed. */
void say_oneline(char *s);

/*
 * spawn.c - run the command once the boundary is in place.
 */

/* Exit statuses, as env(1) and timeout(1). */
#define EXIT_CORDON	125 /* cordon itself failed or refused */
#define EXIT_CANNOT_RUN 126 /* the command cannot be executed */
#define EXIT_NOT_FOUND	127 /* the command was not found */

/**
 * spawn_exec - replace cordon with @argv, its environment @envp, searching
 * PATH as execvp(3) does.  Returns only on failure, after one line on
 * stderr naming the command and the reason (and the option that would
 * allow it when the policy is the reason).
 *
 * Return: EXIT_NOT_FOUND or EXIT_CANNOT_RUN.
 */
int spawn_exec(char **argv, char **envp, const struct policy *p);

/* A command of a session (session_pid1.c): its descriptors 0, 1 and 2
 * and its working directory; @terminal: one of them is its own pty
 * (session_pty.c), whose session leader it becomes. */
struct spawn_call {
	int fds[3];
	const char *cwd;
	bool terminal;
};

/**
 * spawn_child - vfork and exec @argv with @envp (searching its PATH),
 * as a child of this process; with @call, in a process group of its
 * own (a session of its own, its terminal's controlling process, when
 * @call has a terminal), with @call's descriptors and directory.
 * Return: 0 with the child in *@out, or the status (EXIT_CORDON,
 * EXIT_CANNOT_RUN, EXIT_NOT_FOUND) after one line on stderr.
 */
int spawn_child(char **argv, char **envp, const struct policy *p,
		const struct spawn_call *call, pid_t *out);

/* Wipe the strings of @old that @keep (NULL: none) does not hold: the
 * environment a process that stays beside commands started with. */
void spawn_forget_environ(char **old, char *const *keep);

/* Find @cmd the way execvp(3) would, along this process's PATH, and
 * resolve it into @out; false when there is none. */
bool spawn_locate(const char *cmd, char out[PATH_BUF]);

#endif
