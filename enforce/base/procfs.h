/*
 * procfs.h - what the launcher reads of a process in /proc (procfs.c):
 * its parent, process group and terminal from "stat", its pid in its
 * innermost PID namespace from "status", its start time; this boot's
 * id, the mount a descriptor is on.  Pids as this process sees
 * them; a process gone is an error, never a guess.
 */
#ifndef CORDON_PROCFS_H
#define CORDON_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

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

#endif
