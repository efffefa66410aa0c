/*
 * roots.c - turn the mode and the --read/--write/--exec requests into
 * the policy's roots: expand ~ and ., canonicalise with path_resolve()
 * (the same resolution the shim uses), add the mode's defaults.
 *
 * A path the user names must exist: a missing one is an error, so that a
 * typo never yields a sandbox that quietly denies (or grants) something
 * else.  Default roots that a host lacks (/lib32, ~/.zshrc) are skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "shim/core/path.h"
#include "shim/core/toolroot.h"
#include "enforce/base/base.h"

#define RX (RIGHT_R | RIGHT_X)
#define RW (RIGHT_R | RIGHT_W)

static const char *const system_dirs[] = {
	"/usr",	  "/bin",    "/sbin", "/lib", "/lib32",
	"/lib64", "/libx32", "/etc",  "/opt", NULL,
};

/* Where NSS's systemd module looks users and groups up (user records,
 * and the sockets of systemd-userdbd, which the mount layer covers): a
 * lookup runs through them quietly, then falls back to /etc. */
static const char *const userdb_dirs[] = {
	"/run/systemd/userdb",
	"/run/userdb",
	"/run/host/userdb",
	NULL,
};

const char *const roots_dotfiles[] = {
	".profile",	".bashrc",  ".bash_profile", ".bash_login",
	".bash_logout", ".inputrc", ".zshenv",	     ".zshrc",
	".zprofile",	".zlogin",  ".zlogout",	     ".kshrc",
	".mkshrc",	".cshrc",   ".tcshrc",	     ".config/fish",
	NULL,
};

/* Apply @name (@n bytes) to the resolved prefix @res[0..*@len) of a
 * walk when it is "." (nothing) or ".." (up one); false for a name. */
static bool walk_dots(char res[PATH_BUF], size_t *len, const char *name,
		      size_t n)
{
	if (n == 1 && name[0] == '.')
		return true;
	if (n != 2 || name[0] != '.' || name[1] != '.')
		return false;
	while (*len > 0 && res[--*len] != '/')
		;
	res[*len] = '\0';
	return true;
}

/*
 * The symbolic links met on the way to a root (/bin -> usr/bin on a
 * merged /usr, a /home that is a link, every hop of l2 -> lnk -> real,
 * a link inside a link's target): the kernel lets lstat and readlink see
 * them, and a program that resolves a path itself (realpath(3)) reads
 * each one, so the shim must let it.  Each is a root of its own that
 * grants nothing (Landlock would follow it to its target): visible, no
 * more.  The absolute @path is walked as the kernel walks it: ".."
 * applied to what is already resolved, never lexically across a link,
 * at most PATH_MAX_HOPS links followed (a loop ends there).  The walk
 * stops quietly where the kernel's would fail: add() has resolved
 * @path already, and reports that.
 */
static int add_links(struct policy *p, const char *path)
{
	char res[PATH_BUF], todo[PATH_BUF], target[PATH_BUF];
	const char *rest = todo;
	size_t len = 0, n;
	unsigned int hops = 0;
	struct stat st;
	ssize_t t;
	int ret = 0;

	if (snprintf(todo, sizeof(todo), "%s", path) >= (int)sizeof(todo))
		return 0;
	res[0] = '\0';
	while (!ret) {
		rest += strspn(rest, "/");
		n = strcspn(rest, "/");
		if (n == 0)
			break;
		rest += n;
		if (walk_dots(res, &len, rest - n, n))
			continue;
		if (len + 1 + n >= sizeof(res))
			break;
		res[len] = '/';
		memcpy(res + len + 1, rest - n, n);
		res[len + 1 + n] = '\0';
		if (lstat(res, &st) < 0)
			break;
		if (!S_ISLNK(st.st_mode)) {
			len = strlen(res);
			continue;
		}
		if (++hops > PATH_MAX_HOPS)
			break;
		t = readlink(res, target, sizeof(target) - 1);
		if (t <= 0)
			break;
		ret = policy_add_root(p, res, 0, ORIGIN_DEFAULT, false);
		/* on from the link's target, then what was left after it */
		target[t] = '\0';
		if (snprintf(target + t, sizeof(target) - (size_t)t, "/%s",
			     rest) >= (int)sizeof(target) - (int)t)
			break;
		memcpy(todo, target, strlen(target) + 1);
		rest = todo;
		if (target[0] == '/')
			len = 0;
		res[len] = '\0';
	}
	return ret;
}

/* @buf (expanded) made absolute, from the working directory. */
static int absolute(const char *buf, char out[PATH_BUF])
{
	char cwd[PATH_BUF];
	int ret;

	if (buf[0] == '/')
		return snprintf(out, PATH_BUF, "%s", buf) < PATH_BUF
			       ? 0
			       : -ENAMETOOLONG;
	ret = path_resolve(AT_FDCWD, ".", 0, cwd);
	if (ret)
		return ret;
	return snprintf(out, PATH_BUF, "%s/%s", strcmp(cwd, "/") ? cwd : "",
			buf) < PATH_BUF
		       ? 0
		       : -ENAMETOOLONG;
}

