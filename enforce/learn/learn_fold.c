/*
 * learn_fold.c - `cordon learn`: where the grant for a needed path goes,
 * and how the profile writes it.
 *
 * A learned profile must rerun with no denial on a clean tree: the tree
 * as it was before the learning run.  So a grant never names what the
 * run made itself (it would be missing at the next run, and a missing
 * root is refused): a path made by the run is granted through its
 * nearest ancestor that was there before, told by its birth time
 * (statx's btime) against the moment the run began.  Where that
 * ancestor would be / or $HOME, or the path is in a known cache in
 * $HOME (toolroot.h: ~/.npm, ~/.cache/NAME, ...), the grant is the
 * directory itself and the profile says to make it ("create"); a known
 * toolchain (~/.rustup) is granted whole.  No other directory of $HOME
 * widens: a file read there is that file.  A file system that keeps no birth
 * time makes every path look old: the grant is then the path itself, as before.
 *
 * Paths are written with tokens (the workspace as ".", the temp
 * directory as "$TMPDIR", the home as "~"), which profile.c expands, so
 * that the profile moves with the workspace.  Nothing here writes.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "enforce/learn/learn_fold.h"
#include "shim/core/policy.h"
#include "shim/core/strbuf.h"
#include "shim/core/toolroot.h"

bool learn_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void copy(const char *path, char out[PATH_BUF])
{
	struct strbuf sb = STRBUF(out, PATH_BUF);

	if (path != out)
		sb_puts(&sb, path);
}

/* @path's directory, in @out (which may be @path). */
static void parent(const char *path, char out[PATH_BUF])
{
	char *slash;

	copy(path, out);
	slash = strrchr(out, '/');
	if (slash && slash != out)
		*slash = '\0';
	else
		snprintf(out, PATH_BUF, "/");
}

static bool is_wide(const struct learn_run *run, const char *path)
{
	return strcmp(path, "/") == 0 ||
	       (run->home && strcmp(path, run->home) == 0);
}

/*
 * A file's birth time is the file systems' clock: the coarse one (a
 * tick, 1 to 10 ms), or a finer one already handed out (multigrain
 * time stamps, Linux 6.13), never ahead of the real time.  So the fine
 * clock now is at or after the birth of every file made so far; once
 * the coarse clock has passed it, every file made later is born after
 * it.  A directory made in the same tick as the run began, just before
 * it (a test's, a script's), compared with the coarse clock alone,
 * looked made by the run.
 */
void learn_fold_mark(struct timespec *start)
{
	struct timespec now, tick = { 0, 200 * 1000 };

	clock_gettime(CLOCK_REALTIME, start);
	for (;;) {
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
		if (now.tv_sec > start->tv_sec ||
		    (now.tv_sec == start->tv_sec &&
		     now.tv_nsec > start->tv_nsec))
			return;
		nanosleep(&tick, NULL);
	}
}

/* Was @path there before the run?  Not when it is missing now (made
 * and removed by the run), nor when it was born after the run began.
 * A birth time the file system does not keep says nothing: there. */
static bool existed(const struct learn_run *run, const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &stx) < 0)
		return false;
	if (!(stx.stx_mask & STATX_BTIME) || stx.stx_btime.tv_sec == 0)
		return true;
	if (stx.stx_btime.tv_sec != run->start.tv_sec)
		return stx.stx_btime.tv_sec < run->start.tv_sec;
	return stx.stx_btime.tv_nsec <= (unsigned int)run->start.tv_nsec;
}

/* Where the grant for @rights at @path goes, before the clean-tree
 * rule; true for a cache. */
static bool place(const struct learn_run *run, const char *path,
		  unsigned int rights, char out[PATH_BUF])
{
	/* a known tool root (toolroot.h): a cache (~/.npm, ~/.cache/NAME)
	 * or a toolchain (~/.rustup); any other directory of $HOME is no
	 * one's, and a file read in ~/.demo is that file */
	const struct toolroot *tr =
		run->home ? toolroot_of(run->home, path, out) : NULL;

	if (tr && tr->right == RIGHT_W)
		return true;
	/* a toolchain: whole, where it is there before the run */
	if (tr && existed(run, out))
		return false;
	if (((rights & RIGHT_X) && !learn_is_dir(path)) || (rights & RIGHT_W))
		/* a program: its directory; a file or directory made (or
		 * replaced, removed) there: where it was made */
		parent(path, out);
	else
		copy(path, out);
	/* never the whole filesystem nor the whole home */
	if (is_wide(run, out))
		copy(path, out);
	return false;
}

enum learn_grant learn_fold(const struct learn_run *run, const char *path,
			    unsigned int rights, char out[PATH_BUF])
{
	char up[PATH_BUF];
	bool cache = place(run, path, rights, out);

	if (existed(run, out))
		return GRANT_ROOT;
	copy(out, up);
	do
		parent(up, up);
	while (strcmp(up, "/") != 0 && !existed(run, up));
	if (!cache && !is_wide(run, up)) {
		copy(up, out);
		return GRANT_ROOT;
	}
	/* made by the run right under / or $HOME, or a cache of its own:
	 * the directory itself, made before the next run */
	return learn_is_dir(out) ? GRANT_CREATE : GRANT_NONE;
}

/* @path inside @root, written as @token followed by what is below. */
static bool token(const char *path, const char *root, const char *tok,
		  char out[PATH_BUF])
{
	struct strbuf sb = STRBUF(out, PATH_BUF);
	size_t n = strlen(root);

	if (!root[0] || strcmp(root, "/") == 0 || !path_is_within(path, root))
		return false;
	sb_puts(&sb, tok);
	sb_puts(&sb, path + n);
	return !sb.full;
}

void learn_token(const struct learn_run *run, const char *path,
		 char out[PATH_BUF])
{
	if (token(path, run->cwd, ".", out) ||
	    token(path, run->tmp, "$TMPDIR", out) ||
	    (run->home && token(path, run->home, "~", out)))
		return;
	copy(path, out);
}
