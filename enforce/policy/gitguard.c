/*
 * gitguard.c - keep the command from making git outside the sandbox run
 * a program.
 *
 * git runs programs that its repository names: hooks, and commands set
 * in its configuration (core.fsmonitor, core.hooksPath, core.pager,
 * core.editor, core.sshCommand, alias.*, filter and diff drivers,
 * credential helpers, gpg.program, include.path, ...).  A command that
 * may write a repository could plant one, and the user's next ordinary
 * `git status` would run it, outside.  In each git directory found in a
 * writable root, these are protected (gitrepository-layout(5),
 * git-config(1), githooks(5), git-worktree(1), gitsubmodules(7)):
 *
 *   config            the repository's configuration
 *   config.worktree   a worktree's own (extensions.worktreeConfig)
 *   commondir         "take config and hooks from that directory"
 *   hooks/            every hook
 *   modules/NAME/     a submodule's git directory: all of the above
 *   worktrees/NAME/   a linked worktree's: config.worktree, commondir
 *   .git (a file)     "gitdir: PATH": the repository is elsewhere
 *
 * Not listed, because they run nothing themselves: info/attributes and
 * .gitattributes (they only select drivers the configuration defines),
 * objects/info/alternates (objects, no configuration), the index.
 *
 * Repositories are found at the start: the git directory of each
 * writable directory root (.git, a directory or a gitfile), the
 * submodules its .gitmodules lists, its modules/ and worktrees/, and
 * the repositories nested in a workspace root up to NEST_DEPTH levels
 * down (vendor/lib: NEST_DIRS directories read at most, not hidden
 * directories or node_modules; every directory read costs each start).  The
 * kernel layer protects what exists (mounts.c: a read-only bind, the git
 * directory pinned so that it cannot be renamed away).  What does not exist yet
 * cannot be mounted over and Landlock cannot take a right back below a root:
 * such a file is a protected root that the shim refuses to make (advisory), and
 * after the run, when nothing inside runs any more, gitguard_sweep() moves it
 * aside if it was made all the same.  `--write PATH` lifts a protection
 * where PATH is the protected file itself or, for all of them at once,
 * its git directory (--write .git).  The same holds for a .git made
 * in a writable root that lies inside a repository (git run there would
 * find it first).  A repository the command creates is its own, like
 * any file it writes; but one it adds to a protected repository's index
 * (a gitlink: `git status` enters every populated one and runs git
 * there) is moved aside by the sweep when its configuration or hooks
 * were written during the run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "enforce/policy/gitindex.h"

#define NEST_DEPTH 2   /* levels searched below a workspace root */
#define NEST_DIRS  128 /* directories read in that search, in all */
#define HIJACK_MAX 16

struct gitdir {
	char *dir;	 /* the git directory, canonical */
	char *worktree;	 /* its working tree, or NULL */
	unsigned absent; /* bit i: policy_git_files[i] did not exist at the
			    start */
};

static struct gitdir dirs[GITGUARD_MAX];
static size_t ndirs;
static bool truncated;
static char *hijacks[HIJACK_MAX]; /* a .git absent at the start */
static size_t nhijacks;
static struct timespec started;
static size_t nest_budget;

static int add_repo(struct policy *p, const char *worktree);

static bool is_writable(const struct policy *p, const char *path)
{
	return (policy_rights(p, path) & RIGHT_W) != 0;
}

/* Did the user name @path itself with --write?  Then what gitguard
 * would protect directly in it is the command's to change: --write
 * .git lifts every protection of that git directory (the files in it
 * may not exist, and a path named on the command line must). */
static bool user_writes(const struct policy *p, const char *path)
{
	for (size_t i = 0; i < p->nroots; i++)
		if (p->roots[i].origin == ORIGIN_USER &&
		    (p->roots[i].rights & RIGHT_W) &&
		    strcmp(p->roots[i].path, path) == 0)
			return true;
	return false;
}

static int join(char out[PATH_BUF], const char *dir, const char *name)
{
	int n = snprintf(out, PATH_BUF, "%s/%s", strcmp(dir, "/") ? dir : "",
			 name);

	return n < 0 || n >= PATH_BUF ? -ENAMETOOLONG : 0;
}

static struct gitdir *known(const char *dir)
{
	for (size_t i = 0; i < ndirs; i++)
		if (strcmp(dirs[i].dir, dir) == 0)
			return &dirs[i];
	return NULL;
}

/* Protect the classes of @dir: the existing ones, and the absent ones
 * remembered for the sweep. */
static int protect_classes(struct policy *p, struct gitdir *g)
{
	char path[PATH_BUF];
	struct stat st;
	int ret = 0;

	for (size_t i = 0; !ret && i < POLICY_NGIT_FILES; i++) {
		bool hooks = strcmp(policy_git_files[i], "hooks") == 0;

		/* @g->dir is canonical: so is a name in it, but a link */
		if (join(path, g->dir, policy_git_files[i]))
			continue;
		if (lstat(path, &st) == 0) {
			ret = S_ISLNK(st.st_mode)
				      ? protect_write(p, path)
				      : protect_write_canon(
						p, path, S_ISDIR(st.st_mode));
			continue;
		}
		ret = protect_write_canon(p, path, hooks);
		/* protected (not lifted by a --write naming it) */
		if (!is_writable(p, path))
			g->absent |= 1u << i;
	}
	return ret;
}

