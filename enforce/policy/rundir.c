/*
 * rundir.c - where cordon listens: the directory of a session's control
 * socket and of each run's report socket, and the private directory the
 * sessions' identities are kept in (rundir.h).
 *
 * A sandboxed command runs as the user.  Whatever directory some run
 * may write is a directory where it can rename a socket aside and bind
 * its own in its place; containers and CI set XDG_RUNTIME_DIR to
 * /tmp/runtime-$USER, which every run may write (/tmp is a default
 * root), and a run whose environment differs (`cordon wrap`, env -i)
 * does not even know that directory is cordon's.  So a directory is
 * used only when it is trusted: reached from / through no symlink,
 * every directory above it owned by root or the user and writable by
 * no one else (a world-writable /tmp is not, sticky or not: the user's
 * own sandbox is the attacker), itself the user's and closed to others,
 * and in no default writable root of a run (/tmp, /var/tmp, /dev/shm,
 * $TMPDIR).  A runtime directory refused is said in one line (once for
 * each value: a mark is kept) and cordon moves to its private state
 * directory, which every run protects (roots.c) and refuses to grant.
 *
 * Everything is done through descriptors: the directory is opened
 * component by component with O_NOFOLLOW and checked with fstat, its
 * socket bound and connected through "/proc/self/fd/N/NAME" (which also
 * lifts sun_path's 108 bytes from the directory's path), never a path
 * rebuilt from names that a sandbox could have swapped meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "enforce/base/base.h"

#define MARK ".xdg-refused"

/* A directory above a trusted one: no one but root and the user may
 * change its entries. */
/* The owner stat(2) shows for an id our user namespace does not map
 * (kernel.overflowuid): in a namespace that maps the user alone, root's
 * directories read as this one.  It is neither the user nor a sibling
 * sandbox (they run as the user, mapped), so it counts as root does. */
static uid_t unmapped_owner(void)
{
	static uid_t uid = (uid_t)-1;
	char buf[16] = "";
	ssize_t n;
	int fd;

	if (uid != (uid_t)-1)
		return uid;
	uid = 65534;
	fd = open("/proc/sys/kernel/overflowuid", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		if (n > 0)
			uid = (uid_t)strtoul(buf, NULL, 10);
		close(fd);
	}
	return uid;
}

static bool ancestor_ok(const struct stat *st)
{
	uid_t me = geteuid();

	if (!S_ISDIR(st->st_mode) ||
	    (st->st_uid != 0 && st->st_uid != me &&
	     (st->st_uid != unmapped_owner() || me == unmapped_owner())))
		return false;
	if (st->st_mode & S_IWOTH)
		return false;
	/* group-writable: only the user's own group (a private group) */
	return !(st->st_mode & S_IWGRP) ||
	       (st->st_uid == me && st->st_gid == getegid());
}

/* Is @path in a directory every run may write by default? */
static const char *in_default_root(const char *path)
{
	static const char *const fixed[] = { "/tmp", "/var/tmp", "/dev/shm" };
	static char canon[4][PATH_BUF];
	const char *tmpdir = getenv("TMPDIR");

	for (size_t i = 0; i < 3; i++) {
		if (!realpath(fixed[i], canon[i]))
			snprintf(canon[i], PATH_BUF, "%s", fixed[i]);
		if (path_is_within(path, canon[i]) ||
		    path_is_within(path, fixed[i]))
			return fixed[i];
	}
	if (tmpdir && *tmpdir == '/' && realpath(tmpdir, canon[3]) &&
	    path_is_within(path, canon[3]))
		return canon[3];
	return NULL;
}

