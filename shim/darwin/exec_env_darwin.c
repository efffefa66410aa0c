/*
 * exec_env_darwin.c - the macOS half of exec_env.h: which file dyld
 * loaded the shim from, and the children it cannot follow.  exec_env.c
 * composes the environments (with DYLD_INSERT_LIBRARIES, preload.h) and
 * sends the record.
 *
 * System Integrity Protection: dyld ignores and strips every DYLD_*
 * variable when it starts a protected program, Apple's own binaries
 * under /bin, /sbin, /usr (but /usr/local) and /System.  The shim is
 * not loaded there, nor anywhere below (make -> /bin/sh -> cc): the
 * child is named in an "exec-unshimmed" record, the same record the
 * Linux shim sends for a static binary, and Seatbelt, inherited by
 * every child, is the boundary alone.  That is why system(), popen()
 * and wordexp() need nothing restored: they all run /bin/sh.
 *
 * exec_env_why_unshimmed() runs between vfork and exec: the stack only,
 * no malloc, no lock, no stdio.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim/core/env.h"
#include "shim/exec_env.h"
#include "shim/core/preload.h"
#include "shim/shim.h"
#include "shim/core/strbuf.h"

#define SHEBANG_MAX 512 /* the kernel reads no more of a "#!" line */

/*
 * The entry children get: the load-time DYLD_INSERT_LIBRARIES when it
 * lists this dylib (the other libraries it inserts stay), else this
 * dylib alone, kept in shim.preload.
 */
void exec_env_init(char **envp)
{
	char *piece = shim_arena_next();
	struct strbuf sb = STRBUF(piece, SHIM_PRELOAD_MAX);
	const char *var = preload_os.var;
	const char *loaded = NULL;
	Dl_info info;

	piece[0] = '\0';
	shim.preload = piece;
	if (!dladdr((const void *)(uintptr_t)&exec_env_init, &info) ||
	    !info.dli_fname || !exec_env_set_self(info.dli_fname)) {
		shim_arena_cut(piece);
		return;
	}
	loaded = env_value(envp, var);
	sb_puts(&sb, var);
	sb_puts(&sb, "=");
	sb_puts(&sb, loaded && exec_env_lists_self(loaded) ? loaded
							   : info.dli_fname);
	if (sb.full)
		piece[0] = '\0';
	shim_arena_cut(piece);
}

/* Only /bin/sh needs environ carried for it (system, popen, wordexp),
 * and SIP strips the shim from /bin/sh whatever environ says. */
int exec_env_restore(void)
{
	return 0;
}

/* Apple's protected trees.  /usr/local is the user's (Homebrew). */
static bool in_sip_tree(const char *path)
{
	static const char *const trees[] = {
		"/bin",	     "/sbin",	     "/usr/bin",
		"/usr/sbin", "/usr/libexec", "/System",
	};

	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++)
		if (path_is_within(path, trees[i]))
			return true;
	return false;
}

/* Would dyld drop the shim for @path: in a protected tree, or marked
 * restricted by the system (SF_RESTRICTED, what SIP protects)? */
static bool is_protected(const char *path)
{
	struct stat st;

	if (in_sip_tree(path))
		return true;
	return stat(path, &st) == 0 && (st.st_flags & SF_RESTRICTED);
}

/* The interpreter of the "#!" script @path, into @out. */
static bool shebang(const char *path, char out[SHEBANG_MAX])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, out, SHEBANG_MAX - 1, 0);
	close(fd);
	return exec_env_shebang(out, n);
}

const char *exec_env_why_unshimmed(const struct op *op, char resolved[PATH_BUF],
				   char *rule, size_t len)
{
	char interp[SHEBANG_MAX];

	(void)rule;
	(void)len;
	if (path_resolve(op->dirfd, op->path, op->pflags, resolved) != 0) {
		resolved[0] = '\0';
		return NULL;
	}
	if (is_protected(resolved))
		return "an Apple binary under System Integrity Protection "
		       "(SIP): dyld drops DYLD_INSERT_LIBRARIES there and in "
		       "all it runs; Seatbelt holds alone";
	if (shebang(resolved, interp) && is_protected(interp))
		return "a script whose interpreter is an Apple binary under "
		       "System Integrity Protection (SIP): the shim cannot "
		       "enter it; Seatbelt holds alone";
	return NULL;
}