static int add_gitdir(struct policy *p, const char *dir, const char *worktree);

/* Every git directory in @dir/@sub (modules/ or worktrees/). */
static int add_children(struct policy *p, const char *dir, const char *sub)
{
	char path[PATH_BUF], child[PATH_BUF];
	DIR *d;
	struct dirent *e;
	int ret = 0;

	if (join(path, dir, sub) || !(d = opendir(path)))
		return 0;
	while (!ret && (e = readdir(d))) {
		if (e->d_name[0] == '.' || join(child, path, e->d_name))
			continue;
		ret = add_gitdir(p, child, NULL);
	}
	closedir(d);
	return ret;
}

/* A linked worktree's gitdir file names its checkout's .git file. */
static void worktree_of(const char *dir, char out[PATH_BUF])
{
	char path[PATH_BUF];
	ssize_t n = -1;
	int fd;

	out[0] = '\0';
	if (join(path, dir, "gitdir"))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, out, PATH_BUF - 1);
		close(fd);
	}
	out[n > 0 ? n : 0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	if (out[0] != '/' || strlen(out) < 6 ||
	    strcmp(out + strlen(out) - 5, "/.git") != 0) {
		out[0] = '\0';
		return;
	}
	out[strlen(out) - 5] = '\0';
}

static int add_gitdir(struct policy *p, const char *dir, const char *worktree)
{
	char canon[PATH_BUF], wt[PATH_BUF];
	struct gitdir *g;
	int ret;

	if (path_resolve(AT_FDCWD, dir, 0, canon) != 0 ||
	    !is_writable(p, canon) || user_writes(p, canon) || known(canon))
		return 0;
	/* room for its files, and for what is protected after it */
	if (ndirs == GITGUARD_MAX ||
	    p->nroots + POLICY_NGIT_FILES + 16 > POLICY_MAX_ROOTS) {
		truncated = true;
		return 0;
	}
	g = &dirs[ndirs];
	g->dir = strdup(canon);
	g->worktree = worktree ? strdup(worktree) : NULL;
	if (!g->dir || (worktree && !g->worktree))
		return -ENOMEM;
	ndirs++;
	ret = protect_classes(p, g);
	if (!ret)
		ret = add_children(p, canon, "modules");
	if (!ret && strstr(canon, "/worktrees/")) {
		worktree_of(canon, wt);
		if (wt[0] && !g->worktree)
			g->worktree = strdup(wt);
		if (wt[0])
			ret = add_repo(p, wt);
	}
	if (!ret)
		ret = add_children(p, canon, "worktrees");
	return ret;
}

/* "gitdir: PATH" of the gitfile @file, relative to @worktree. */
static int gitfile_target(const char *file, const char *worktree,
			  char out[PATH_BUF])
{
	char buf[PATH_BUF], path[PATH_BUF];
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 8)
		return -EINVAL;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (strncmp(buf, "gitdir: ", 8) != 0)
		return -EINVAL;
	if (buf[8] == '/')
		snprintf(path, sizeof(path), "%s", buf + 8);
	else if (join(path, worktree, buf + 8))
		return -ENAMETOOLONG;
	return path_resolve(AT_FDCWD, path, 0, out);
}

/* The submodules .gitmodules lists under @worktree ("path = X"). */
static int add_submodules(struct policy *p, const char *worktree)
{
	char path[PATH_BUF], sub[PATH_BUF], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int ret = 0;

	if (join(path, worktree, ".gitmodules") || !(f = fopen(path, "re")))
		return 0;
	while (!ret && getline(&line, &cap, f) > 0) {
		char *s = line + strspn(line, " \t");

		if (strncmp(s, "path", 4) != 0)
			continue;
		s += 4 + strspn(s + 4, " \t");
		if (*s++ != '=')
			continue;
		s += strspn(s, " \t");
		s[strcspn(s, "\r\n")] = '\0';
		if (*s && *s != '/' && !join(sub, worktree, s))
			ret = add_repo(p, sub);
	}
	free(line);
	fclose(f);
	return ret;
}

/* The repository whose working tree is @worktree (it has a .git). */
static int add_repo(struct policy *p, const char *worktree)
{
	char git[PATH_BUF], target[PATH_BUF];
	struct stat st;
	int ret = 0;

	if (join(git, worktree, ".git") || lstat(git, &st) < 0)
		return 0;
	if (S_ISDIR(st.st_mode)) {
		ret = add_gitdir(p, git, worktree);
	} else if (S_ISREG(st.st_mode)) {
		ret = protect_write(p, git);
		if (!ret && gitfile_target(git, worktree, target) == 0)
			ret = add_gitdir(p, target, worktree);
	}
	if (!ret)
		ret = add_submodules(p, worktree);
	return ret;
}