/* Canonicalise @path and add it; -ENOENT and friends when it is absent. */
static int add(struct policy *p, const char *path, unsigned int rights,
	       enum root_origin origin)
{
	char buf[PATH_BUF], canon[PATH_BUF], abs[PATH_BUF];
	struct stat st;
	int ret;

	ret = home_expand(path, buf);
	if (ret)
		return ret;
	ret = path_resolve(AT_FDCWD, buf, 0, canon);
	if (ret)
		return ret;
	if (stat(canon, &st) < 0)
		return -errno;
	ret = policy_add_root(p, canon, rights, origin, S_ISDIR(st.st_mode));
	if (ret || absolute(buf, abs) != 0)
		return ret;
	return add_links(p, abs);
}

/* mkdir -p @path (~ expanded): a --create, a profile's "create". */
static int make_dirs(const char *path)
{
	char buf[PATH_BUF];
	int ret = home_expand(path, buf);

	return ret ? ret : home_mkdirs(buf, 0777);
}

/* Add a default root; a path this host lacks is not an error. */
static int add_default(struct policy *p, const char *path, unsigned int rights)
{
	int ret = add(p, path, rights, ORIGIN_DEFAULT);

	if (ret == -ENOENT || ret == -ENOTDIR || ret == -EACCES)
		return 0;
	return ret;
}

static int add_list(struct policy *p, const char *const *list,
		    unsigned int rights, const char *prefix)
{
	char buf[PATH_BUF];
	int ret;

	for (size_t i = 0; list[i]; i++) {
		if (snprintf(buf, sizeof(buf), "%s%s", prefix, list[i]) >=
		    (int)sizeof(buf))
			continue;
		ret = add_default(p, buf, rights);
		if (ret)
			return ret;
	}
	return 0;
}

/* The system's directories and devices, without the home's dotfiles. */
static int add_system_only(struct policy *p)
{
	int ret;

	ret = add_list(p, system_dirs, RX, "");
	if (!ret)
		ret = add_list(p, policy_rw_devices, RW, "");
	if (!ret)
		ret = add_default(p, "/dev", RIGHT_R);
	if (!ret)
		ret = add_default(p, "/proc", RIGHT_R);
	if (!ret)
		ret = add_default(p, "/sys", RIGHT_R);
	if (!ret)
		ret = add_list(p, userdb_dirs, RIGHT_R, "");
	return ret;
}

int roots_add_system(struct policy *p)
{
	int ret = add_system_only(p);

	if (!ret)
		ret = add_list(p, roots_dotfiles, RIGHT_R, "~/");
	return ret;
}

static int add_workspace(struct policy *p, enum cli_mode mode)
{
	const char *tmpdir = getenv("TMPDIR");
	int ret;

	if (mode == MODE_READ_ONLY)
		return add_default(p, ".", RX);
	ret = add_default(p, ".", RW | RIGHT_X);
	/* ci: its own fresh temp dir (modes.c), none of the host's */
	if (mode == MODE_CI)
		return ret || !modes_ci_dir()
			       ? ret
			       : add(p, modes_ci_dir(), RW | RIGHT_X,
				     ORIGIN_DEFAULT);
	if (!ret)
		ret = add_default(p, "/tmp", RW | RIGHT_X);
	if (!ret)
		ret = add_default(p, "/var/tmp", RW | RIGHT_X);
	if (!ret)
		ret = add_default(p, "/dev/shm", RW | RIGHT_X);
	if (!ret && tmpdir && *tmpdir == '/')
		ret = add_default(p, tmpdir, RW | RIGHT_X);
	return ret;
}

/* The system's secrets: readable by root in a readable /etc. */
static const char *const secrets[] = {
	"/etc/shadow",
	"/etc/shadow-",
	"/etc/gshadow",
	"/etc/gshadow-",
	"/etc/ssh/ssh_host_*_key",
	"/etc/ssl/private",
	NULL,
};

static int hide_secrets(struct policy *p)
{
	glob_t g;
	int ret = 0;

	for (size_t i = 0; !ret && secrets[i]; i++) {
		if (glob(secrets[i], GLOB_NOSORT, NULL, &g) != 0)
			continue;
		for (size_t j = 0; !ret && j < g.gl_pathc; j++)
			ret = protect_path(p, g.gl_pathv[j], RIGHT_ALL);
		globfree(&g);
	}
	return ret;
}

/* The profile files the run reads: a changed one would widen the next
 * run's policy. */
static int protect_profiles(struct policy *p, const struct cli *c)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < c->nprofiles; i++)
		if (profile_is_file(c->profiles[i]))
			ret = protect_write(p, c->profiles[i]);
	return ret;
}

