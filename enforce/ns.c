/*
 * ns.c - mount and PID namespaces for what Landlock (ABI 7) leaves open.
 *
 *  - Metadata: Landlock has no right for chmod, chown, utimes, xattrs
 *    or inode flags.  In the command's mount namespace every mount is
 *    read-only, except bind mounts of the roots that grant write, so
 *    those calls fail with EROFS outside the writable roots, whatever
 *    makes them (a static binary, a raw system call).
 *  - Loader tricks: Landlock checks execve, not mmap.  Every mount is
 *    noexec except the roots that grant execute, so ld.so cannot map a
 *    program from a root that is only readable.
 *  - Sockets: Landlock does not check connect() on a socket file.  The
 *    socket files bound at the start (listed by /proc/net/unix, and
 *    under /run and the user's runtime directory) that no writable root
 *    grants, and those in the shared temp dirs (tmux, X11, ssh-agent)
 *    that no --write names, are covered with /dev/null.
 *  - Processes: in a PID namespace with its own /proc, processes
 *    outside have no pid the command can name (cmdline, renice,
 *    prlimit, kill) and are not listed.
 *  - Protected paths (.git/hooks, .git/config, shell startup files,
 *    cordon's own files) inside writable roots: Landlock cannot take a
 *    right back below a root, a read-only bind mount can; the .git
 *    above a protected hook directory is pinned as a mount point, so
 *    that it cannot be renamed away and replaced.
 * Paths stay where they are: what Landlock refuses is still refused
 * with EACCES and explained by the shim.
 *
 * A user gets a user namespace with its own uid and gid mapped to
 * themselves (no new identity, no capability outside); root needs none.
 * Mount propagation is private: nothing done here reaches the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ns.h"
#include "path.h"
#include "spawn.h"

#define RUN_DEPTH 8 /* how deep /run is searched for sockets */

static int ns_flags(void)
{
	int flags = CLONE_NEWNS | CLONE_NEWPID;

	if (geteuid() != 0)
		flags |= CLONE_NEWUSER;
	return flags;
}

static int map_ids(uid_t uid, gid_t gid);

/* Can this process make the namespaces?  Tried in a vfork child (no
 * copy of the address space: this runs on every start); it only makes
 * system calls and writes /proc files from its stack. */