/* Is @dir inside a repository's working tree (a .git above it)? */
static bool inside_repo(const char *dir)
{
	char path[PATH_BUF], git[PATH_BUF];
	struct stat st;
	char *slash;

	snprintf(path, sizeof(path), "%s", dir);
	while ((slash = strrchr(path, '/'))) {
		*slash = '\0';
		if (!join(git, path[0] ? path : "/", ".git") &&
		    lstat(git, &st) == 0)
			return true;
		if (slash == path)
			return false;
	}
	return false;
}

static bool skipped_dir(const char *name)
{
	return name[0] == '.' || strcmp(name, "node_modules") == 0;
}

/*
 * Repositories nested in the directory @fd (@dir, which this takes),
 * @depth levels down at most: each directory read once, by descriptor
 * (a path is looked up once), the last level only asked for a .git.
 */
static int nest(struct policy *p, int fd, const char *dir, int depth)
{
	char child[PATH_BUF], git[NAME_MAX + 6];
	struct stat st;
	struct dirent *e;
	DIR *d;
	int ret = 0;

	if (depth == 0 || nest_budget == 0 || !(d = fdopendir(fd))) {
		close(fd);
		return 0;
	}
	nest_budget--;
	while (!ret && (e = readdir(d))) {
		int sub;

		if (skipped_dir(e->d_name) ||
		    (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    join(child, dir, e->d_name))
			continue;
		if (depth == 1) { /* the last level: one question */
			if (strlen(e->d_name) + 6 <= sizeof(git) &&
			    snprintf(git, sizeof(git), "%s/.git", e->d_name) >
				    0 &&
			    fstatat(fd, git, &st, AT_SYMLINK_NOFOLLOW) == 0)
				ret = add_repo(p, child);
			continue;
		}
		sub = openat(fd, e->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue; /* no directory, or a link to one */
		if (fstatat(sub, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
			ret = add_repo(p, child);
		if (!ret)
			ret = nest(p, sub, child, depth - 1);
		else
			close(sub);
	}
	closedir(d);
	return ret;
}

static bool is_temp(const char *dir)
{
	static const char *const temp[] = { "/tmp", "/var/tmp", "/dev/shm" };
	const char *tmpdir = getenv("TMPDIR");

	for (size_t i = 0; i < sizeof(temp) / sizeof(temp[0]); i++)
		if (strcmp(dir, temp[i]) == 0)
			return true;
	return tmpdir && strcmp(dir, tmpdir) == 0;
}

/* One writable directory root: its repository, or the .git that would
 * shadow the one above it; what is nested in it. */
static int guard_root(struct policy *p, const char *root)
{
	char git[PATH_BUF];
	struct stat st;
	int ret;

	if (join(git, root, ".git"))
		return 0;
	if (lstat(git, &st) == 0) {
		ret = add_repo(p, root);
	} else if (strcmp(root, "/") != 0 && !user_writes(p, root) &&
		   inside_repo(root) && nhijacks < HIJACK_MAX) {
		ret = protect_write_canon(p, git, true);
		if (!ret && !is_writable(p, git)) {
			hijacks[nhijacks] = strdup(git);
			if (!hijacks[nhijacks])
				return -ENOMEM;
			nhijacks++;
		}
	} else {
		ret = 0;
	}
	if (!ret && strcmp(root, "/") != 0 && !is_temp(root)) {
		int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd >= 0)
			ret = nest(p, fd, root, NEST_DEPTH);
	}
	return ret;
}

int gitguard_find(struct policy *p)
{
	/* the roots as given: protecting adds roots of its own */
	size_t n = p->nroots;
	char **todo = calloc(n + 1, sizeof(*todo));
	size_t ntodo = 0;
	int ret = 0;

	if (!todo)
		return -ENOMEM;
	clock_gettime(CLOCK_REALTIME_COARSE, &started);
	nest_budget = NEST_DIRS;
	for (size_t i = 0; i < n; i++) {
		const struct root *r = &p->roots[i];

		if (r->is_dir && r->origin != ORIGIN_PROTECTED &&
		    (r->rights & RIGHT_W))
			todo[ntodo++] = r->path;
	}
	for (size_t i = 0; !ret && i < ntodo; i++)
		ret = guard_root(p, todo[i]);
	free(todo);
	return ret;
}

size_t gitguard_count(bool *trunc)
{
	*trunc = truncated;
	return ndirs;
}

size_t gitguard_dirs(struct gitguard_dir *out, size_t max)
{
	for (size_t i = 0; i < ndirs && i < max; i++)
		out[i] = (struct gitguard_dir){ dirs[i].dir, dirs[i].worktree,
						dirs[i].absent };
	return ndirs < max ? ndirs : max;
}

size_t gitguard_hijacks(const char **out, size_t max)
{
	for (size_t i = 0; i < nhijacks && i < max; i++)
		out[i] = hijacks[i];
	return nhijacks < max ? nhijacks : max;
}

const struct timespec *gitguard_started(void)
{
	return &started;
}
