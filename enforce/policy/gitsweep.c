/*
 * gitsweep.c - after the run, move aside what the command planted for
 * git outside (gitguard.c says what and why).
 *
 * It runs in the supervisor once the command's PID namespace is empty
 * (its init leaves last, and the kernel ends every process in it before
 * that), so nothing inside can change a file between the check and the
 * move.  A file made or changed during the run is told by its ctime,
 * which no unprivileged process can set.  The git index it reads is the
 * command's to write: gitindex.c trusts no length in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "enforce/policy/gitindex.h"

#define INDEX_MAX (512u << 20) /* a larger index is not read */

struct sweep {
	const struct policy *policy;
	struct gitguard_dir dirs[GITGUARD_MAX];
	size_t ndirs;
	const struct gitguard_dir *in; /* the repository being read */
	void (*fn)(const struct gitguard_event *e, void *arg);
	void *arg;
	size_t moved;
};

static bool changed_since(const struct stat *st, const struct timespec *t)
{
	return st->st_ctim.tv_sec > t->tv_sec ||
	       (st->st_ctim.tv_sec == t->tv_sec &&
		st->st_ctim.tv_nsec >= t->tv_nsec);
}

static bool changed(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && changed_since(&st, gitguard_started());
}

/* Move @path to @path.cordon-PID, and say so; @allow lifts it. */
static void move_aside(struct sweep *s, const char *path, const char *why,
		       const char *allow)
{
	char to[PATH_BUF + 32];
	struct gitguard_event e = { .path = path, .why = why, .allow = allow };

	snprintf(to, sizeof(to), "%s.cordon-%d", path, (int)getpid());
	if (rename(path, to) == 0)
		e.moved = to;
	else
		e.err = errno;
	s->moved++;
	s->fn(&e, s->arg);
}

/* A --write naming @path or a path below it lifts its protection. */
static bool lifted(const struct sweep *s, const char *path)
{
	for (size_t i = 0; i < s->policy->nroots; i++) {
		const struct root *r = &s->policy->roots[i];

		if (r->origin == ORIGIN_USER && (r->rights & RIGHT_W) &&
		    path_is_within(r->path, path))
			return true;
	}
	return false;
}

/* Was any file of @gitdir that git would run written during the run? */
static bool planted_in(const char *gitdir)
{
	char path[PATH_BUF];

	for (size_t i = 0; policy_git_files[i]; i++)
		if (snprintf(path, sizeof(path), "%s/%s", gitdir,
			     policy_git_files[i]) < (int)sizeof(path) &&
		    changed(path))
			return true;
	return false;
}

static bool is_protected_worktree(const struct sweep *s, const char *wt)
{
	for (size_t i = 0; i < s->ndirs; i++)
		if (s->dirs[i].worktree && strcmp(s->dirs[i].worktree, wt) == 0)
			return true;
	return false;
}

/* A gitfile (or a link) at @git in @wt: changed itself, or naming a
 * git directory whose files were written during the run. */
static bool gitfile_planted(const char *wt, const char *git,
			    const struct stat *st)
{
	char target[PATH_BUF], dir[PATH_BUF];
	ssize_t n = -1;
	int fd;

	if (changed_since(st, gitguard_started()))
		return true;
	fd = open(git, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		n = read(fd, target, sizeof(target) - 1);
		close(fd);
	}
	if (n <= 8 || strncmp(target, "gitdir: ", 8) != 0)
		return false;
	target[n] = '\0';
	target[strcspn(target, "\r\n")] = '\0';
	if (target[8] == '/')
		return planted_in(target + 8);
	return snprintf(dir, sizeof(dir), "%s/%s", wt, target + 8) <
		       (int)sizeof(dir) &&
	       planted_in(dir);
}

/* A gitlink of the index being read: a repository `git status` enters. */
static void gitlink(const char *rel, void *arg)
{
	struct sweep *s = arg;
	char wt[PATH_BUF], git[PATH_BUF];
	struct stat st;
	bool planted;

	if (rel[0] == '/' || strstr(rel, "..") ||
	    snprintf(wt, sizeof(wt), "%s/%s", s->in->worktree, rel) >=
		    (int)sizeof(wt) ||
	    snprintf(git, sizeof(git), "%s/.git", wt) >= (int)sizeof(git) ||
	    is_protected_worktree(s, wt) || lstat(git, &st) < 0)
		return;
	planted = S_ISDIR(st.st_mode) ? planted_in(git)
				      : gitfile_planted(wt, git, &st);
	if (planted && !lifted(s, git))
		move_aside(s, git,
			   "a repository made or changed during the run and "
			   "added to a protected repository's index: git "
			   "status outside would run git in it",
			   git);
}

/* The gitlinks of @g's index, when the index changed during the run. */
static void read_index(struct sweep *s, const struct gitguard_dir *g)
{
	char path[PATH_BUF];
	struct stat st;
	void *map;
	int fd;

	if (!g->worktree || snprintf(path, sizeof(path), "%s/index", g->dir) >=
				    (int)sizeof(path))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 12 ||
	    (unsigned long long)st.st_size > INDEX_MAX ||
	    !changed_since(&st, gitguard_started())) {
		close(fd);
		return;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	s->in = g;
	/* the object names' length: SHA-1 or SHA-256; read both ways, a
	 * gitlink found by either counts */
	gitindex_gitlinks(map, (size_t)st.st_size, 20, gitlink, s);
	gitindex_gitlinks(map, (size_t)st.st_size, 32, gitlink, s);
	munmap(map, (size_t)st.st_size);
}

size_t gitguard_sweep(const struct policy *p,
		      void (*fn)(const struct gitguard_event *e, void *arg),
		      void *arg)
{
	static struct sweep s;
	const char *hijacks[16];
	size_t nh = gitguard_hijacks(hijacks, 16);
	char path[PATH_BUF];
	struct stat st;

	s.ndirs = gitguard_dirs(s.dirs, sizeof(s.dirs) / sizeof(s.dirs[0]));
	s.policy = p;
	s.fn = fn;
	s.arg = arg;
	s.moved = 0;
	for (size_t i = 0; i < s.ndirs; i++) {
		const struct gitguard_dir *g = &s.dirs[i];

		for (size_t c = 0; policy_git_files[c]; c++) {
			if (!(g->absent & (1u << c)) ||
			    snprintf(path, sizeof(path), "%s/%s", g->dir,
				     policy_git_files[c]) >=
				    (int)sizeof(path) ||
			    lstat(path, &st) < 0)
				continue;
			move_aside(&s, path,
				   "made during the run in a protected "
				   "repository: git outside would read it",
				   g->dir);
		}
		read_index(&s, g);
	}
	for (size_t i = 0; i < nh; i++) {
		char *slash;

		if (lstat(hijacks[i], &st) < 0 ||
		    snprintf(path, sizeof(path), "%s", hijacks[i]) >=
			    (int)sizeof(path))
			continue;
		slash = strrchr(path, '/');
		if (slash && slash != path)
			*slash = '\0';
		move_aside(&s, hijacks[i],
			   "made during the run inside a repository: git run "
			   "there outside would use it",
			   path);
	}
	return s.moved;
}