static bool can_unshare(void)
{
	pid_t pid = vfork();
	int st;

	if (pid < 0)
		return false;
	if (pid == 0) {
		uid_t uid = geteuid();
		gid_t gid = getegid();

		/* all the way to a first mount: a host may allow the
		 * namespace and still deny mounts in it */
		if (unshare(ns_flags()) < 0 ||
		    (uid != 0 && map_ids(uid, gid) < 0) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(1);
		_exit(0);
	}
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0;
}

void ns_features(const struct policy *p, struct feature_set *s)
{
	static const struct {
		const char *layer, *name;
	} rows[] = {
		{ "mount", "metadata of files outside the writable roots" },
		{ "mount", "programs mapped from non-exec roots" },
		{ "mount", "UNIX sockets of processes outside" },
		{ "mount", "protected paths in writable roots" },
		{ "pid", "processes outside (/proc, pids)" },
	};
	bool ok = can_unshare();

	(void)p;
	/* What no layer here closes: said, never a reason to refuse. */
	feature_add(s,
		    (struct feature){
			    .layer = "landlock",
			    .name = "UNIX socket files bound after the start",
			    .needs = "a Landlock right for socket paths "
				     "(not in ABI 7)",
			    .needed = true,
			    .available = false,
			    .advisory = true,
			    .gap = true,
		    });
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		feature_add(
			s, (struct feature){
				   .layer = rows[i].layer,
				   .name = rows[i].name,
				   .needs = geteuid() == 0
						    ? "mount and PID namespaces"
						    : "unprivileged user "
						      "namespaces",
				   .needed = true,
				   .available = ok,
			   });
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int map_ids(uid_t uid, gid_t gid)
{
	char buf[64];

	if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
		return -1;
	snprintf(buf, sizeof(buf), "%u %u 1\n", uid, uid);
	if (write_file("/proc/self/uid_map", buf) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%u %u 1\n", gid, gid);
	return write_file("/proc/self/gid_map", buf);
}

/* ---- relaying signals and the exit status ---- */

static volatile pid_t relay_to;

/* Before there is a command to forward to, a signal stops the start,
 * as it would stop a process that is no init. */
static void forward(int sig)
{
	if (relay_to > 0)
		kill(relay_to, sig);
	else
		_exit(128 + sig);
}

/* An init only gets the signals it has a handler for. */
static void catch_signals(void)
{
	static const int forwarded[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
	struct sigaction sa = { .sa_handler = forward };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, NULL);
}

/* Is this process pid 1 of the command's namespace (ns_enter() made
 * it so)?  Then it outlives the command: see ns_relay(). */
static bool is_init;

bool ns_is_init(void)
{
	return is_init;
}

/* Wait for @child (reaping any other child on the way, as an init
 * must) and leave with its status. */
void ns_relay(pid_t child)
{
	int st;
	pid_t w;

	relay_to = child;
	catch_signals();
	/* the terminal sends these to the command's group, which holds
	 * the command itself */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	for (;;) {
		w = waitpid(-1, &st, 0);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			_exit(EXIT_CORDON);
		if (w == child)
			break;
	}
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	_exit(128 + WTERMSIG(st));
}

/* ---- the mounts ---- */

static int set_attr(const char *path, unsigned int flags,
		    unsigned long long set, unsigned long long clr)
{
	struct mount_attr a = { .attr_set = set, .attr_clr = clr };

	return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, flags, &a,
			    sizeof(a));
}

/* @set and @clr on the mount at @path and every mount below it. */
static int mount_attr(const char *path, unsigned long long set,
		      unsigned long long clr)
{
	return set_attr(path, AT_RECURSIVE, set, clr);
}

static bool under_proc(const char *path)
{
	return path_is_within(path, "/proc");
}

/* A mount the namespace makes: a root granting write or execute, a
 * protected path, or a pin (the .git above a protected hook directory:
 * a mount point cannot be renamed, so no other .git can take its
 * place). */
struct entry {
	const char *path;
	unsigned int rights;
	bool protect;
};

/* Shortest path first: a parent's flags are set before a nested one's,
 * so that the nested one (a union of rights, or a protection) wins. */
static int by_length(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	size_t lx = strlen(x->path), ly = strlen(y->path);

	if (lx != ly)
		return lx < ly ? -1 : 1;
	/* the same path: the protection first, a --write lifting it after */
	return (int)y->protect - (int)x->protect;
}

/* The .git directory above a protected .git/hooks or .git/config. */
static bool git_pin(const char *path, char out[PATH_BUF])
{
	const char *git = strstr(path, "/.git/");

	if (!git || strchr(git + 6, '/') ||
	    (size_t)(git - path) + 5 >= PATH_BUF)
		return false;
	memcpy(out, path, (size_t)(git - path) + 5);
	out[git - path + 5] = '\0';
	return true;
}

static size_t collect(const struct policy *p, struct entry *e,
		      char pins[][PATH_BUF])
{
	size_t n = 0, npins = 0;

	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];
		bool prot = r->origin == ORIGIN_PROTECTED;

		if (under_proc(r->path) ||
		    (!prot && !(r->rights & (RIGHT_W | RIGHT_X))))
			continue;
		e[n++] = (struct entry){ r->path, r->rights, prot };
		if (prot && npins < POLICY_MAX_ROOTS &&
		    git_pin(r->path, pins[npins])) {
			e[n++] = (struct entry){ pins[npins],
						 policy_rights(p, pins[npins]),
						 false };
			npins++;
		}
	}
	qsort(e, n, sizeof(e[0]), by_length);
	return n;
}

static const struct policy *masking;
static const char *mask_keep;
static int mask_failed;

/* A --write root (not a default one) granting @path. */
static bool user_grants(const char *path)
{
	for (size_t i = 0; i < masking->nroots; i++) {
		const struct root *r = &masking->roots[i];

		if (r->origin == ORIGIN_USER && (r->rights & RIGHT_W) &&
		    path_is_within(path, r->path))
			return true;
	}
	return false;
}

static bool in_shared_tmp(const char *path)
{
	static const char *const shared[] = { "/tmp", "/var/tmp", "/dev/shm" };

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
		if (path_is_within(path, shared[i]))
			return true;
	return false;
}

/* Cover the socket file at @path unless the policy lets the command
 * have it: a writable root grants it, or in a shared temp dir (which
 * the defaults make writable for the command's own files) a --write
 * root names it. */
static void mask_one(const char *path)
{
	bool shared = in_shared_tmp(path);

	if (mask_keep && strcmp(path, mask_keep) == 0)
		return;
	if (shared ? user_grants(path)
		   : (policy_rights(masking, path) & RIGHT_W) != 0)
		return;
	if (mount("/dev/null", path, NULL, MS_BIND, NULL) < 0)
		mask_failed = errno;
}

