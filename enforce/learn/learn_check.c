/*
 * learn_check.c - `cordon learn` reads the records of a run that the
 * command can forge (any datagram to the report socket): each path,
 * port and host it takes from them is checked here before it reaches
 * the profile (design.md, the trust line).
 *
 * A path is kept only absolute, lexically normal (the tree's one
 * normaliser, path_normalize()), bounded and free of control
 * characters.  A grant that would reach what no run should be handed
 * by a profile it did not ask the user about is named here with the
 * reason; learn.c leaves it out (and says so) unless --allow-broad:
 *  - any right on "/", $HOME or a directory above $HOME, or in /proc;
 *  - a write on cordon's state directory (the audit log's) or on the
 *    profile being written: the path, inside it or above it;
 *  - a write on cordon's executable, on what makes git outside run a
 *    program (a git directory, its hooks, config, config.worktree,
 *    commondir, modules/ and worktrees/; policy_git_files), on a
 *    shell startup file (roots_dotfiles) or on a tool's file that a
 *    shell sources or PATH runs (~/.cargo/env, ~/.cargo/bin, ...:
 *    toolroot_protected): the path or inside it, where
 *    a --write lifts the protection (protect.h).  A grant above them
 *    keeps them protected when the profile is loaded (roots.c and
 *    gitguard.c protect them in every writable root), as for --write:
 *    a build's "." that holds a repository, a "/usr/local/bin" that
 *    holds cordon.
 * Each check is made on the path as written and as it resolves now (a
 * link to "/" is "/" once the profile is loaded).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "enforce/learn/learn_check.h"
#include "enforce/base/base.h"
#include "enforce/proxy/proxy.h"
#include "enforce/policy/policy.h"
#include "shim/core/policy.h"
#include "shim/core/strbuf.h"
#include "shim/core/toolroot.h"

/* @path resolved as the kernel would (the missing tail lexically), else
 * normalised; "" when neither. */
static void settle(const char *path, char out[PATH_BUF])
{
	if (path_resolve(AT_FDCWD, path, 0, out) != 0 &&
	    path_normalize(path, out) != 0)
		out[0] = '\0';
}

void learn_guard_init(struct learn_guard *g, const char *home,
		      const char *profile)
{
	char buf[PATH_BUF], cwd[PATH_BUF];

	memset(g, 0, sizeof(*g));
	if (home && home[0] == '/')
		settle(home, g->home);
	if (home_state_dir(buf) == 0)
		settle(buf, g->state);
	if (profile && profile[0] == '/')
		settle(profile, g->profile);
	else if (profile && path_resolve(AT_FDCWD, ".", 0, cwd) == 0 &&
		 snprintf(buf, sizeof(buf), "%s/%s", cwd, profile) <
			 (int)sizeof(buf))
		settle(buf, g->profile);
	if (platform_self_exe(buf) == 0)
		settle(buf, g->self);
}

bool learn_path_clean(const char *in, char out[PATH_BUF])
{
	const unsigned char *s = (const unsigned char *)in;
	uint32_t cp;

	out[0] = '\0';
	if (!in || in[0] != '/' || strnlen(in, PATH_BUF) == PATH_BUF)
		return false;
	while (*s) {
		size_t n = *s < 0x80 ? 1 : sb_utf8(s, &cp);

		if (*s < 0x20 || *s == 0x7f || !n || (n > 1 && sb_hidden(cp)))
			return false;
		s += n;
	}
	if (path_normalize(in, out) != 0) {
		out[0] = '\0';
		return false;
	}
	return true;
}

/* Is @a the path @b, inside it or above it? */
static bool near(const char *a, const char *b)
{
	return b[0] && (path_is_within(a, b) || path_is_within(b, a));
}

static bool is_file(const char *dir, const char *name, bool want_dir)
{
	char p[PATH_BUF];
	struct stat st;

	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p) ||
	    lstat(p, &st) != 0)
		return false;
	return want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

/* Is the directory @dir a git directory: named .git, or holding HEAD,
 * objects/ and refs/ (a bare repository, a submodule's)? */
