/*
 * path.h - resolve a path the way the kernel would walk it.
 *
 * One implementation serves the launcher (roots, explain, learn) and the
 * shim (every hook).  It must therefore be async-signal-safe: no malloc,
 * no locks, no stdio, no global state, only the stack and raw syscalls
 * (the shim interposes readlink, stat and friends, so calling them here
 * would recurse into the shim).
 */
#ifndef CORDON_PATH_H
#define CORDON_PATH_H

#include <stddef.h>

#define PATH_BUF 4096 /* PATH_MAX: every buffer passed here has this size */
#define PATH_MAX_HOPS 40 /* symlinks followed before ELOOP, as the kernel */

/* Flags for path_resolve(). */
#define PATH_NOFOLLOW 0x1 /* do not follow a symlink in the last component */
#define PATH_EMPTY_OK 0x2 /* "" means @dirfd itself (AT_EMPTY_PATH) */

/**
 * path_resolve - make @path absolute and canonical as the kernel sees it.
 * @dirfd: AT_FDCWD, or a directory fd that relative paths start from
 *         (its path is read from /proc/self/fd).
 * @path: the path as the program gave it.
 * @flags: PATH_NOFOLLOW, PATH_EMPTY_OK.
 * @out: PATH_BUF bytes; receives the result.
 *
 * The longest existing prefix is canonicalised component by component,
 * following each symlink as the kernel would (at most PATH_MAX_HOPS, then
 * ELOOP) and applying ".." to the already-resolved prefix, never lexically
 * across a symlink.  The non-existing tail is normalised lexically (".",
 * "..", "//").  The last component is followed unless PATH_NOFOLLOW.
 *
 * Return: 0 on success, or a negative errno: -ENOENT when a component
 * that must exist does not (a missing directory followed by "..", or
 * an empty path without PATH_EMPTY_OK), -ENOTDIR when a non-directory is
 * used as a directory, -ELOOP, -ENAMETOOLONG, -EBADF, or what the
 * underlying syscalls return.
 */
int path_resolve(int dirfd, const char *path, int flags, char out[PATH_BUF]);

/**
 * path_normalize - lexical normalisation of an absolute path: collapse
 * "//" and ".", apply ".." (never above "/"), drop a trailing slash.
 * Touches no filesystem.  @in and @out may be the same buffer.
 *
 * Return: 0, -EINVAL when @in is not absolute, -ENAMETOOLONG.
 */
int path_normalize(const char *in, char out[PATH_BUF]);

#endif
