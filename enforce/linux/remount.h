/*
 * remount.h - the mount table, and mount flags set the classic way
 * (before mount_setattr, Linux 5.12).
 */
#ifndef CORDON_REMOUNT_H
#define CORDON_REMOUNT_H

#include <stdbool.h>

/**
 * remount_each - call @fn for every mount at or below @path, in
 * mountinfo's order (a parent before what is mounted on it), with its
 * mount point and its per-mount options; stop at the first non-zero.
 * Return: what @fn returned last, or -1 when the table cannot be read.
 */
int remount_each(const char *path,
		 int (*fn)(const char *mnt, const char *opts, void *arg),
		 void *arg);

/**
 * remount_attr - set @set and clear @clr (MOUNT_ATTR_RDONLY, _NOEXEC,
 * _NOSUID, _NODEV) on the mount at @path, and with @below on every
 * mount below it, by a bind remount of each.  Every mount is tried.
 * Return: 0, or -1 with the errno of the first that failed.
 */
int remount_attr(const char *path, bool below, unsigned long long set,
		 unsigned long long clr);

#endif
