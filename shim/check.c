/*
 * check.c - the decision every hook asks for: resolve the path as the
 * kernel would, apply the policy, report a denial.
 *
 * Runs on every interposed call, in vfork children and signal handlers:
 * stack buffers only, no malloc, no locks, errno untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"

/* Resolve @op's path; false when the kernel would fail the call anyway
 * (a missing directory before "..", ELOOP, ...): the real call then
 * fails by itself, with the kernel's own errno. */
static bool resolve(const struct op *op, char out[PATH_BUF])
{
	return path_resolve(op->dirfd, op->path, op->pflags, out) == 0;
}

static bool is_allowed(const struct op *op, const char *resolved)
{
	const struct policy *p = &shim.policy;
	unsigned int need = op->need;

	/* open(O_CREAT) makes a file only where there is none: on an
	 * existing one the kernel checks the access mode alone. */
	if (op->creat && !path_exists(resolved))
		need |= RIGHT_W;
	if (need == 0)
		return policy_is_visible(p, resolved);
	return (policy_rights(p, resolved) & need) == need;
}

static bool has_dotdot(const char *path)
{
	for (const char *s = path; *s; s++)
		if (s[0] == '.' && s[1] == '.' && (s == path || s[-1] == '/') &&
		    (s[2] == '/' || s[2] == '\0'))
			return true;
	return false;
}

/*
 * The fast path: a path without ".." that lies lexically inside a root
 * granting the right is allowed without walking it.  A symlink on the
 * way could point outside, but where Landlock has a rule for the access
 * the kernel then refuses, and hook_failed() resolves fully and reports
 * it.  Where it has none (stat, chmod, ...) the fast path is not taken.  A
 * denial, by contrast, is only ever decided on the full resolution.
 */
/* @op's path made absolute (through the cwd) and normalised lexically,
 * in @abs; false when that cannot be done without a walk (a path
 * relative to a dirfd, too long). */
static bool lexical_abs(const struct op *op, char abs[PATH_BUF])
{
	size_t n = 0, len = strlen(op->path);

	if (op->path[0] != '/' && op->dirfd != AT_FDCWD)
		return false;
	if (op->path[0] != '/') {
		if (syscall(SYS_getcwd, abs, PATH_BUF) < 0)
			return false;
		n = strlen(abs);
		abs[n++] = '/';
	}
	if (len >= PATH_BUF - n)
		return false;
	memcpy(abs + n, op->path, len + 1);
	return path_normalize(abs, abs) == 0;
}

static bool allowed_lexically(const struct op *op)
{
	char abs[PATH_BUF];

	return !has_dotdot(op->path) && lexical_abs(op, abs) &&
	       is_allowed(op, abs);
}

/*
 * The fast path where no kernel rule backs the decision (metadata and
 * visibility): the lexical path is allowed and the kernel confirms, in
 * one lookup, that no symlink lies on the way (RESOLVE_NO_SYMLINKS), so
 * the lexical path is the canonical one.  getcwd() is canonical too.  A
 * path through a symlink, or that the lookup fails for any reason, takes
 * the full resolution.
 */
static bool allowed_without_symlinks(const struct op *op)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char abs[PATH_BUF];
	long fd;

	if (!lexical_abs(op, abs) || !is_allowed(op, abs))
		return false;
	/* the path as given: "link/.." must meet the link */
	fd = syscall(SYS_openat2, AT_FDCWD, op->path, &how, sizeof(how));
	if (fd < 0)
		return false;
	syscall(SYS_close, fd);
	return true;
}

/* Reading, running or looking at what is not there fails with the
 * kernel's ENOENT before any rule applies: the real call answers it,
 * and a program probing for an optional file is not told EACCES. */
static bool absent_anyway(const struct op *op, const char *resolved)
{
	return !(op->need & RIGHT_W) && !op->creat && !path_exists(resolved);
}

int shim_check(const struct op *op)
{
	char resolved[PATH_BUF];
	int saved = errno;
	int ret = 0;

	if (!shim.active || !op->path || !op->path[0])
		return 0;
	/* Visibility (need 0) and metadata have no kernel rule behind
	 * them: a symlink in the workspace must not lead the shim out. */
	if (op->need && !op->shim_only ? allowed_lexically(op)
				       : allowed_without_symlinks(op))
		goto out;
	if (resolve(op, resolved) && !is_allowed(op, resolved) &&
	    !absent_anyway(op, resolved)) {
		report_denial(op, resolved, "shim");
		ret = shim.extra.learn ? 0 : EACCES; /* learning: recorded */
	}
out:
	errno = saved;
	return ret;
}

void shim_check_failed(const struct op *op, int err)
{
	char resolved[PATH_BUF];
	int saved = errno;

	if (!shim.active || !op->path || (err != EACCES && err != EPERM))
		return;
	if (resolve(op, resolved) && !is_allowed(op, resolved))
		report_denial(op, resolved, "kernel");
	errno = saved;
}
