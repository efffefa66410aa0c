/*
 * auditlog.h - the audit log file (auditlog.c): opened once, outside,
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
#ifndef CORDON_AUDITLOG_H
#define CORDON_AUDITLOG_H

#include <limits.h>
#include <stddef.h>

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

#endif
