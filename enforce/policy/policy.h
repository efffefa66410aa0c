/*
 * policy.h - building the policy (enforce/policy/): roots from the mode, the
 * profiles and the flags, the protected files (git's, the shell's, cordon's
 * own), the ci mode's temp dirs, and the directories cordon listens in.
 *
 * One header, the folder's whole interface: the rest of cordon includes
 * this and nothing else of enforce/policy/.  Its parts, each with the file
 * that implements it, follow.
 */
#ifndef CORDON_ENFORCE_POLICY_H
#define CORDON_ENFORCE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>

#include "enforce/cli/cli.h"
#include "shim/core/path.h"
#include "shim/core/policy.h"

/*
 * roots.c - the policy's roots from the mode, the defaults and the flags.
 */

/**
 * roots_build - add to @p the defaults of @c's mode (unless --no-defaults)
 * and every root @c requests, canonicalised.
 * Return: 0, or -errno with "<flag> '<path>': <reason>" in @err.
 */
int roots_build(const struct cli *c, struct policy *p, char *err,
		size_t errlen);

/* Add the system, device, /proc and dotfile defaults to @p. */
int roots_add_system(struct policy *p);

/* The shell's startup files, relative to $HOME, NULL-ended: readable
 * by default, protected from writing in a writable home. */
extern const char *const roots_dotfiles[];

/*
 * profile.c - policies kept in JSON files, and the built-in ones.
 */

/**
 * profile_apply - add the policy of each --profile of @c, in order:
 * roots, ports and variables add up; "mode", "net" and "inherit_env"
 * yield to a flag.  Return: 0, or a negative errno with a one-line
 * message in @err (a missing file, bad JSON, an unknown key).
 */
int profile_apply(struct cli *c, char *err, size_t errlen);

/* Is the --profile @name a file (not a built-in profile's name)? */
bool profile_is_file(const char *name);

/*
 * modes.c - what the ci mode brings beyond roots: a fresh temp dir of
 * its own per run (or per session), and a fixed environment.  The
 * full-dev mode is the toolchains' built-in profiles (profile.c).
 */

/**
 * modes_prepare - for the ci mode, make the fresh temp dir (mode 0700,
 * in cordon's state directory: citmp.h, holding home/ and tmp/); for
 * every other mode, make sure that directory exists (so that the roots
 * protect it), and nothing else.
 * Return: 0, or -errno with one line in @err.
 */
int modes_prepare(const struct cli *c, char *err, size_t errlen);

/* The ci run's temp dir, or NULL (another mode, or none made). */
const char *modes_ci_dir(void);

/**
 * modes_environ - the environment the command's is scrubbed from
 * (shimenv_scrubbed): this process's, or for ci a fixed one (PATH, HOME
 * and TMPDIR in the fresh dir, LANG, TZ, CI) with the variables @c
 * passes by name (--env NAME, PREFIX*) from this process's on top.
 * Return: a NULL-terminated array that lives until modes_cleanup(); NULL
 * when out of memory.
 */
char **modes_environ(struct cli *c);

/* Remove the ci temp dir and everything in it (once nothing runs in
 * it any more: the command's PID namespace is gone), and free the
 * environment modes_environ() made. */
void modes_cleanup(void);

/*
 * protect.c - protected roots: what a writable (or readable) root holds
 * that the command must not change (or read).
 */

/**
 * protect_path - take @drop (RIGHT_*) back from @path where @p grants
 * it: a protected root keeping the rest (policy.h).  Nothing when @path
 * is not there or not granted @drop, or when a root the user gave names
 * @path itself with one of those rights (the protection is lifted); a
 * --write root below it lifts it there.
 * Return: 0, -ENOMEM or -E2BIG.
 */
int protect_path(struct policy *p, const char *path, unsigned int drop);

/* protect_path() for writing: .git/hooks, ~/.bashrc, cordon itself. */
int protect_write(struct policy *p, const char *path);

