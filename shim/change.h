/*
 * change.h - the operation a change hook asks about (mkdir, unlink,
 * rename, link, symlink, chmod, mkfifo, ...), the same on every OS:
 * hook_change.c and hook_create.c on Linux, darwin/hook_change_darwin.c
 * on macOS.
 *
 * A call that fails by itself whatever the policy, because the name it
 * would make is taken (EEXIST) or the file it would change is not there
 * (ENOENT), fails so before the kernel layer asks; then the path need
 * only be visible, and the program sees the kernel's errno (mkdir -p,
 * node's recursive mkdir, Python's "except FileExistsError" rely on it).
 */
#ifndef CORDON_CHANGE_H
#define CORDON_CHANGE_H

#include "shim/shim.h"

/**
 * change_op - the operation of a call that changes or removes the
 * existing file @path (from @dirfd), looked up as @at says
 * (AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH): W, or nothing but visibility
 * when the file is not there.  errno untouched.
 */
struct op change_op(const char *name, int dirfd, const char *path, int at);

/* The same for a call that makes the new name @path, never followed:
 * nothing but visibility when the name is taken. */
struct op change_make_op(const char *name, int dirfd, const char *path);

/* The same for a change of metadata (mode, owner, times, xattrs): on
 * Linux no kernel layer stands behind the shim there (op.shim_only). */
struct op change_meta_op(const char *name, int dirfd, const char *path, int at);

/**
 * change_rename_ops - both ends of a rename, neither followed.  A taken
 * name at the new end is replaced, so it needs W whether it exists or
 * not.  The source moves with all that is under it, which has the rights
 * of the source or more (a path has the union of the rights of the roots
 * above it): W on the source covers them.
 */
void change_rename_ops(struct op *from, struct op *to, const char *name,
		       int ofd, const char *old, int nfd, const char *new);

/**
 * change_link_ops - both ends of a hard link, the source looked up as
 * @at says.  The source needs W too: through the new name it would get
 * the rights of the new place (Landlock refuses that with REFER).  A
 * link that fails by itself at one end fails whatever the other is.
 */
void change_link_ops(struct op *from, struct op *to, const char *name, int ofd,
		     const char *old, int at, int nfd, const char *new);

#endif
