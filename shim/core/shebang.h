/*
 * shebang.h - the interpreter named on a script's "#!" line, as the
 * kernel reads it: shared by the shim's exec hooks and `cordon learn`.
 */
#ifndef CORDON_SHEBANG_H
#define CORDON_SHEBANG_H

#include <stdbool.h>

#define SHEBANG_BUF 256 /* the kernel's BINPRM_BUF_SIZE */

/**
 * shebang_parse - the interpreter of a "#!" script.  @buf holds the
 * first @n bytes of the file, and room for one more.  Pure: no
 * allocation, no errno, async-signal-safe.
 * Return: true with the interpreter's path left in @buf, NUL-terminated.
 */
bool shebang_parse(char *buf, long n);

/**
 * shebang_read - the interpreter of the "#!" script @path (from @dirfd,
 * opened with @flags added: O_NOFOLLOW), read from its first bytes into
 * @buf, as the kernel reads them (it needs no read permission; a script
 * this process cannot read is no script here).  The caller knows @path
 * is a regular file: a device is not opened for this.  Raw system
 * calls; async-signal-safe; changes errno.
 * Return: true with the interpreter's path in @buf, NUL-terminated.
 */
bool shebang_read(int dirfd, const char *path, int flags,
		  char buf[SHEBANG_BUF]);

#endif