static bool is_gitdir(const char *dir)
{
	const char *base = strrchr(dir, '/');

	if (base && strcmp(base + 1, ".git") == 0)
		return true;
	return is_file(dir, "HEAD", false) && is_file(dir, "objects", true) &&
	       is_file(dir, "refs", true);
}

/* Is @name (@n bytes) one of git's files that run a program, or a
 * directory of git directories? */
static bool is_git_class(const char *name, size_t n)
{
	static const char *const more[] = { "modules", "worktrees", NULL };

	for (size_t i = 0; policy_git_files[i]; i++)
		if (strlen(policy_git_files[i]) == n &&
		    memcmp(policy_git_files[i], name, n) == 0)
			return true;
	for (size_t i = 0; more[i]; i++)
		if (strlen(more[i]) == n && memcmp(more[i], name, n) == 0)
			return true;
	return false;
}

/* Is @path (normal) a git directory, or in one of its classes? */
static bool touches_git(const char *path)
{
	char up[PATH_BUF];
	size_t len = strlen(path);

	if (len >= sizeof(up))
		return false;
	memcpy(up, path, len + 1);
	/* @path itself, then each directory above it with the component
	 * below it that @path goes through */
	for (;;) {
		char *slash;
		const char *below;

		if (is_gitdir(up)) {
			if (strlen(up) == len)
				return true;
			below = path + strlen(up) + (up[1] ? 1 : 0);
			if (is_git_class(below, strcspn(below, "/")))
				return true;
		}
		slash = strrchr(up, '/');
		if (!slash || slash == up)
			return false;
		*slash = '\0';
	}
}

/* Is @path one of @list (below $HOME), or inside one? */
static bool in_home_list(const struct learn_guard *g, const char *const *list,
			 const char *path)
{
	char p[PATH_BUF];

	for (size_t i = 0; g->home[0] && list[i]; i++)
		if (snprintf(p, sizeof(p), "%s/%s", g->home, list[i]) <
			    (int)sizeof(p) &&
		    path_is_within(path, p))
			return true;
	return false;
}

static const char *risk(const struct learn_guard *g, const char *path,
			bool writes)
{
	if (strcmp(path, "/") == 0)
		return "all of /";
	/* a process's own files are another pid's next run: a grant of
	 * them is all of /proc, and what writes there (java's
	 * coredump_filter) goes on without it */
	if (path_is_within(path, "/proc"))
		return "a process's files under /proc, all of /proc";
	if (g->home[0] && path_is_within(g->home, path))
		return strcmp(g->home, path) == 0 ? "all of $HOME"
						  : "a directory above $HOME";
	if (!writes)
		return NULL;
	if (near(path, g->state))
		return "cordon's state directory, its audit log";
	if (near(path, g->profile))
		return "the profile being written";
	if (g->self[0] && path_is_within(path, g->self))
		return "cordon's own executable";
	if (touches_git(path))
		return "git's hooks or configuration, which run code";
	if (in_home_list(g, roots_dotfiles, path))
		return "a shell startup file";
	if (in_home_list(g, toolroot_protected, path))
		return "a tool's file that a shell or PATH runs outside";
	return NULL;
}

const char *learn_grant_risk(const struct learn_guard *g, const char *path,
			     bool writes)
{
	char res[PATH_BUF];
	const char *why = risk(g, path, writes);

	if (why)
		return why;
	if (path_resolve(AT_FDCWD, path, 0, res) == 0 && strcmp(res, path))
		return risk(g, res, writes);
	return NULL;
}

bool learn_port_parse(const char *s, bool bind, unsigned int *port)
{
	unsigned long v = 0;
	size_t i;

	for (i = 0; s[i] >= '0' && s[i] <= '9' && i < 5; i++)
		v = v * 10 + (unsigned long)(s[i] - '0');
	if (i == 0 || s[i] != '\0' || v > 65535 || (v == 0 && !bind))
		return false;
	*port = (unsigned int)v;
	return true;
}

bool learn_host_ok(const char *spec)
{
	struct proxy_rule rule;

	return strlen(spec) < PROXY_HOST_MAX + 8 &&
	       proxy_rule_parse(spec, &rule) == 0 && !rule.wildcard;
}
