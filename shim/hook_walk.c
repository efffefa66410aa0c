/*
 * hook_walk.c - the directory walkers: scandir, scandirat, glob, nftw,
 * ftw and fts_open (with their 64-bit and versioned names).
 *
 * A walker opens, reads and stats inside libc, never through the hooks
 * (catalog A.0), so each public name is checked here:
 *  - glob is given GLOB_ALTDIRFUNC with the shim's own opendir and
 *    stat, so every directory it opens is decided and a refusal comes
 *    back to glob as the kernel's EACCES would (errfunc, GLOB_ERR and
 *    GLOB_ABORTED unchanged).  A caller's own GLOB_ALTDIRFUNC functions
 *    are left alone: they call through the hooks themselves.
 *  - scandir and scandirat decide the directory they read.
 *  - nftw and ftw decide the root: hidden, they fail as the root's stat
 *    would (-1, EACCES); a directory that may not be read is handed to
 *    the callback as FTW_DNR, as the kernel's refusal would be.  Inside
 *    the walk, every FTW_DNR on a path outside the policy is reported
 *    as the kernel's denial.  With FTW_CHDIR, libc changes directory
 *    behind the hooks: the working directory the shim keeps (cwd.c) is
 *    marked changed before each callback and after the walk.
 *  - fts_open decides each root; a refused root makes it fail with
 *    EACCES.  What fts then reads below an allowed root is left to the
 *    kernel layer.
 * What stays unseen: the stat of each entry below an allowed root
 * (Landlock does not hide metadata, and the shim only learns of entries
 * nftw passes to the callback), and directories below the root that fts
 * cannot read.
 */
#include <dirent.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <glob.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/hooks.h"

typedef int (*nftw_fn)(const char *, const struct stat *, int, struct FTW *);
typedef int (*nftw64_fn)(const char *, const struct stat64 *, int,
			 struct FTW *);
typedef int (*ftw_fn)(const char *, const struct stat *, int);
typedef int (*ftw64_fn)(const char *, const struct stat64 *, int);
typedef int (*dirent_filter)(const struct dirent *);
typedef int (*dirent_compar)(const struct dirent **, const struct dirent **);
typedef int (*dirent64_filter)(const struct dirent64 *);
typedef int (*dirent64_compar)(const struct dirent64 **,
			       const struct dirent64 **);
typedef int (*glob_errfn)(const char *, int);
typedef int (*fts_compar)(const FTSENT **, const FTSENT **);
typedef int (*fts64_compar)(const FTSENT64 **, const FTSENT64 **);

static REAL_SLOT int (*real_scandir)(const char *, struct dirent ***,
				     dirent_filter, dirent_compar);
static REAL_SLOT int (*real_scandir64)(const char *, struct dirent64 ***,
				       dirent64_filter, dirent64_compar);
static REAL_SLOT int (*real_scandirat)(int, const char *, struct dirent ***,
				       dirent_filter, dirent_compar);
static REAL_SLOT int (*real_scandirat64)(int, const char *, struct dirent64 ***,
					 dirent64_filter, dirent64_compar);
static REAL_SLOT int (*real_glob)(const char *, int, glob_errfn, glob_t *);
static REAL_SLOT int (*real_glob_old)(const char *, int, glob_errfn, glob_t *);
static REAL_SLOT int (*real_glob64)(const char *, int, glob_errfn, glob64_t *);
static REAL_SLOT int (*real_glob64_old)(const char *, int, glob_errfn,
					glob64_t *);
static REAL_SLOT int (*real_nftw)(const char *, nftw_fn, int, int);
static REAL_SLOT int (*real_nftw_old)(const char *, nftw_fn, int, int);
static REAL_SLOT int (*real_nftw64)(const char *, nftw64_fn, int, int);
static REAL_SLOT int (*real_nftw64_old)(const char *, nftw64_fn, int, int);
static REAL_SLOT int (*real_ftw)(const char *, ftw_fn, int);
static REAL_SLOT int (*real_ftw64)(const char *, ftw64_fn, int);
static REAL_SLOT FTS *(*real_fts_open)(char *const *, int, fts_compar);
static REAL_SLOT FTS64 *(*real_fts64_open)(char *const *, int, fts64_compar);
static REAL_SLOT DIR *(*real_opendir)(const char *);
static REAL_SLOT struct dirent *(*real_readdir)(DIR *);
static REAL_SLOT struct dirent64 *(*real_readdir64)(DIR *);
static REAL_SLOT int (*real_closedir)(DIR *);

