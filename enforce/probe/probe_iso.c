/*
 * probe_iso.c - the isolation checks of `cordon probe`: what the
 * command must not reach of cordon's own init or of the host's other
 * processes.  Each attempt runs in a child, inside the sandbox (as the
 * command would: pid 1 is its parent) and outside it (the twin); the
 * parent reads the effect.  Where the target inside is cordon's init,
 * the twin's is a process of its own of the same user, an ordinary one:
 * the call works on that (ptrace restrictions such as Yama's allow a
 * descendant), so a refusal inside is pid 1's protection.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "enforce/probe/probe_checks.h"

static void path_in(char *buf, size_t len, const char *dir, const char *f)
{
	snprintf(buf, len, "%s/%s", dir, f);
}

static bool exists_in(const char *dir, const char *f)
{
	char p[160];

	path_in(p, sizeof(p), dir, f);
	return access(p, F_OK) == 0;
}

static void remove_in(const char *dir, const char *f)
{
	char p[160];

	path_in(p, sizeof(p), dir, f);
	unlink(p);
}

static int mark(struct ctx *c, const char *f)
{
	char p[160];
	int fd;

	path_in(p, sizeof(p), c->ws, f);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* The process to reach: cordon's init inside, a child outside. */
static pid_t target(struct ctx *c, pid_t *own)
{
	*own = 0;
	if (c->inside)
		return getppid();
	*own = fork();
	if (*own == 0) {
		alarm(10);
		pause();
		_exit(0);
	}
	return *own;
}

static void done_with(pid_t own)
{
	if (own > 0) {
		kill(own, SIGKILL);
		waitpid(own, NULL, 0);
	}
}

/* Its environment, copied into the workspace. */
static int try_init_environ(struct ctx *c)
{
	char from[64], to[160], buf[256];
	pid_t own, pid = target(c, &own);
	ssize_t n = -1;
	int fd, ret = 0;

	snprintf(from, sizeof(from), "/proc/%d/environ", (int)pid);
	fd = open(from, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf));
		close(fd);
	}
	if (n <= 0)
		ret = n < 0 ? errno : ENOENT;
	done_with(own);
	if (ret)
		return ret;
	path_in(to, sizeof(to), c->ws, "initenv");
	fd = open(to, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, buf, (size_t)n) != n)
		ret = EIO;
	if (fd >= 0)
		close(fd);
	return ret;
}

static bool initenv_copied(struct ctx *c)
{
	return exists_in(c->ws, "initenv");
}

static void remove_initenv(struct ctx *c)
{
	remove_in(c->ws, "initenv");
}

/* Any of its descriptors, taken with pidfd_getfd(2). */
static int try_init_fds(struct ctx *c)
{
	pid_t own, pid = target(c, &own);
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), ret = EBADF;

	if (pidfd < 0)
		ret = errno;
	for (int fd = 0; pidfd >= 0 && fd < 64; fd++) {
		int got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);

		if (got >= 0) {
			close(got);
			ret = mark(c, "initfd");
			break;
		}
		if (errno != EBADF)
			ret = errno;
	}
	if (pidfd >= 0)
		close(pidfd);
	done_with(own);
	return ret;
}

static bool initfd_taken(struct ctx *c)
{
	return exists_in(c->ws, "initfd");
}

static void remove_initfd(struct ctx *c)
{
	remove_in(c->ws, "initfd");
}

/* The probe's SysV segment, found by its key and overwritten. */
static int try_shm(struct ctx *c)
{
	int id = shmget(c->shm_key, 0, 0);
	char *mem;

	if (id < 0)
		return errno;
	mem = shmat(id, NULL, 0);
	if (mem == (void *)-1)
		return errno;
	memcpy(mem, "pwned", 6);
	shmdt(mem);
	return 0;
}

static bool shm_changed(struct ctx *c)
{
	char *mem = shmat(c->shm_id, NULL, SHM_RDONLY);
	bool changed;

	if (mem == (void *)-1)
		return true;
	changed = strcmp(mem, PROBE_SECRET) != 0;
	shmdt(mem);
	return changed;
}

static void restore_shm(struct ctx *c)
{
	char *mem = shmat(c->shm_id, NULL, 0);

	if (mem != (void *)-1) {
		memcpy(mem, PROBE_SECRET, sizeof(PROBE_SECRET));
		shmdt(mem);
	}
}

static int write_file(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0600);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : EIO;
}

static bool file_holds(const char *path, const char *text)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n == (ssize_t)strlen(text) && strcmp(buf, text) == 0;
}

static int try_dev_shm(struct ctx *c)
{
	return write_file(c->dev_shm, "pwned", O_TRUNC);
}

