/*
 * <linux/magic.h> on Darwin (linux_compat.h): the one filesystem magic
 * number shim/path.c compares, which no Darwin filesystem reports.
 */
#ifndef CORDON_COMPAT_LINUX_MAGIC_H
#define CORDON_COMPAT_LINUX_MAGIC_H

#define PROC_SUPER_MAGIC 0x9fa0

#endif
