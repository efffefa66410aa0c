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

#include <stdbool.h>
#include <stddef.h>

#define PATH_BUF      4096 /* PATH_MAX: the size of every buffer here */
#define PATH_MAX_HOPS 40   /* symlinks followed before ELOOP, as the kernel */

/* Flags for path_resolve(). */
#define PATH_NOFOLLOW 0x1 /* do not follow a symlink in the last component */
#define PATH_EMPTY_OK 0x2 /* "" means @dirfd itself (AT_EMPTY_PATH) */
/* A component this process may not look up (EACCES: a directory above
 * it that it cannot search, a secret covered by a mode-000 mount) is
 * taken as it is, with the rest lexically, ".." included: the name the
 * program meant, for a line, where the walk cannot see what is there. */
#define PATH_UNSEEN_LEXICAL 0x4

/**
 * path_resolve - make @path absolute and canonical as the kernel sees it.
 * @dirfd: AT_FDCWD, or the fd that a relative (or empty) @path starts
 *         from; its path is read from /proc/self/fd.  Ignored, as by the
 *         kernel, when @path is absolute.
 * @path: the path as the program gave it.  NULL means "" under
 *        PATH_EMPTY_OK (as the kernel's AT_EMPTY_PATH), else -EFAULT.
 * @flags: PATH_NOFOLLOW, PATH_EMPTY_OK, PATH_UNSEEN_LEXICAL; anything
 *         else is -EINVAL.
 * @out: PATH_BUF bytes; receives the result, or "" on error.  It may be
 *       the same buffer as @path.
 *
 * The longest existing prefix is canonicalised component by component,
 * following each symlink as the kernel would (at most PATH_MAX_HOPS, then
 * ELOOP) and applying ".." to the already-resolved prefix, never lexically
 * across a symlink.  The last component is followed unless PATH_NOFOLLOW;
 * a trailing slash makes it followed anyway, as for the kernel.
 *
 * Missing components (a choice: the shim decides on a path, the kernel
 * may then fail the call itself):
 *  - From the first missing component on, the tail is normalised
 *    lexically ("." and "//" dropped): "dir/missing/b" gives 0 and
 *    ".../dir/missing/b", although open() would say ENOENT.
 *  - ".." after a missing component is -ENOENT, as for the kernel
 *    ("missing/../x").
 *  - A dangling symlink is followed to the name it points at:
 *    "dangling/x" with dangling -> nowhere gives ".../nowhere/x".
 *
 * Links and fds that have no path give -ENOENT: a /proc magic link whose
 * target is not a path ("pipe:[42]", "socket:[7]", "anon_inode:[...]",
 * "net:[...]"), one to an unlinked file or a memfd ("/x (deleted)"), and
 * a @dirfd (or, under PATH_EMPTY_OK, any fd) whose file has no links left.
 *
 * Limits: a symlink's target and the rest of the path must fit together
 * in PATH_BUF (the kernel keeps them apart), else -ENAMETOOLONG.  Search
 * permission is checked only where a component is looked up (-EACCES,
 * or under PATH_UNSEEN_LEXICAL that component and the rest lexically);
 * ".." is applied to the prefix without asking the kernel.  Like any
 * check by path, the result is only as stable as the tree (TOCTOU).
 *
 * Async-signal-safe; errno is left unchanged whatever the result.
 *
 * Return: 0 on success, or a negative errno: -ENOENT (see above, and an
 * empty path without PATH_EMPTY_OK), -ENOTDIR when a non-directory is
 * used as a directory (including "file/" and a non-directory @dirfd),
 * -ELOOP, -ENAMETOOLONG, -EBADF for a bad @dirfd, -EINVAL, -EFAULT, or
 * what the underlying syscalls return (-EACCES, -EIO...).
 */
int path_resolve(int dirfd, const char *path, int flags, char out[PATH_BUF]);

/**
 * path_normalize - lexical normalisation of an absolute path: collapse
 * "//" and ".", apply ".." (never above "/"), drop a trailing slash.
 * Touches no filesystem, never reads a symlink: "/a/link/.." is "/a".
 * @in and @out may be the same buffer.
 *
 * Return: 0, -EINVAL when @in is not absolute, -EFAULT when it is NULL,
 * -ENAMETOOLONG when it is PATH_BUF bytes or longer.
 */
int path_normalize(const char *in, char out[PATH_BUF]);

/* True when something (a symlink included) is at the absolute @path.
 * One system call; errno unchanged. */
bool path_exists(const char *path);

/* True when nothing is at the absolute @path: a component is missing
 * (ENOENT) or not a directory (ENOTDIR).  A path this process cannot
 * look up (EACCES) is not known to be absent.  errno unchanged. */
bool path_is_absent(const char *path);

/* What execvp(3) searches when PATH is unset (glibc's). */
#define PATH_SEARCH_DEFAULT "/bin:/usr/bin"

/**
 * path_search_next - the next file execvp(3) would try for @file along
 * the PATH list at *@cursor: "DIR/FILE", or "./FILE" for an empty entry
 * (the working directory), in @out.  Advances *@cursor (NULL once the
 * list is done); a candidate too long for PATH_BUF is skipped.  The one
 * PATH search of the shim's exec hooks and the launcher's messages.
 * Async-signal-safe.
 * Return: true with a candidate, false when there is none left.
 */
bool path_search_next(const char **cursor, const char *file,
		      char out[PATH_BUF]);

#endif