/**
 * protect_write_canon - as protect_write() for @canon, a path already
 * canonical (no symlink in it, no "." or ".."), which may not exist yet
 * (a file git would read if it were made: the shim refuses to make it):
 * a file, or with @is_dir a directory.
 * Return: 0, -ENOMEM or -E2BIG.
 */
int protect_write_canon(struct policy *p, const char *canon, bool is_dir);

/*
 * policy_edit.c - building a policy in the launcher (it allocates).
 */

/**
 * policy_add_root - add @path with @rights, merging with an equal root.
 * @path must already be canonical.  Takes a copy of @path.
 *
 * Return: 0, -ENOMEM, or -E2BIG when POLICY_MAX_ROOTS is reached.
 */
int policy_add_root(struct policy *p, const char *path, unsigned int rights,
		    enum root_origin origin, bool is_dir);

/* Free what policy_add_root() and the option parser copied. */
void policy_free(struct policy *p);

/**
 * policy_proxy_env - with hosts allowed, the variables that send the
 * command's HTTP, HTTPS and SOCKS traffic to cordon's proxy (upper and
 * lower case: HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY), set in @p
 * so that the shim keeps them across every exec (they replace the
 * user's of the same names).  Return: 0, or -errno.
 */
int policy_proxy_env(struct policy *p);

/*
 * citmp.c - where the ci mode's temp dirs live (citmp.c): in cordon's
 * state directory, which no run may write, one per launcher, removed
 * through descriptors (rmtree.h).
 */

/**
 * citmp_prepare - make <state>/ci (mode 0700) if missing and check it
 * is the user's own: a directory, not a link, owned by the user, with
 * no access for group or others.  With @make, then remove the dirs of
 * launchers gone (pid and start time) and make this launcher's, with
 * home/ and tmp/ in it; its path in @dir.
 * Return: 0, or -errno with one line in @err.
 */
int citmp_prepare(bool make, char dir[PATH_BUF], char *err, size_t errlen);

/**
 * citmp_refuse - a writable root of @p at or below cordon's state
 * directory, other than this run's own ci dir: there a run could write
 * another's temp dir (or its own, while the launcher removes it).
 * Return: 0, or -EPERM with one line in @err.
 */
int citmp_refuse(const struct policy *p, char *err, size_t errlen);

/* Remove this launcher's ci dir, if it made one, and say what could
 * not be removed. */
void citmp_remove(void);

/*
 * rundir.c - the directories cordon listens in and keeps its sockets'
 * identities in, chosen where no sandbox can bind or rename (rundir.c).
 */

struct rundir {
	char path[PATH_BUF];
	int fd; /* the directory, O_DIRECTORY, held for the process */
	dev_t dev;
	ino_t ino;
};

/**
 * rundir_get - the directory of cordon's sockets (a session's control
 * socket, a run's report socket), chosen and checked once a process:
 * $XDG_RUNTIME_DIR/cordon, else /run/user/UID/cordon, when that
 * runtime directory is trusted (rundir_open_trusted()) and no default
 * writable root of a run (/tmp, /var/tmp, /dev/shm, $TMPDIR) holds it;
 * else the private state directory's "run".  An $XDG_RUNTIME_DIR
 * refused is said in one line, once for each value (a mark in the
 * directory chosen).
 * Return: 0 with *@out set, or -errno with a one-line reason in @err.
 */
int rundir_get(const struct rundir **out, char *err, size_t errlen);

/**
 * rundir_report - the directory of a run's report socket, which the
 * shim reaches by path: rundir_get()'s when a name fits after it in
 * @room bytes; else /tmp/cordon-UID (0700, checked; a sibling sandbox
 * may rename it: the run protects it, and the shim checks the socket's
 * identity before each record).  Its path into @path, its descriptor
 * into *@fd (held for the process: never closed).
 * Return: 0, or -errno with a one-line reason in @err.
 */
int rundir_report(size_t room, char path[PATH_BUF], int *fd, char *err,
		  size_t errlen);

/**
 * rundir_state_sub - cordon's private state directory's @sub (made
 * 0700), checked as rundir_get() checks its own: opened into *@fd and
 * its path in @path.
 * Return: 0, or -errno with a one-line reason in @err.
 */
