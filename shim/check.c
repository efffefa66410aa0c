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

#include "shim/shim.h"

/* Kept out of line: their path buffers stay off the fast path's stack. */
#define NOINLINE __attribute__((noinline))

/*
 * Resolve @op's path; false when the kernel would fail the call anyway
 * (a missing directory before "..", ELOOP, ...): the real call then
 * fails by itself, with the kernel's own errno.
 *
 * What root may not look up (a link in the workspace to a directory of
 * another user's, which root searches only with the capabilities the
 * sandbox took; a secret covered by a mount of mode 000) is named as the
 * path says, and a refusal of the policy there explained, not left
 * silent.  Any other user meets the same EACCES without cordon: that
 * refusal is not the sandbox's to explain.
 */
static bool resolve(const struct op *op, char out[PATH_BUF])
{
	int unseen = syscall(SYS_geteuid) == 0 ? PATH_UNSEEN_LEXICAL : 0;

	return path_resolve(op->dirfd, op->path, op->pflags | unseen, out) == 0;
}

static bool is_allowed(const struct op *op, const char *resolved)
{
	const struct policy *p = &shim.policy;
	unsigned int need = op->need;

	/* open(O_CREAT) makes a file only where there is none: on an
	 * existing one the kernel checks the access mode alone. */
	if (op->creat && !path_exists(resolved))
		need |= RIGHT_W;
	return policy_allows(p, need, resolved);
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
 * May @op be decided on the working directory kept (cwd.c), which a
 * change the shim did not see leaves stale?  Where the kernel has a rule
 * for the access, what a stale one lets through the kernel refuses and
 * hook_failed() explains on a fresh resolution; for metadata (stat and
 * its kin, advisory: Landlock lets them all through) a stale one may let
 * a look at a hidden path through, as a raw system call would anyway.
 * Not where nothing comes after the check (an exec in a spawn's child,
 * which may have changed directory in libc first) or where the shim
 * alone decides (chmod and its kin).  A refusal is never decided on it.
 */
static bool may_keep_cwd(const struct op *op)
{
	return !op->blind_after && !op->shim_only;
}

static size_t fresh_cwd(char abs[PATH_BUF])
{
	if (syscall(SYS_getcwd, abs, PATH_BUF) < 0 || abs[0] != '/')
		return 0;
	return strlen(abs);
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
		n = may_keep_cwd(op) ? cwd_get(abs) : fresh_cwd(abs);
		if (!n)
			return false;
		if (n > 1)
			abs[n++] = '/';
	}
	if (len >= PATH_BUF - n)
		return false;
	memcpy(abs + n, op->path, len + 1);
	return path_normalize(abs, abs) == 0;
}

static NOINLINE bool allowed_lexically(const struct op *op)
{
	char abs[PATH_BUF];

	return !has_dotdot(op->path) && lexical_abs(op, abs) &&
	       is_allowed(op, abs);
}

/*
 * The directory whose every component this thread last saw to be no
 * symlink (below: an openat2 with RESOLVE_NO_SYMLINKS succeeded on a
 * path in it), so that the next metadata call in it needs no walk:
 * make, git and ls stat many names in one directory.  It can go stale:
 * another process may swap a component for a symlink afterwards, and
 * a stat through it is then let through unexplained.  That is the cost
 * of an advisory check: the kernel never restricted stat (not a Landlock
 * right), and a raw system call passes it anyway.  Short paths only: it
 * is thread-local storage, in every thread of every program.
 */
#define SEEN_MAX 512
static __thread char seen_dir[SEEN_MAX];
static __thread size_t seen_len;
/* No root lies below it: its entries all have seen_rights. */
static __thread bool seen_alike;
static __thread unsigned int seen_rights;

/* The length of @abs's directory part ("/a/b" for "/a/b/c", "/" for
 * "/c"), @slash being its last '/'. */
static size_t dir_len_at(const char *abs, const char *slash)
{
	return slash == abs ? 1 : (size_t)(slash - abs);
}

static size_t dir_len(const char *abs)
{
	return dir_len_at(abs, strrchr(abs, '/'));
}

static bool dir_seen(const char *abs, size_t len)
{
	return len && len == seen_len && memcmp(seen_dir, abs, len) == 0;
}