/* In every writable directory root: what makes git outside run a
 * program (gitguard.c); the shell's startup files and the tools' files
 * a shell or PATH runs (toolroot.h); cordon itself, the
 * profiles it reads and its state directory (the audit log's). */
static int protect_defaults(struct policy *p, const struct cli *c)
{
	char buf[PATH_BUF], self[PATH_BUF];
	const char *home = home_dir();
	int ret = gitguard_find(p);

	for (size_t i = 0; !ret && home && roots_dotfiles[i]; i++)
		if (snprintf(buf, sizeof(buf), "%s/%s", home,
			     roots_dotfiles[i]) < (int)sizeof(buf))
			ret = protect_write(p, buf);
	/* and what the shell sources or PATH runs from the tools' roots
	 * (~/.cargo/env, ~/.local/bin, ...), whatever a profile grants */
	for (size_t i = 0; !ret && home && toolroot_protected[i]; i++)
		if (snprintf(buf, sizeof(buf), "%s/%s", home,
			     toolroot_protected[i]) < (int)sizeof(buf))
			ret = protect_write(p, buf);
	if (!ret && platform_self_exe(self) == 0)
		ret = protect_write(p, self);
	if (!ret)
		ret = protect_profiles(p, c);
	if (!ret && home_state_dir(buf) == 0)
		ret = protect_write(p, buf);
	/* the runtime directories of cordon's sockets */
	if (!ret)
		ret = rundir_protect(p);
	return ret;
}

/*
 * A profile that lets the command write all of / or $HOME (or a
 * directory above it) says so on stderr, each time it is loaded: a
 * profile is a file anyone may hand over, and one `cordon learn` wrote
 * holds such a grant only with --allow-broad.
 */
static void warn_wide(const struct root_req *r)
{
	char buf[PATH_BUF], canon[PATH_BUF], home[PATH_BUF];
	const char *h = home_dir();
	const char *what = "/";

	if (!(r->rights & RIGHT_W) || strncmp(r->flag, "profile ", 8) != 0 ||
	    home_expand(r->path, buf) != 0 ||
	    path_resolve(AT_FDCWD, buf, 0, canon) != 0)
		return;
	if (strcmp(canon, "/") != 0) {
		if (!h || path_resolve(AT_FDCWD, h, 0, home) != 0 ||
		    !path_is_within(home, canon))
			return;
		what = strcmp(home, canon) == 0 ? "$HOME"
						: "a directory above $HOME";
	}
	say_error("WARNING: %s lets the command write all of %s (%s)", r->flag,
		  canon, what);
}

/* The home directory, canonical, where the tools' roots lie
 * (toolroot.h); none when it is / or not there. */
static void set_home(struct policy *p)
{
	const char *home = home_dir();
	char canon[PATH_BUF];

	if (p->home || !home || path_resolve(AT_FDCWD, home, 0, canon) != 0 ||
	    strcmp(canon, "/") == 0)
		return;
	p->home = strdup(canon);
}

int roots_build(const struct cli *c, struct policy *p, char *err, size_t errlen)
{
	int ret = 0;

	set_home(p);

	if (!c->no_defaults) {
		/* ci: no home directory, not even its dotfiles */
		ret = c->mode == MODE_CI ? add_system_only(p)
					 : roots_add_system(p);
		if (!ret)
			ret = add_workspace(p, c->mode);
		if (ret) {
			snprintf(err, errlen,
				 "cannot add the default roots: %s",
				 strerror(-ret));
			return ret;
		}
	}
	/* the directories to make first: a root inside one (npm's
	 * "exec" of ~/.npm/_npx) is there when it is added */
	for (size_t i = 0; c->cmd != CMD_EXPLAIN && i < c->nreqs; i++) {
		const struct root_req *r = &c->reqs[i];

		if (r->create && (ret = make_dirs(r->path)) != 0) {
			snprintf(err, errlen, "%s '%s': cannot make it: %s",
				 r->flag, r->path, strerror(-ret));
			return ret;
		}
	}
	for (size_t i = 0; i < c->nreqs; i++) {
		const struct root_req *r = &c->reqs[i];

		ret = add(p, r->path, r->rights, ORIGIN_USER);
		if (ret == -ENOENT && (r->optional || r->create))
			continue; /* a built-in profile's cache not here;
				   * explain makes nothing */
		if (ret) {
			snprintf(err, errlen, "%s '%s': %s", r->flag, r->path,
				 strerror(-ret));
			return ret;
		}
		warn_wide(r);
	}
	ret = protect_defaults(p, c);
	if (!ret)
		ret = hide_secrets(p);
	if (ret)
		snprintf(err, errlen,
			 "cannot protect the git and shell files: %s",
			 strerror(-ret));
	return ret;
}