static int mask_socket(const char *path, const struct stat *st, int type,
		       struct FTW *ftw)
{
	/* never deeper than the limit */
	if (type == FTW_D && ftw->level >= RUN_DEPTH)
		return FTW_SKIP_SUBTREE;
	if (S_ISSOCK(st->st_mode))
		mask_one(path);
	return FTW_CONTINUE;
}

/*
 * The socket files bound in this network namespace, wherever they are:
 * /proc/net/unix lists them with their paths ("Num RefCount Protocol
 * Flags Type St Inode Path"), so no directory needs searching.  A path
 * that is no socket file now (deleted, already covered, or relative to
 * another process's directory) is left.
 */
static void mask_bound(void)
{
	FILE *f = fopen("/proc/net/unix", "re");
	char *line = NULL, *path;
	size_t cap = 0;
	struct stat st;

	if (!f) {
		mask_failed = errno;
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		path = line;
		for (int field = 0; path && field < 7; field++) {
			path += strspn(path, " ");
			path = strchr(path, ' ');
		}
		if (!path || path[1] != '/')
			continue; /* unbound, abstract (@...) or the header */
		path++;
		path[strcspn(path, "\n")] = '\0';
		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			mask_one(path);
	}
	free(line);
	fclose(f);
}

/*
 * Cover the sockets that processes outside listen on: every socket file
 * bound in this network namespace (docker, D-Bus, ssh-agent, tmux, X11,
 * gpg-agent, wherever they are), and what is under /run and
 * $XDG_RUNTIME_DIR even when bound from another network namespace,
 * unless the policy grants it (see mask_one).  A socket the command
 * makes later is its own; one a process outside binds after the start
 * is not covered.
 */
static int mask_sockets(const struct policy *p, const char *keep)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	masking = p;
	mask_keep = keep;
	mask_failed = 0;
	mask_bound();
	nftw("/run", mask_socket, 16, FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL);
	if (xdg && xdg[0] == '/' && !path_is_within(xdg, "/run"))
		nftw(xdg, mask_socket, 16,
		     FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL);
	return mask_failed;
}

/* Clear @clr bit by bit on the one mount at @path (not recursive),
 * leaving a bit the host locked. */
static int clear_one(const char *path, unsigned long long clr)
{
	for (unsigned long long bit = 1; bit <= clr; bit <<= 1)
		if ((clr & bit) && set_attr(path, 0, 0, bit) < 0 &&
		    errno != EPERM && errno != ENOENT)
			return -1;
	return 0;
}

/* /proc/self/mountinfo writes a space, tab, newline or backslash in a
 * mount point as \ooo. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
					(s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* Every mount at or below @path, one at a time (mountinfo lists a
 * parent before what is mounted on it). */
static int clear_each(const char *path, unsigned long long clr)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, mnt[PATH_BUF];
	size_t cap = 0;
	int ret = 0;

	if (!f)
		return -1;
	while (!ret && getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		unescape(mnt);
		if (path_is_within(mnt, path))
			ret = clear_one(mnt, clr);
	}
	free(line);
	fclose(f);
	return ret;
}

/* Clear @clr on the mounts at and below @path.  A flag the host locked
 * on one of them (a /tmp mounted noexec, say) stays there: the host
 * forbids it anyway; the others are cleared all the same. */
static int mount_clear(const char *path, unsigned long long clr)
{
	if (mount_attr(path, 0, clr) == 0)
		return 0;
	if (errno != EPERM)
		return -1;
	return clear_each(path, clr);
}

/* An empty file of mode 000 to bind over a secret: made on a tmpfs
 * mounted for a moment over /run (its own mounts come back when it is
 * detached; the file lives on through its binds). */
static const char secret_file[] = "/run/.cordon-secret";
static bool secret_made;

static int secret_source(void)
{
	int fd;

	if (secret_made)
		return 0;
	if (mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=4k,mode=700") < 0)
		return -1;
	fd = open(secret_file, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0);
	if (fd < 0 || fchmod(fd, 0) < 0) {
		if (fd >= 0)
			close(fd);
		umount2("/run", MNT_DETACH);
		return -1;
	}
	close(fd);
	secret_made = true;
	return 0;
}

static void secret_done(void)
{
	if (secret_made)
		umount2("/run", MNT_DETACH);
	secret_made = false;
}

/* Cover @path with something of mode 000, read-only: an empty directory,
 * or for a file a bind of an empty file, both on a private tmpfs.
 * Without capabilities not even root reads it. */
static int cover_secret(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -1;
	if (S_ISDIR(st.st_mode))
		return mount("tmpfs", path, "tmpfs",
			     MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			     "mode=000,size=4k");
	if (secret_source() < 0)
		return -1;
	if (mount(secret_file, path, NULL, MS_BIND, NULL) < 0)
		return -1;
	return mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL);
}