static void dir_remember(const char *abs, size_t len)
{
	if (len >= SEEN_MAX)
		return;
	memcpy(seen_dir, abs, len);
	seen_dir[len] = '\0';
	seen_len = len;
	seen_alike = policy_child_rights(&shim.policy, seen_dir, &seen_rights);
}

/*
 * Is @path's directory part (up to @name, its last component) the
 * directory seen last, the path being relative to the working directory
 * kept?  Compared as text: the seen directory is normalised, so a "." or
 * ".." or "//" on the way never matches.
 */
static bool rel_dir_seen(const struct op *op, const char *name)
{
	const char *path = op->path, *cwd;
	size_t clen, dlen = name > path ? (size_t)(name - 1 - path) : 0;
	size_t sep;

	if (op->dirfd != AT_FDCWD || !may_keep_cwd(op))
		return false;
	cwd = cwd_peek(&clen);
	if (!cwd)
		return false;
	sep = dlen && clen > 1; /* "/" + "a" is "/a" */
	if (seen_len != clen + sep + dlen || memcmp(seen_dir, cwd, clen))
		return false;
	return !dlen || ((!sep || seen_dir[clen] == '/') &&
			 memcmp(seen_dir + clen + sep, path, dlen) == 0);
}

/*
 * A path straight into the directory seen last (absolute, or relative to
 * the working directory kept), where no root lies below it: the verdict
 * is its entries' rights, with no copy, no normalisation and no policy
 * walk (make and ls stat name after name in one directory).  1 allowed,
 * 0 not decided here.
 */
static int allowed_in_seen(const struct op *op)
{
	const char *path = op->path, *name, *slash;

	if (!seen_alike || op->creat)
		return 0;
	slash = strrchr(path, '/');
	name = slash ? slash + 1 : path;
	/* "dir/", "dir/." and "dir/.." name no entry of dir */
	if (!name[0] ||
	    (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))))
		return 0;
	if (path[0] == '/' ? !dir_seen(path, dir_len_at(path, slash))
			   : !rel_dir_seen(op, name))
		return 0;
	if (op->need ? (seen_rights & op->need) != op->need : !seen_rights)
		return 0;
	return 1;
}

/* Where a stat() that follows links wants its answer (shim_stat_into),
 * and whether the last check wrote it there: on what is no symlink, the
 * lookup that follows none is the same answer. */
static __thread struct stat *stat_dest;
static __thread bool stat_done;

/* The last component of @path, in a directory known to hold no symlink,
 * is no symlink either (or is absent: the real call says so itself). */
static bool last_is_plain(const char *path)
{
	struct stat own, *st = stat_dest ? stat_dest : &own;
	int nofollow = AT_SYMLINK_NOFOLLOW;

	if (syscall(SYS_newfstatat, AT_FDCWD, path, st, nofollow) < 0)
		return errno == ENOENT;
	stat_done = stat_dest && !S_ISLNK(st->st_mode);
	return !S_ISLNK(st->st_mode);
}

void shim_stat_into(struct stat *st)
{
	stat_dest = st;
	stat_done = false;
}

bool shim_stat_done(void)
{
	bool done = stat_done;

	stat_dest = NULL;
	stat_done = false;
	return done;
}

/*
 * The fast path where no kernel rule backs the decision (metadata and
 * visibility): the lexical path is allowed and the kernel confirms, in
 * one lookup, that no symlink lies on the way (RESOLVE_NO_SYMLINKS; the
 * last component is not followed by a call that does not follow it), so
 * the lexical path is the canonical one.  getcwd() is canonical too.  In
 * the directory seen last, the lookup is the last component's alone, or
 * none when the call does not follow it.  A path through a symlink, or
 * that the lookup fails for any reason, takes the full resolution.
 */
static NOINLINE bool allowed_on_plain_way(const struct op *op)
{
	bool nofollow = op->pflags & PATH_NOFOLLOW;
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0),
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char abs[PATH_BUF];
	bool plain_way = !has_dotdot(op->path);
	size_t len;
	long fd;

	if (!lexical_abs(op, abs) || !is_allowed(op, abs))
		return false;
	len = dir_len(abs);
	/* the lookup the call makes: relative to the real working directory
	 * (the answer of a stat() that follows, shim_stat_into) */
	if (plain_way && dir_seen(abs, len))
		return nofollow || last_is_plain(op->path);
	/* the path as given: "link/.." must meet the link */
	fd = syscall(SYS_openat2, AT_FDCWD, op->path, &how, sizeof(how));
	if (fd < 0)
		return false;
	syscall(SYS_close, fd);
	if (plain_way)
		dir_remember(abs, len);
	return true;
}

