/*
 * session_trust.c - a session's client proves that it speaks to the
 * session's own supervisor before it sends anything (session_trust.h).
 *
 * The socket's directory is one no sandbox can write (rundir.c), but a
 * client hands over the caller's descriptors and environment: it does
 * not rest on that alone.  When the session starts, its supervisor
 * writes who it is into cordon's private state directory ("sessions",
 * 0700, every run protects it and refuses to grant it): its pid, its
 * start time (/proc/PID/stat), its uid, and the device and inode of the
 * socket file it bound; written to a new file (O_EXCL, O_NOFOLLOW, 0600)
 * renamed into place within the directory's descriptor.  A client
 * connects through the socket directory's descriptor, then asks the
 * kernel who listens (SO_PEERCRED, set at listen()) and checks all of
 * it: a socket put in the supervisor's place is some other process's,
 * whatever its name, and is sent nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/base/base.h"
#include "enforce/policy/policy.h"
#include "enforce/session/session_proto.h"
#include "enforce/session/session_trust.h"

struct peer {
	long long pid;
	unsigned long long start, uid, dev, ino;
};

/* The records' directory, opened (the caller closes it). */
static int records(char *err, size_t errlen)
{
	char path[PATH_BUF];
	int fd, ret = rundir_state_sub("sessions", path, &fd, err, errlen);

	return ret ? ret : fd;
}

int session_trust_record(const char *id)
{
	char err[2 * PATH_BUF], name[SESSION_ID_LEN + 16], tmp[sizeof(name)];
	char line[160];
	const struct rundir *rd;
	struct procfs_stat ps;
	struct stat st;
	int dir, fd, n, ret = rundir_get(&rd, err, sizeof(err));

	dir = ret ? ret : records(err, sizeof(err));
	if (dir < 0) {
		say_error("%s", err);
		return dir;
	}
	snprintf(name, sizeof(name), "%s.sock", id);
	if (fstatat(rd->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    procfs_stat(0, &ps) < 0) {
		close(dir);
		return -EIO;
	}
	n = snprintf(line, sizeof(line), "%d %llu %u %llu %llu\n",
		     (int)getpid(), ps.start, (unsigned int)geteuid(),
		     (unsigned long long)st.st_dev,
		     (unsigned long long)st.st_ino);
	snprintf(tmp, sizeof(tmp), ".%s.new", id);
	unlinkat(dir, tmp, 0);
	fd = openat(dir, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		close(dir);
		return -EIO;
	}
	ret = write(fd, line, (size_t)n) == n ? 0 : -EIO;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	snprintf(name, sizeof(name), "%s.peer", id);
	if (!ret && renameat(dir, tmp, dir, name) < 0)
		ret = -errno;
	if (ret)
		unlinkat(dir, tmp, 0);
	close(dir);
	return ret;
}

void session_trust_forget(const char *id)
{
	char err[2 * PATH_BUF], name[SESSION_ID_LEN + 16];
	int dir = records(err, sizeof(err));

	snprintf(name, sizeof(name), "%s.peer", id);
	if (dir >= 0) {
		unlinkat(dir, name, 0);
		close(dir);
	}
}

static int read_record(const char *id, struct peer *r)
{
	char err[2 * PATH_BUF], name[SESSION_ID_LEN + 16], buf[160];
	int dir = records(err, sizeof(err)), fd;
	ssize_t n;

	if (dir < 0)
		return dir;
	snprintf(name, sizeof(name), "%s.peer", id);
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dir);
	if (fd < 0)
		return -ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (sscanf(buf, "%lld %llu %llu %llu %llu", &r->pid, &r->start, &r->uid,
		   &r->dev, &r->ino) != 5 ||
	    r->pid <= 0)
		return -EBADMSG;
	return 0;
}

/* Is the listener at the other end of @fd, and the socket file @name
 * in @dir, what @r recorded?  Why not in @why. */
static bool is_recorded(int fd, int dir, const char *name, const struct peer *r,
			char *why, size_t len)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct procfs_stat ps;
	struct stat st;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
		snprintf(why, len, "its listener is unknown");
		return false;
	}
	if (cred.pid != r->pid || cred.uid != r->uid || cred.uid != geteuid()) {
		snprintf(why, len,
			 "its listener is pid %d uid %u, the supervisor was "
			 "pid %lld uid %llu",
			 (int)cred.pid, (unsigned int)cred.uid, r->pid, r->uid);
		return false;
	}
	if (procfs_stat(cred.pid, &ps) < 0 || ps.start != r->start) {
		snprintf(why, len, "pid %d is another process now",
			 (int)cred.pid);
		return false;
	}
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_dev != r->dev || st.st_ino != r->ino) {
		snprintf(why, len, "the socket file is not the one it bound");
		return false;
	}
	return true;
}

int session_trust_connect(const char *id)
{
	char err[2 * PATH_BUF], name[SESSION_ID_LEN + 16], why[160];
	const struct rundir *rd;
	struct sockaddr_un sa;
	struct peer r;
	int fd, len, ret = rundir_get(&rd, err, sizeof(err));

	if (ret) {
		say_error("%s", err);
		return ret;
	}
	snprintf(name, sizeof(name), "%s.sock", id);
	len = rundir_addr(rd->fd, name, &sa);
	if (len < 0)
		return len;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, (socklen_t)len) < 0) {
		ret = -errno;
		close(fd);
		/* the socket of a session whose supervisor died */
		if (ret == -ECONNREFUSED) {
			unlinkat(rd->fd, name, 0);
			session_trust_forget(id);
		}
		return ret;
	}
	ret = read_record(id, &r);
	if (ret)
		snprintf(why, sizeof(why), "no record of its supervisor (%s)",
			 strerror(-ret));
	else if (!is_recorded(fd, rd->fd, name, &r, why, sizeof(why)))
		ret = -EPERM;
	if (ret) {
		close(fd);
		say_error("session '%s': its socket is not its supervisor's: "
			  "%s; nothing was sent",
			  id, why);
		return -EKEYREJECTED;
	}
	return fd;
}
