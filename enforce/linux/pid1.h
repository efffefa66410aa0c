/*
 * pid1.h - pid 1 of the command's PID namespace: cordon's own init,
 * which relays signals to the command and leaves with its status.
 */
#ifndef CORDON_PID1_H
#define CORDON_PID1_H

#include <stdbool.h>
#include <sys/types.h>

/* Forward the signals an init receives (TERM, HUP, USR1, USR2) to the
 * command once there is one; before that, they stop the start. */
void pid1_catch_signals(void);

/**
 * pid1_seal - close the descriptors of cordon's own (close-on-exec
 * ones) and make this process undumpable: not traceable, its /proc
 * entries unreadable, by anything without a capability in the user
 * namespace that owns its memory (the launcher's, outside).
 * Return: 0, or -1 with errno.
 */
int pid1_seal(void);

/**
 * pid1_scatter_pids - make the next pid of this (new) PID namespace a
 * random one, as pids are on a busy host: without it every command
 * would be pid 2, and two sandboxes side by side that name a file in
 * the shared /tmp after their pid ($$) would take the same.  Needs
 * this namespace's /proc and CAP_SYS_ADMIN in it; a failure leaves the
 * pids as they are.
 */
void pid1_scatter_pids(void);

/* This process is pid 1 of the command's namespace from now on. */
void pid1_become(void);

/* True in pid 1 of the command's namespace, made by ns_enter(): it
 * must outlive the command, its child, and leave with its status. */
bool pid1_is_init(void);

/**
 * pid1_relay - in pid 1: forward signals to @child, reap every child, and
 * _exit() with @child's status (128 + the signal that killed it).
 */
void pid1_relay(pid_t child) __attribute__((noreturn));

#endif