static bool dev_shm_changed(struct ctx *c)
{
	return !file_holds(c->dev_shm, PROBE_SECRET);
}

static void restore_dev_shm(struct ctx *c)
{
	write_file(c->dev_shm, PROBE_SECRET, O_CREAT | O_TRUNC);
}

/* Type into the probe's terminal by its name in /dev/pts. */
static int try_pts(struct ctx *c)
{
	return write_file(c->pts, "x", O_NOCTTY);
}

static bool pts_typed(struct ctx *c)
{
	char buf[16];

	usleep(10000); /* the line discipline passes it on at once */
	return read(c->pty, buf, sizeof(buf)) > 0;
}

static void drain_pts(struct ctx *c)
{
	char buf[64];

	while (read(c->pty, buf, sizeof(buf)) > 0)
		;
}

/* A hook in the workspace's repository: git would run it outside. */
static int try_git_hook(struct ctx *c)
{
	char p[160];

	path_in(p, sizeof(p), c->ws, ".git/hooks/post-checkout");
	return write_file(p, "#!/bin/sh\n", O_CREAT);
}

static bool hook_planted(struct ctx *c)
{
	return exists_in(c->ws, ".git/hooks/post-checkout");
}

static void remove_hook(struct ctx *c)
{
	remove_in(c->ws, ".git/hooks/post-checkout");
}

const struct check probe_iso_checks[] = {
	{ "pid", "read the environment of cordon's init", try_init_environ,
	  initenv_copied, remove_initenv, PROBE_WHOLE, NULL, false, NULL,
	  NULL },
	{ "pid", "take a descriptor of cordon's init", try_init_fds,
	  initfd_taken, remove_initfd, PROBE_WHOLE, NULL, false, NULL, NULL },
	{ "ipc", "write a SysV shared memory segment outside", try_shm,
	  shm_changed, restore_shm, PROBE_WHOLE, NULL, false, NULL, NULL },
	{ "mount", "write POSIX shared memory outside", try_dev_shm,
	  dev_shm_changed, restore_dev_shm, PROBE_WHOLE, NULL, false, NULL,
	  NULL },
	{ "mount", "type into another terminal of the user", try_pts, pts_typed,
	  drain_pts, PROBE_WHOLE, NULL, false, NULL, NULL },
	{ "mount", "plant a git hook in the workspace", try_git_hook,
	  hook_planted, remove_hook, PROBE_WHOLE, NULL, false, NULL, NULL },
};

const size_t probe_iso_nchecks =
	sizeof(probe_iso_checks) / sizeof(probe_iso_checks[0]);

static int open_pty(struct ctx *c)
{
	int fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	const char *name;

	if (fd < 0)
		return -errno;
	if (grantpt(fd) < 0 || unlockpt(fd) < 0 || !(name = ptsname(fd))) {
		close(fd);
		return -errno;
	}
	snprintf(c->pts, sizeof(c->pts), "%s", name);
	c->pty = fd;
	return 0;
}

static int make_repo(struct ctx *c)
{
	char p[160];

	path_in(p, sizeof(p), c->ws, ".git");
	if (mkdir(p, 0700) < 0)
		return -errno;
	path_in(p, sizeof(p), c->ws, ".git/hooks");
	if (mkdir(p, 0700) < 0)
		return -errno;
	return gitguard_find(&c->policy);
}

int probe_iso_setup(struct ctx *c)
{
	char *mem;
	int ret;

	c->shm_key = (int)(0x43440000 ^ (unsigned int)getpid());
	c->shm_id = shmget(c->shm_key, 4096, IPC_CREAT | IPC_EXCL | 0600);
	if (c->shm_id < 0)
		return -errno;
	mem = shmat(c->shm_id, NULL, 0);
	if (mem == (void *)-1)
		return -errno;
	memcpy(mem, PROBE_SECRET, sizeof(PROBE_SECRET));
	shmdt(mem);
	/* a host without /dev/shm: that check cannot be tested */
	snprintf(c->dev_shm, sizeof(c->dev_shm), "/dev/shm/cordon-probe-%d",
		 (int)getpid());
	write_file(c->dev_shm, PROBE_SECRET, O_CREAT | O_EXCL);
	ret = open_pty(c);
	return ret ? ret : make_repo(c);
}

void probe_iso_teardown(struct ctx *c)
{
	char p[160];

	if (c->shm_id >= 0)
		shmctl(c->shm_id, IPC_RMID, NULL);
	if (c->dev_shm[0])
		unlink(c->dev_shm);
	if (c->pty >= 0)
		close(c->pty);
	remove_hook(c);
	path_in(p, sizeof(p), c->ws, ".git/hooks");
	rmdir(p);
	path_in(p, sizeof(p), c->ws, ".git");
	rmdir(p);
}