/* The directory seen last first: no path buffer on the stack for it. */
static bool allowed_without_symlinks(const struct op *op)
{
	if (allowed_in_seen(op))
		return (op->pflags & PATH_NOFOLLOW) || last_is_plain(op->path);
	return allowed_on_plain_way(op);
}

/* Reading, running or looking at what is not there fails with the
 * kernel's ENOENT before any rule applies: the real call answers it,
 * and a program probing for an optional file is not told EACCES. */
static bool absent_anyway(const struct op *op, const char *resolved)
{
	return !(op->need & RIGHT_W) && !op->creat && path_is_absent(resolved);
}

/* A path the policy hides (no right there, and not on the way to a
 * root), read, run or looked at: for the program it is not there, as on
 * a machine without it, so a tool that copes without ~/.gitconfig copes
 * here too.  The line and the record still name it. */
static bool hidden(const struct op *op, const char *resolved)
{
	static const char *const lookups[] = {
		"stat",	      "lstat",
		"fstatat",    "__xstat",
		"__lxstat",   "__fxstat",
		"statx",      "access",
		"faccessat",  "euidaccess",
		"eaccess",    "readlink",
		"__readlink", "realpath",
		"__realpath", "canonicalize_file_name",
		"nftw",	      "ftw",
		"fts",	      NULL,
	};
	bool lookup = op->need != 0 && op->need != RIGHT_U;

	/* need 0 is a look at the path: a metadata call's, or the one a
	 * change (mkdir, unlink, chmod) makes first, which stays EACCES:
	 * a name there is not to be made or changed */
	for (size_t i = 0; !lookup && lookups[i]; i++)
		lookup = strncmp(op->name, lookups[i], strlen(lookups[i])) == 0;
	return lookup && !(op->need & RIGHT_W) && !op->creat &&
	       !policy_is_visible(&shim.policy, resolved);
}

/* What the fast paths left: the full resolution, and the report. */
static NOINLINE int check_resolved(const struct op *op)
{
	char resolved[PATH_BUF];

	if (resolve(op, resolved) && !is_allowed(op, resolved) &&
	    !absent_anyway(op, resolved)) {
		report_denial(op, resolved, "shim");
		if (shim.extra.learn)
			return 0; /* learning: recorded */
		return hidden(op, resolved) ? ENOENT : EACCES;
	}
	return 0;
}

int shim_check(const struct op *op)
{
	int saved = errno;
	int ret = 0;

	if (!shim.active || !op->path || !op->path[0])
		return 0;
	/* Visibility (need 0) and metadata have no kernel rule behind
	 * them: a symlink in the workspace must not lead the shim out.  A
	 * call whose failure the hook never sees (an exec in a spawn's
	 * child, ld.so's open) leaves nothing after it to explain the
	 * kernel's refusal: decided on the path the kernel will walk. */
	if (!(op->need && !op->shim_only && !op->blind_after
		      ? allowed_lexically(op)
		      : allowed_without_symlinks(op)))
		ret = check_resolved(op);
	/* Allowed to see that it is not there: say so, as the kernel
	 * would without the read-only mounts (mounts.c), which make
	 * unlink, rmdir and rename fail with EROFS before they look. */
	if (!ret && op->absent)
		ret = ENOENT;
	errno = saved;
	return ret;
}

/*
 * The errors by which the layers below refuse: Landlock says EACCES (or
 * EXDEV for a rename or link that would change a file's rights), the
 * filter and the dropped capabilities EPERM, the read-only mounts EROFS
 * (a write through a symlink that leads out of a writable root, which
 * the lexical fast path let through).
 */
bool shim_is_refusal(int err)
{
	return err == EACCES || err == EPERM || err == EROFS || err == EXDEV;
}

void shim_check_failed(const struct op *op, int err)
{
	char resolved[PATH_BUF];
	int saved = errno;

	if (!shim.active || !op->path || !shim_is_refusal(err))
		return;
	if (resolve(op, resolved) && !is_allowed(op, resolved))
		report_denial(op, resolved, "kernel");
	errno = saved;
}