int rundir_state_sub(const char *sub, char path[PATH_BUF], int *fd, char *err,
		     size_t errlen);

/**
 * rundir_open_trusted - open @path, an absolute path in normal form,
 * component by component (O_NOFOLLOW: no symlink anywhere), each
 * directory above it owned by root or this user and writable by no one
 * else (a world-writable /tmp fails), @path itself this user's and
 * writable by no one else; and not in a default writable root of a run.
 * Return: an O_PATH descriptor of it, or -errno with the reason in @why.
 */
int rundir_open_trusted(const char *path, char *why, size_t len);

/* The address of @name in the directory @dirfd, through the descriptor
 * ("/proc/self/fd/N/NAME"): a bind or a connect that no rename of a
 * directory above can redirect, whatever the path's length.
 * Return: the address's length, or -ENAMETOOLONG. */
int rundir_addr(int dirfd, const char *name, struct sockaddr_un *sa);

/* Does @p reach the directory @dir: a root that lets the command write
 * in it or connect to a socket in it?  Such a run is refused. */
bool rundir_reached(const struct policy *p, const char *dir);

/* Protect (protect.h) every directory a run of this user may keep its
 * sockets in, whatever its environment: $XDG_RUNTIME_DIR/cordon,
 * /run/user/UID/cordon. */
int rundir_protect(struct policy *p);

/*
 * gitguard.c - git's files that make git outside the sandbox run a
 * program, in every repository the command may write.
 */

/**
 * gitguard_find - find the repositories in @p's writable roots and
 * protect what git would run or read configuration from in each
 * (gitguard.c lists it): existing files become protected roots (the
 * mounts make them read-only), absent ones protected roots the shim
 * refuses to make, and are remembered for gitguard_sweep().
 * Return: 0, -ENOMEM or -E2BIG.
 */
int gitguard_find(struct policy *p);

/* How many git directories gitguard_find() protected, and whether it
 * stopped at its limit (then the rest are not protected). */
size_t gitguard_count(bool *truncated);

/* Before a run: one note for each PATH entry of @envp that runs nothing
 * under @p and holds a command a later entry also holds (which then
 * runs instead of the user's), with the option that restores it (none
 * when @quiet); each such entry, canonical, to @shadows. */
void shadow_note(const struct policy *p, char *const *envp, bool quiet,
		 void (*shadows)(void *arg, const char *dir), void *arg);

#define GITGUARD_MAX 64 /* git directories protected, at most */

/* A git directory gitguard_find() protected (for the sweep). */
struct gitguard_dir {
	const char *dir;      /* canonical */
	const char *worktree; /* its working tree, or NULL */
	unsigned int absent;  /* bit i: class i was not there at the start */
};

/* The git directories found, and the .git paths that would shadow a
 * repository above a writable root (absent at the start); the time the
 * search began (a file changed since then was changed during the run). */
size_t gitguard_dirs(struct gitguard_dir *out, size_t max);
size_t gitguard_hijacks(const char **out, size_t max);
const struct timespec *gitguard_started(void);

/* What gitguard_sweep() found and did, once per path. */
struct gitguard_event {
	const char *path;  /* what the command made or changed */
	const char *moved; /* where it was moved, or NULL if it failed */
	const char *why;   /* what git would do with it */
	const char *allow; /* the --write that lifts it at the next run */
	int err;	   /* the errno of the move when it failed */
};

/**
 * gitguard_sweep - once the command and everything it started have
 * ended: every file gitguard_find() protected while it was absent that
 * now exists, and every repository added during the run where
 * `git status` outside would enter it (a gitlink in the index of a
 * protected repository), is moved aside (PATH.cordon-PID), and @fn
 * told, unless a --write of @p names it (or a path below it).  Nothing
 * runs inside any more: no race.
 * Return: the number of paths moved aside or that could not be.
 */
size_t gitguard_sweep(const struct policy *p,
		      void (*fn)(const struct gitguard_event *e, void *arg),
		      void *arg);

#endif