REAL_FN_V(real_glob, "glob", "GLIBC_2.27")
REAL_FN_V(real_glob64, "glob64", "GLIBC_2.27")
REAL_FN_V(real_nftw, "nftw", "GLIBC_2.3.3")
REAL_FN_V(real_nftw64, "nftw64", "GLIBC_2.3.3")
REAL_FN_V(real_glob_old, "glob", "GLIBC_2.2.5")
REAL_FN_V(real_glob64_old, "glob64", "GLIBC_2.2.5")
REAL_FN_V(real_nftw_old, "nftw", "GLIBC_2.2.5")
REAL_FN_V(real_nftw64_old, "nftw64", "GLIBC_2.2.5")
REAL_FN(real_scandir, "scandir")
REAL_FN(real_scandir64, "scandir64")
REAL_FN(real_scandirat, "scandirat")
REAL_FN(real_scandirat64, "scandirat64")
REAL_FN(real_ftw, "ftw")
REAL_FN(real_ftw64, "ftw64")
REAL_FN(real_fts_open, "fts_open")
REAL_FN(real_fts64_open, "fts64_open")
REAL_FN(real_opendir, "opendir")
REAL_FN(real_readdir, "readdir")
REAL_FN(real_readdir64, "readdir64")
REAL_FN(real_closedir, "closedir")

/* lstat (@nofollow) or stat of @path, by the system call: a walker's
 * own view of its root, never a hook's. */
static int walk_stat(int dirfd, const char *path, struct stat *st,
		     bool nofollow)
{
	return (int)syscall(SYS_newfstatat, dirfd, path, st,
			    nofollow ? AT_SYMLINK_NOFOLLOW : 0);
}

/*
 * The verdict on reading the tree at @path, as the walker @name reaches
 * it: first whether the policy lets the root be seen at all, then, for
 * a directory, whether it may be read.  A root that is not there is
 * left to the walker.  *@dnr is set when only the reading is refused.
 * Return: 0 to forward, or the errno to fail with.
 */
static int decide_root(const char *name, int dirfd, const char *path,
		       bool nofollow, struct stat *st, bool *dnr)
{
	int pflags = nofollow ? PATH_NOFOLLOW : 0;
	struct op see = OP(name, 0, dirfd, path, pflags);
	struct op read = OP(name, RIGHT_R, dirfd, path, 0);
	int err;

	*dnr = false;
	if (!shim_is_ready())
		shim_init();
	if (!shim.active || !path)
		return 0;
	if (walk_stat(dirfd, path, st, nofollow) < 0)
		return 0; /* the walker meets the same failure itself */
	err = hook_decide(&see);
	if (err || !S_ISDIR(st->st_mode))
		return err;
	err = hook_decide(&read);
	*dnr = err != 0;
	return err;
}

/* ---- scandir ---- */

/* The scandir names: @params and @args the hook's parameters and the
 * call's arguments, @dirfd where @dir is looked up. */