int rundir_open_trusted(const char *path, char *why, size_t len)
{
	const char *s = path, *root;
	char name[NAME_MAX + 1];
	struct stat st;
	int fd, next;

	if (path[0] != '/') {
		snprintf(why, len, "'%s' is not an absolute path", path);
		return -EINVAL;
	}
	root = in_default_root(path);
	if (root) {
		snprintf(why, len,
			 "'%s' lies under %s, which a sandbox may write", path,
			 root);
		return -EPERM;
	}
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		size_t n;

		while (*s == '/')
			s++;
		if (fstat(fd, &st) < 0) {
			close(fd);
			return -errno;
		}
		if (!*s)
			break;
		if (!ancestor_ok(&st)) {
			snprintf(why, len,
				 "'%.*s' above '%s' may be changed by others",
				 (int)(s - path), path, path);
			close(fd);
			return -EPERM;
		}
		n = strcspn(s, "/");
		if (n > NAME_MAX || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.')) {
			snprintf(why, len, "'%s' is not a path in normal form",
				 path);
			close(fd);
			return -EINVAL;
		}
		memcpy(name, s, n);
		name[n] = '\0';
		s += n;
		next = openat(fd, name,
			      O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0) {
			int err = errno;

			snprintf(why, len, "'%s': %s", path,
				 err == ENOTDIR || err == ELOOP
					 ? "a symlink or not a directory on "
					   "the way"
					 : strerror(err));
			return -err;
		}
		fd = next;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(why, len, "'%s' is not yours alone", path);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* @name in @parent (an O_PATH descriptor): made 0700 if missing, then
 * opened (O_NOFOLLOW) and checked: a directory, ours, closed to others. */
static int own_sub(int parent, const char *name)
{
	struct stat st;
	int fd;

	if (mkdirat(parent, name, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(parent, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* @base's @sub, both trusted, into @path and *@fd. */
static int open_sub(const char *base, const char *sub, char path[PATH_BUF],
		    int *fd, char *why, size_t len)
{
	int dir = rundir_open_trusted(base, why, len);

	if (dir < 0)
		return dir;
	if (snprintf(path, PATH_BUF, "%s/%s", base, sub) >= PATH_BUF) {
		close(dir);
		snprintf(why, len, "'%s': %s", base, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	*fd = own_sub(dir, sub);
	close(dir);
	if (*fd < 0) {
		snprintf(why, len, "'%s' is not a directory of yours alone",
			 path);
		return *fd;
	}
	return 0;
}

int rundir_state_sub(const char *sub, char path[PATH_BUF], int *fd, char *err,
		     size_t errlen)
{
	char state[PATH_BUF], why[PATH_BUF + 128];
	int ret = home_state_make(state);

	if (ret) {
		snprintf(err, errlen,
			 "cannot make cordon's state directory: %s",
			 strerror(-ret));
		return ret;
	}
	ret = open_sub(state, sub, path, fd, why, sizeof(why));
	if (ret)
		snprintf(err, errlen,
			 "cordon's state directory is not private: %s (set "
			 "XDG_STATE_HOME or HOME to a directory of yours "
			 "alone)",
			 why);
	return ret;
}

/* Say once for each refused value of XDG_RUNTIME_DIR where cordon went:
 * the value is kept in a mark in the directory chosen. */
static void say_moved(int dir, const char *xdg, const char *why, const char *to)
{
	char old[PATH_BUF] = "";
	ssize_t n;
	int fd = openat(dir, MARK, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, old, sizeof(old) - 1);
		old[n > 0 ? n : 0] = '\0';
		close(fd);
		if (strcmp(old, xdg) == 0)
			return;
	}
	fprintf(stderr,
		"cordon: XDG_RUNTIME_DIR is not used for cordon's sockets: "
		"%s; they are in '%s'\n",
		why, to);
	fd = openat(dir, MARK ".new",
		    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return;
	n = write(fd, xdg, strlen(xdg));
	close(fd);
	if (n == (ssize_t)strlen(xdg))
		renameat(dir, MARK ".new", dir, MARK);
	else
		unlinkat(dir, MARK ".new", 0);
}

static int choose(struct rundir *rd, const char *xdg, char *err, size_t errlen);

int rundir_get(const struct rundir **out, char *err, size_t errlen)
{
	static struct rundir rd = { .fd = -1 };
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int ret;

	/* a daemon closes what it inherited: the number may be gone, or
	 * another file's now */
	if (rd.fd >= 0 && fstat(rd.fd, &st) == 0 && st.st_dev == rd.dev &&
	    st.st_ino == rd.ino) {
		*out = &rd;
		return 0;
	}
	rd.fd = -1;
	ret = choose(&rd, xdg, err, errlen);
	if (!ret && fstat(rd.fd, &st) < 0)
		ret = -errno;
	if (ret)
		return ret;
	rd.dev = st.st_dev;
	rd.ino = st.st_ino;
	*out = &rd;
	return 0;
}

/* rundir_get()'s choice, into @rd. */
static int choose(struct rundir *rd, const char *xdg, char *err, size_t errlen)
{
	char why[PATH_BUF + 128] = "", user[64];
	int ret;

	if (xdg && *xdg &&
	    open_sub(xdg, "cordon", rd->path, &rd->fd, why, sizeof(why)) == 0) {
		return 0;
	}
	/* where a login would put it: the same for a run whose
	 * environment was cleared */
	snprintf(user, sizeof(user), "/run/user/%u", (unsigned int)geteuid());
	if (access(user, F_OK) == 0 && (!xdg || strcmp(xdg, user) != 0)) {
		char ignored[PATH_BUF + 128];

		if (open_sub(user, "cordon", rd->path, &rd->fd, ignored,
			     sizeof(ignored)) == 0) {
			if (xdg && *xdg)
				say_moved(rd->fd, xdg, why, rd->path);
			return 0;
		}
	}
	ret = rundir_state_sub("run", rd->path, &rd->fd, err, errlen);
	if (ret)
		return ret;
	if (xdg && *xdg)
		say_moved(rd->fd, xdg, why, rd->path);
	return 0;
}

int rundir_addr(int dirfd, const char *name, struct sockaddr_un *sa)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s",
		     dirfd, name);
	if (n < 0 || n >= (int)sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	return (int)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
}

bool rundir_reached(const struct policy *p, const char *dir)
{
	char inside[PATH_BUF];

	if (snprintf(inside, sizeof(inside), "%s/cordon-0.sock", dir) >=
	    (int)sizeof(inside))
		return true;
	if (policy_allows(p, RIGHT_W, dir) || policy_unix_allowed(p, inside))
		return true;
	for (size_t i = 0; i < p->nroots; i++)
		if (p->roots[i].origin == ORIGIN_USER &&
		    (p->roots[i].rights & (RIGHT_W | RIGHT_U)) &&
		    path_is_within(p->roots[i].path, dir))
			return true;
	return false;
}

int rundir_protect(struct policy *p)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char path[PATH_BUF];
	int ret = 0;

	if (xdg && *xdg == '/' &&
	    snprintf(path, sizeof(path), "%s/cordon", xdg) < (int)sizeof(path))
		ret = protect_write(p, path);
	snprintf(path, sizeof(path), "/run/user/%u/cordon",
		 (unsigned int)geteuid());
	return ret ? ret : protect_write(p, path);
}

/* /tmp/cordon-UID, made 0700 and checked through its descriptor. */
static int tmp_fallback(char path[PATH_BUF], int *fd)
{
	int tmp = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char name[32];

	if (tmp < 0)
		return -errno;
	snprintf(name, sizeof(name), "cordon-%u", (unsigned int)geteuid());
	snprintf(path, PATH_BUF, "/tmp/%s", name);
	*fd = own_sub(tmp, name);
	close(tmp);
	return *fd < 0 ? *fd : 0;
}

int rundir_report(size_t room, char path[PATH_BUF], int *fd, char *err,
		  size_t errlen)
{
	char tmp[PATH_BUF];
	const struct rundir *rd;
	int ret = rundir_get(&rd, err, errlen);

	if (ret)
		return ret;
	if (strlen(rd->path) < room) {
		snprintf(path, PATH_BUF, "%s", rd->path);
		*fd = rd->fd;
		return 0;
	}
	ret = tmp_fallback(tmp, fd);
	if (ret) {
		snprintf(err, errlen,
			 "'%s' is too long for a socket's address, and '%s' "
			 "is not a directory of yours alone",
			 rd->path, tmp);
		return ret;
	}
	snprintf(path, PATH_BUF, "%s", tmp);
	return 0;
}
