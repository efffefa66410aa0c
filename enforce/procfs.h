/*
 * procfs.h - what the launcher reads of a process in /proc (procfs.c):
 * its parent, process group and terminal from "stat", its pid in its
 * innermost PID namespace from "status".  Pids as this process sees
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

#endif
