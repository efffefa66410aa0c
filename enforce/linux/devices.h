/*
 * devices.h - what the command's mount namespace gets of its own in
 * /dev: shared memory, terminals, and its controlling terminal by name.
 */
#ifndef CORDON_DEVICES_H
#define CORDON_DEVICES_H

#include "shim/core/policy.h"

/* The name the controlling terminal gets inside (see devices.c). */
#define DEVICES_CONSOLE "/dev/console"

/**
 * devices_setup - in a new mount namespace, give the command a /dev/shm
 * and a devpts instance of its own, and its controlling terminal under
 * DEVICES_CONSOLE when @p grants that name.
 * Return: 0, or -1 with errno and in *@step what failed.
 */
int devices_setup(const struct policy *p, const char **step);

/**
 * devices_console_root - add DEVICES_CONSOLE to @p, with the rights of
 * /dev/tty, when this process has a controlling terminal: then inside
 * the namespace that name is the terminal, and ttyname(3) finds it.
 * Return: 0, -ENOMEM or -E2BIG.
 */
int devices_console_root(struct policy *p);

#endif
