/*
 * <linux/openat2.h> on Darwin (linux_compat.h): what shim/check.c
 * builds for its symlink-free fast path.  cordon_SYS_openat2() answers
 * ENOSYS, so on Darwin every such check takes the full resolution.
 */
#ifndef CORDON_COMPAT_LINUX_OPENAT2_H
#define CORDON_COMPAT_LINUX_OPENAT2_H

#include <stdint.h>

struct open_how {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};

#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS   0x04

#ifndef O_PATH
#define O_PATH 0 /* only ever handed to cordon_SYS_openat2() */
#endif

#endif