static int setup_mounts(const struct policy *p, const char *keep, char *err,
			size_t errlen)
{
	static struct entry e[2 * POLICY_MAX_ROOTS];
	static char pins[POLICY_MAX_ROOTS][PATH_BUF];
	char cwd[PATH_BUF];
	size_t n;
	const char *step = "make the mounts private";

	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		goto fail;
	step = "mount /proc";
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0)
		goto fail;
	errno = mask_sockets(p, keep);
	if (errno) {
		step = "cover the sockets of processes outside";
		goto fail;
	}
	n = collect(p, e, pins);
	for (size_t i = 0; i < n; i++) {
		step = e[i].path;
		if (mount(e[i].path, e[i].path, NULL, MS_BIND | MS_REC, NULL) <
			    0 &&
		    errno != ENOENT)
			goto fail;
	}
	step = "make the other mounts read-only and noexec";
	if (mount_attr("/", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC, 0) < 0)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		unsigned long long clr = 0;

		if ((e[i].rights & RIGHT_W) && !e[i].protect)
			clr |= MOUNT_ATTR_RDONLY;
		if (e[i].rights & RIGHT_X)
			clr |= MOUNT_ATTR_NOEXEC;
		step = e[i].path;
		/* a secret: covered by an empty thing no one may read */
		if (e[i].protect && !(e[i].rights & RIGHT_R)) {
			if (cover_secret(e[i].path) < 0 && errno != ENOENT)
				goto fail;
			continue;
		}
		/* a protected path inside a writable root: read-only again */
		if (e[i].protect &&
		    mount_attr(e[i].path, MOUNT_ATTR_RDONLY, 0) < 0 &&
		    errno != ENOENT)
			goto fail;
		if (clr && mount_clear(e[i].path, clr) < 0 && errno != ENOENT)
			goto fail;
	}
	secret_done();
	/* The working directory still names the mount under the binds:
	 * look it up again, to stand on the one with the right flags. */
	step = "enter the working directory again";
	if (cwd[0] && chdir(cwd) < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot set up the mount namespace (%s): %s",
		 step, strerror(errno));
	return -1;
}

/* Set in ns_fork()'s child: born in the namespaces, as pid 1, with the
 * ids it had outside (inside a new user namespace they read 65534 until
 * they are mapped). */
static bool born_inside;
static uid_t outer_uid;
static gid_t outer_gid;

pid_t ns_fork(void)
{
	pid_t pid;

	outer_uid = geteuid();
	outer_gid = getegid();
	fflush(NULL);
	/* fork() straight into the namespaces (the same stack, a copy of
	 * the memory): no process in between to relay the exit status,
	 * one fork fewer at every start.  The raw system call runs no
	 * pthread_atfork handler: the one library here that has one,
	 * libcap-ng, is told its new pid (caps_drop). */
	pid = (pid_t)syscall(SYS_clone, SIGCHLD | ns_flags(), NULL, NULL, NULL,
			     NULL);
	if (pid == 0)
		born_inside = true;
	return pid;
}

int ns_enter(const struct policy *p, const char *keep, char *err, size_t errlen)
{
	uid_t uid = born_inside ? outer_uid : geteuid();
	gid_t gid = born_inside ? outer_gid : getegid();
	pid_t pid;

	if (!born_inside && unshare(ns_flags()) < 0) {
		snprintf(err, errlen, "cannot make the namespaces: %s",
			 strerror(errno));
		return -1;
	}
	if (uid != 0 && map_ids(uid, gid) < 0) {
		snprintf(err, errlen,
			 "cannot map the user into its namespace: %s",
			 strerror(errno));
		return -1;
	}
	if (!born_inside) {
		fflush(NULL);
		pid = fork(); /* the child is pid 1 of the new namespace */
		if (pid < 0) {
			snprintf(err, errlen, "cannot fork: %s",
				 strerror(errno));
			return -1;
		}
		if (pid > 0)
			ns_relay(pid);
	}
	catch_signals();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (setup_mounts(p, keep, err, errlen) < 0) {
		fprintf(stderr, "cordon: %s\n", err);
		_exit(EXIT_CORDON);
	}
	/* The rest of the boundary goes on this process too: the command
	 * will be its child (spawn_exec), made just before the exec. */
	is_init = true;
	return 0;
}