#define SCANDIR_HOOK(name, params, dirfd, args)                                \
	SHIM_API int name params                                               \
	{                                                                      \
		struct op op = OP(#name, RIGHT_R, dirfd, dir, 0);              \
		return HOOK_RUN(&op, -1,                                       \
				real_##name##_get() ? real_##name##_get() args \
						    : hook_nosys());           \
	}

SCANDIR_HOOK(scandir,
	     (const char *dir, struct dirent ***list, dirent_filter sel,
	      dirent_compar cmp),
	     AT_FDCWD, (dir, list, sel, cmp))
SCANDIR_HOOK(scandir64,
	     (const char *dir, struct dirent64 ***list, dirent64_filter sel,
	      dirent64_compar cmp),
	     AT_FDCWD, (dir, list, sel, cmp))
SCANDIR_HOOK(scandirat,
	     (int fd, const char *dir, struct dirent ***list, dirent_filter sel,
	      dirent_compar cmp),
	     fd, (fd, dir, list, sel, cmp))
SCANDIR_HOOK(scandirat64,
	     (int fd, const char *dir, struct dirent64 ***list,
	      dirent64_filter sel, dirent64_compar cmp),
	     fd, (fd, dir, list, sel, cmp))

/* ---- glob: every directory it opens goes through glob_opendir ---- */

static void *glob_opendir_as(const char *name, const char *dir)
{
	struct op op = OP(name, RIGHT_R, AT_FDCWD, dir, 0);

	return HOOK_RUN(&op, NULL,
			real_opendir_get() ? real_opendir_get()(dir)
					   : (DIR *)hook_nosys_ptr());
}

/* One per name, so that the line names the function the program called. */
static void *glob_opendir(const char *dir)
{
	return glob_opendir_as("glob", dir);
}

static void *glob64_opendir(const char *dir)
{
	return glob_opendir_as("glob64", dir);
}

static void glob_closedir(void *d)
{
	if (real_closedir_get())
		real_closedir_get()(d);
}

static void *glob_readdir(void *d)
{
	return real_readdir_get() ? real_readdir_get()(d) : NULL;
}

static void *glob_readdir64(void *d)
{
	return real_readdir64_get() ? real_readdir64_get()(d) : NULL;
}

/* glob asks whether a name exists: refused where the policy hides it,
 * with the kernel's answer where the name is not there. */
static int glob_stat_at(const char *name, const char *path, void *st,
			bool nofollow)
{
	struct op op =
		OP(name, 0, AT_FDCWD, path, nofollow ? PATH_NOFOLLOW : 0);
	int err;

	if (walk_stat(AT_FDCWD, path, st, nofollow) < 0)
		return -1;
	err = hook_decide(&op);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

static int glob_stat(const char *path, void *st)
{
	return glob_stat_at("glob", path, st, false);
}

static int glob_lstat(const char *path, void *st)
{
	return glob_stat_at("glob", path, st, true);
}

static int glob64_stat(const char *path, void *st)
{
	return glob_stat_at("glob64", path, st, false);
}

static int glob64_lstat(const char *path, void *st)
{
	return glob_stat_at("glob64", path, st, true);
}

/* Run @call with the shim's directory functions in @g, unless the
 * caller brought its own; the caller's fields are put back after. */
#define GLOB_HOOK(fn, sym, type, realfn, pre, readfn)                          \
	SHIM_API int fn(const char *pat, int flags, glob_errfn efn, type *g);  \
	__asm__(".symver " #fn "," sym ",remove");                             \
	SHIM_API int fn(const char *pat, int flags, glob_errfn efn, type *g)   \
	{                                                                      \
		type keep;                                                     \
		int saved = errno;                                             \
		int ret;                                                       \
		if (!shim_is_ready())                                          \
			shim_init();                                           \
		if (!realfn) {                                                 \
			errno = ENOSYS;                                        \
			return GLOB_NOSYS;                                     \
		}                                                              \
		if (!shim.active || (flags & GLOB_ALTDIRFUNC) || !g)           \
			return realfn(pat, flags, efn, g);                     \
		keep = *g;                                                     \
		g->gl_opendir = pre##_opendir;                                 \
		g->gl_readdir = (__typeof__(g->gl_readdir))readfn;             \
		g->gl_closedir = glob_closedir;                                \
		g->gl_stat = (__typeof__(g->gl_stat))pre##_stat;               \
		g->gl_lstat = (__typeof__(g->gl_lstat))pre##_lstat;            \
		errno = saved;                                                 \
		ret = realfn(pat, flags | GLOB_ALTDIRFUNC, efn, g);            \
		saved = errno;                                                 \
		g->gl_opendir = keep.gl_opendir;                               \
		g->gl_readdir = keep.gl_readdir;                               \
		g->gl_closedir = keep.gl_closedir;                             \
		g->gl_stat = keep.gl_stat;                                     \
		g->gl_lstat = keep.gl_lstat;                                   \
		/* glob reports GLOB_ALTDIRFUNC back in gl_flags */            \
		if (!(flags & GLOB_ALTDIRFUNC))                                \
			g->gl_flags &= ~GLOB_ALTDIRFUNC;                       \
		errno = saved;                                                 \
		return ret;                                                    \
	}

GLOB_HOOK(cordon_glob, "glob@@GLIBC_2.27", glob_t, real_glob_get(), glob,
	  glob_readdir)
GLOB_HOOK(cordon_glob_old, "glob@GLIBC_2.2.5", glob_t, real_glob_old_get(),
	  glob, glob_readdir)
GLOB_HOOK(cordon_glob64, "glob64@@GLIBC_2.27", glob64_t, real_glob64_get(),
	  glob64, glob_readdir64)
GLOB_HOOK(cordon_glob64_old, "glob64@GLIBC_2.2.5", glob64_t,
	  real_glob64_old_get(), glob64, glob_readdir64)

/* ---- nftw and ftw ---- */

/*
 * The callback of the walk in progress on this thread, so that the
 * shim's own callback can pass each entry on.  Initial-exec TLS, as the
 * guard: reading it never enters the loader.  A walk started from a
 * callback saves and restores the outer one.
 */
struct walk {
	void *fn;
	bool nftw;  /* fn takes a struct FTW */
	bool chdir; /* FTW_CHDIR: libc changes directory, unseen (cwd.c) */
};
static __thread struct walk walking __attribute__((tls_model("initial-exec")));

/* A directory the walk could not read: the kernel's denial, if it is. */
static void walk_dnr(const char *path, int flag)
{
	struct op op = OP("nftw", RIGHT_R, AT_FDCWD, path, 0);

	if (flag == FTW_DNR)
		hook_failed(&op, EACCES);
}

static int walk_cb(const char *path, const struct stat *st, int flag,
		   struct FTW *ftw)
{
	struct walk w = walking;
	int saved = errno;

	walk_dnr(path, flag);
	if (w.chdir)
		cwd_changed();
	errno = saved;
	if (w.nftw)
		return ((nftw_fn)w.fn)(path, st, flag, ftw);
	return ((ftw_fn)w.fn)(path, st, flag);
}

/* The root nftw could not read, handed to @fn as glibc hands it: the
 * path without trailing slashes, FTW_DNR, level 0, errno EACCES. */
static int walk_refused(const char *path, const struct stat *st,
			const struct walk *w, int flags)
{
	char buf[PATH_BUF];
	size_t len = strnlen(path, sizeof(buf) - 1);
	struct FTW ftw = { 0 };
	int ret;

	memcpy(buf, path, len);
	while (len > 1 && buf[len - 1] == '/')
		len--;
	buf[len] = '\0';
	ftw.base = (int)len;
	while (ftw.base > 0 && buf[ftw.base - 1] != '/')
		ftw.base--;
	if (!w->nftw)
		return ((ftw_fn)w->fn)(buf, st, FTW_DNR);
	ret = ((nftw_fn)w->fn)(buf, st, FTW_DNR, &ftw);
	if ((flags & FTW_ACTIONRETVAL) &&
	    (ret == FTW_SKIP_SUBTREE || ret == FTW_SKIP_SIBLINGS))
		ret = 0;
	return ret;
}

/* The common body of the nftw and ftw hooks: @real is called through
 * @call as real(path, cb, fds, flags), @cb being @shim_cb while the
 * policy is active. */
static int walk(const char *name, const char *path, struct walk w, int fds,
		int flags, int (*call)(void *, const char *, void *, int, int),
		void *real, void *shim_cb)
{
	struct walk outer = walking;
	struct stat st;
	int saved = errno;
	bool dnr;
	int err, ret;

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	err = decide_root(name, AT_FDCWD, path, flags & FTW_PHYS, &st, &dnr);
	if (err && !dnr) {
		errno = err;
		return -1;
	}
	if (dnr) {
		errno = err; /* glibc leaves the failed opendir's errno */
		return walk_refused(path, &st, &w, flags);
	}
	if (!shim.active || !w.fn)
		return call(real, path, w.fn, fds, flags);
	w.chdir = flags & FTW_CHDIR;
	walking = w;
	errno = saved;
	ret = call(real, path, shim_cb, fds, flags);
	saved = errno;
	if (w.chdir)
		cwd_changed(); /* back where it began, or not, on failure */
	walking = outer;
	errno = saved;
	return ret;
}

static int call_nftw(void *real, const char *path, void *fn, int fds, int flags)
{
	return ((int (*)(const char *, void *, int, int))real)(path, fn, fds,
							       flags);
}

static int call_ftw(void *real, const char *path, void *fn, int fds, int flags)
{
	(void)flags;
	return ((int (*)(const char *, void *, int))real)(path, fn, fds);
}

/*
 * ftw's callback has no struct FTW: the shim passes nftw-shaped
 * callbacks only to nftw, and for ftw wraps with a three-argument one.
 */
static int walk_cb3(const char *path, const struct stat *st, int flag)
{
	struct walk w = walking;
	int saved = errno;

	walk_dnr(path, flag);
	errno = saved;
	return ((ftw_fn)w.fn)(path, st, flag);
}

#define NFTW_HOOK(fn, sym, name, type, realfn)                                 \
	SHIM_API int fn(const char *path, type cb, int fds, int flags);        \
	__asm__(".symver " #fn "," sym ",remove");                             \
	SHIM_API int fn(const char *path, type cb, int fds, int flags)         \
	{                                                                      \
		struct walk w = { (void *)cb, true, false };                   \
		return walk(name, path, w, fds, flags, call_nftw,              \
			    (void *)realfn, (void *)walk_cb);                  \
	}

NFTW_HOOK(cordon_nftw, "nftw@@GLIBC_2.3.3", "nftw", nftw_fn, real_nftw_get())
NFTW_HOOK(cordon_nftw_old, "nftw@GLIBC_2.2.5", "nftw", nftw_fn,
	  real_nftw_old_get())
NFTW_HOOK(cordon_nftw64, "nftw64@@GLIBC_2.3.3", "nftw64", nftw64_fn,
	  real_nftw64_get())
NFTW_HOOK(cordon_nftw64_old, "nftw64@GLIBC_2.2.5", "nftw64", nftw64_fn,
	  real_nftw64_old_get())

SHIM_API int ftw(const char *path, ftw_fn cb, int fds)
{
	struct walk w = { (void *)cb, false, false };

	return walk("ftw", path, w, fds, 0, call_ftw, (void *)real_ftw_get(),
		    (void *)walk_cb3);
}

SHIM_API int ftw64(const char *path, ftw64_fn cb, int fds)
{
	struct walk w = { (void *)cb, false, false };

	return walk("ftw64", path, w, fds, 0, call_ftw,
		    (void *)real_ftw64_get(), (void *)walk_cb3);
}

/* ---- fts ---- */

/* Each root fts_open would walk: 0, or the errno to fail with. */
static int fts_refused(const char *name, char *const *argv, int options)
{
	bool nofollow = (options & FTS_PHYSICAL) && !(options & FTS_COMFOLLOW);
	struct stat st;
	bool dnr;
	int err;

	for (int i = 0; argv && argv[i]; i++) {
		err = decide_root(name, AT_FDCWD, argv[i], nofollow, &st, &dnr);
		if (err)
			return err;
	}
	return 0;
}

/* fts_open and fts64_open: each root decided before the walk starts. */
#define FTS_HOOK(name, type, compar)                                           \
	SHIM_API type *name(char *const *argv, int options, compar cmp)        \
	{                                                                      \
		int saved = errno;                                             \
		int err = fts_refused(#name, argv, options);                   \
		if (err || !real_##name##_get()) {                             \
			errno = err ? err : ENOSYS;                            \
			return NULL;                                           \
		}                                                              \
		errno = saved;                                                 \
		return real_##name##_get()(argv, options, cmp);                \
	}

FTS_HOOK(fts_open, FTS, fts_compar)
FTS_HOOK(fts64_open, FTS64, fts64_compar)
