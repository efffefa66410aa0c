/*
 * toolroot.c - the toolchains' and caches' roots under $HOME (see
 * toolroot.h).  A denial under ~/.rustup grants ~/.rustup with exec
 * from the first line, not one more binary of it each round; a write
 * under ~/.npm/_cacache/index-v5/b8 grants ~/.npm, not a directory
 * named by a hash that the next run does not use.  Allocates nothing;
 * async-signal-safe (the shim's lines are made in vfork children).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/policy.h"
#include "shim/core/strbuf.h"
#include "shim/core/toolroot.h"

/* The more specific first: the first holding a path wins. */
static const struct toolroot roots[] = {
	{ ".rustup", RIGHT_X, "cargo" },
	{ ".cargo/bin", RIGHT_X, "cargo" },
	{ ".cargo", RIGHT_W, "cargo" },
	{ ".pyenv", RIGHT_X, "pyenv" },
	{ ".nvm", RIGHT_X, "nvm" },
	{ ".sdkman", RIGHT_X, "sdkman" },
	{ ".local/bin", RIGHT_X, "local" },
	{ ".local/lib", RIGHT_X, "local" },
	{ ".npm/_npx", RIGHT_X, "npm" },
	{ ".npm", RIGHT_W, "npm" },
	{ ".cache/pip", RIGHT_W, "pip" },
	{ ".cache/ccache", RIGHT_W, "ccache" },
	{ ".ccache", RIGHT_W, "ccache" },
	{ ".cache/go-build", RIGHT_W, "go" },
	{ "go/pkg/mod", RIGHT_W, "go" },
	{ "go/bin", RIGHT_X, "go" },
	{ ".gradle", RIGHT_W, "gradle" },
	{ ".m2", RIGHT_W, "maven" },
	{ ".cache/*", RIGHT_W, NULL },
};

const char *const toolroot_protected[] = {
	".cargo/env",	  ".cargo/env.fish", ".cargo/bin",  ".local/bin",
	".pyenv/shims",	  ".pyenv/bin",	     ".nvm/nvm.sh", ".sdkman/bin",
	".sdkman/etc",	  ".gitconfig",	     ".config/git", ".npmrc",
	".pyenv/version", "go/bin",	     NULL,
};

/* Does @rest (the path below $HOME) lie in @sub?  The length of the
 * root's part of @rest, or 0. */
static size_t match(const char *rest, const char *sub)
{
	size_t n = strlen(sub);

	if (n >= 2 && sub[n - 1] == '*' && sub[n - 2] == '/') {
		/* "DIR/ *" (no space): DIR/NAME for the NAME @rest names, never
		 * DIR itself */
		if (strncmp(rest, sub, n - 1) != 0 || !rest[n - 1] ||
		    rest[n - 1] == '/')
			return 0;
		return n - 1 + strcspn(rest + n - 1, "/");
	}
	if (strncmp(rest, sub, n) != 0 || (rest[n] && rest[n] != '/'))
		return 0;
	return n;
}

const struct toolroot *toolroot_of(const char *home, const char *path,
				   char out[PATH_BUF])
{
	size_t hl, n;
	const char *rest;

	out[0] = '\0';
	if (!home || !home[0] || strcmp(home, "/") == 0 ||
	    !path_is_within(path, home))
		return NULL;
	hl = strlen(home);
	if (path[hl] != '/')
		return NULL;
	rest = path + hl + 1;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		struct strbuf sb = STRBUF(out, PATH_BUF);

		n = match(rest, roots[i].sub);
		if (!n)
			continue;
		sb_put(&sb, path, hl + 1 + n);
		if (sb.full) {
			out[0] = '\0';
			return NULL;
		}
		return &roots[i];
	}
	return NULL;
}

unsigned int toolroot_need(const struct toolroot *tr, unsigned int need)
{
	if (need & (RIGHT_W | RIGHT_X))
		return need;
	return need | RIGHT_R | tr->right;
}

/* A directory, and the very path it resolves to (a root naming a
 * link would grant its target). */
static bool is_plain_dir(const char *path)
{
	char canon[PATH_BUF];
	struct stat st;
	int saved = errno;
	bool dir = syscall(SYS_newfstatat, AT_FDCWD, path, &st,
			   AT_SYMLINK_NOFOLLOW) == 0 &&
		   S_ISDIR(st.st_mode) &&
		   path_resolve(AT_FDCWD, path, 0, canon) == 0 &&
		   strcmp(canon, path) == 0;

	errno = saved;
	return dir;
}

/* Does @op make a directory? */
static bool is_mkdir_op(const char *operation)
{
	return operation && strncmp(operation, "mkdir", 5) == 0;
}

/* The first name below the existing @dir on the way to @path, appended
 * to @dir in place: what a --create must make. */
static void first_below(char dir[PATH_BUF], const char *path)
{
	size_t n = strlen(dir), m;
	const char *rest;

	if (!path_is_within(path, dir) || strcmp(path, dir) == 0)
		return;
	rest = path + (strcmp(dir, "/") == 0 ? 1 : n + 1);
	m = strcspn(rest, "/");
	if (strcmp(dir, "/") == 0)
		n = 0;
	if (n + 1 + m >= PATH_BUF)
		return;
	dir[n] = '/';
	memcpy(dir + n + 1, rest, m);
	dir[n + 1 + m] = '\0';
}

void toolroot_grant(const char *home, const char *operation, unsigned int need,
		    const char *resolved, char out[PATH_BUF],
		    unsigned int *flag)
{
	char tool[PATH_BUF];
	const struct toolroot *tr;

	*flag = need;
	if (!home || !home[0])
		return;
	tr = toolroot_of(home, resolved, tool);
	if (tr && is_plain_dir(tool)) {
		memcpy(out, tool, strlen(tool) + 1);
		*flag = toolroot_need(tr, need);
		return;
	}
	if (tr && tr->right == RIGHT_W && !path_exists(tool) &&
	    path_is_within(tool, out)) {
		memcpy(out, tool, strlen(tool) + 1);
		*flag = TOOLROOT_CREATE | RIGHT_R | RIGHT_W;
		return;
	}
	if ((need & RIGHT_W) && is_mkdir_op(operation) &&
	    !path_exists(resolved) &&
	    (strcmp(out, "/") == 0 || strcmp(out, home) == 0)) {
		first_below(out, resolved);
		*flag = TOOLROOT_CREATE | RIGHT_R | RIGHT_W;
	}
}
