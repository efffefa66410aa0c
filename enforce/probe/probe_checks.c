/*
 * probe_checks.c - the forbidden actions `cordon probe` attempts.
 *
 * Each check has an attempt (run in a child, inside or outside the
 * sandbox; returns 0 when the action went through, else the errno), a
 * test of its effect read from outside by the parent, and a reset that
 * puts the fixture back for the next attempt.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/probe/probe_checks.h"

static void path_in(char *buf, size_t len, const char *dir, const char *f)
{
	snprintf(buf, len, "%s/%s", dir, f);
}

static int try_write_new(struct ctx *c)
{
	char p[128];
	int fd;

	path_in(p, sizeof(p), c->out, "new");
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static bool exists(const char *dir, const char *f)
{
	char p[128];

	path_in(p, sizeof(p), dir, f);
	return access(p, F_OK) == 0;
}

static bool new_exists(struct ctx *c)
{
	return exists(c->out, "new");
}

static void remove_new(struct ctx *c)
{
	char p[128];

	path_in(p, sizeof(p), c->out, "new");
	unlink(p);
}

static int try_truncate(struct ctx *c)
{
	char p[128];
	int fd;

	path_in(p, sizeof(p), c->out, "secret");
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static bool secret_changed(struct ctx *c)
{
	char p[128], buf[64] = "";
	ssize_t n;
	int fd;

	path_in(p, sizeof(p), c->out, "secret");
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n != (ssize_t)strlen(PROBE_SECRET) ||
	       strcmp(buf, PROBE_SECRET) != 0;
}

static void restore_secret(struct ctx *c)
{
	char p[128];
	int fd;

	path_in(p, sizeof(p), c->out, "secret");
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, PROBE_SECRET, strlen(PROBE_SECRET)) < 0)
			(void)0; /* the next check reports a changed secret */
		close(fd);
	}
}

/* Copy what @from holds into the workspace as @name: what the child
 * could read becomes visible from outside.  0, or the errno. */
static int copy_out(struct ctx *c, const char *from, const char *name)
{
	char p[128], buf[256];
	ssize_t n;
	int fd;

	fd = open(from, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return n < 0 ? errno : ENOENT;
	path_in(p, sizeof(p), c->ws, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	if (write(fd, buf, (size_t)n) < 0)
		n = -1;
	close(fd);
	return n > 0 ? 0 : EIO;
}

static int try_read(struct ctx *c)
{
	char p[128];

	path_in(p, sizeof(p), c->out, "secret");
	return copy_out(c, p, "leak");
}

static bool leaked(struct ctx *c)
{
	return exists(c->ws, "leak");
}

static void remove_leak(struct ctx *c)
{
	char p[128];

	path_in(p, sizeof(p), c->ws, "leak");
	unlink(p);
}

/* Exec a copy of a system shell placed outside: it leaves a mark. */
static int try_exec(struct ctx *c)
{
	char prog[128], mark[128];
	pid_t pid;
	int st;

	path_in(prog, sizeof(prog), c->out, "sh");
	path_in(mark, sizeof(mark), c->ws, "ran");
	pid = fork();
	if (pid == 0) {
		execl(prog, "sh", "-c", ": > \"$0\"", mark, (char *)NULL);
		_exit(errno == EACCES ? 100 : 101);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return errno;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 100)
		return EACCES;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : EIO;
}

static bool ran(struct ctx *c)
{
	return exists(c->ws, "ran");
}

static void remove_ran(struct ctx *c)
{
	char p[128];

	path_in(p, sizeof(p), c->ws, "ran");
	unlink(p);
}

static int try_tcp(struct ctx *c)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	if (fd < 0)
		return errno;
	if (connect(fd, (struct sockaddr *)&c->tcp_addr, sizeof(c->tcp_addr)) <
	    0)
		ret = errno;
	close(fd);
	return ret;
}

static bool tcp_contacted(struct ctx *c)
{
	int fd = accept4(c->tcp, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int probe_try_udp(struct ctx *c)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	if (fd < 0)
		return errno;
	if (sendto(fd, "x", 1, 0, (struct sockaddr *)&c->udp_addr,
		   sizeof(c->udp_addr)) < 0)
		ret = errno;
	close(fd);
	return ret;
}

bool probe_udp_contacted(struct ctx *c)
{
	char buf[8];

	return recv(c->udp, buf, sizeof(buf), MSG_DONTWAIT) > 0;
}

static int try_abstract(struct ctx *c)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	if (fd < 0)
		return errno;
	if (connect(fd, (struct sockaddr *)&c->unix_addr, c->unix_len) < 0)
		ret = errno;
	close(fd);
	return ret;
}

static bool unix_contacted(struct ctx *c)
{
	int fd = accept4(c->unix_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int try_signal(struct ctx *c)
{
	return kill(c->victim, SIGTERM) < 0 ? errno : 0;
}

static bool victim_died(struct ctx *c)
{
	int st;

	usleep(20000); /* a delivered SIGTERM kills at once; give it time */
	return waitpid(c->victim, &st, WNOHANG) == c->victim;
}

static pid_t start_victim(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		alarm(30); /* bounded even if the probe dies */
		pause();
		_exit(0);
	}
	return pid;
}

static void respawn_victim(struct ctx *c)
{
	if (c->victim > 0 && kill(c->victim, 0) == 0)
		return;
	c->victim = start_victim();
}

/* Metadata: Landlock has no right for it; the mounts are read-only. */
static int try_chmod(struct ctx *c)
{
	char p[128];

	path_in(p, sizeof(p), c->out, "secret");
	return fchmodat(AT_FDCWD, p, 0666, 0) < 0 ? errno : 0;
}

static bool mode_changed(struct ctx *c)
{
	char p[128];
	struct stat st;

	path_in(p, sizeof(p), c->out, "secret");
	return stat(p, &st) < 0 || (st.st_mode & 07777) != 0600;
}

static void restore_mode(struct ctx *c)
{
	char p[128];

	path_in(p, sizeof(p), c->out, "secret");
	chmod(p, 0600);
}

/* The victim's command line, copied into the workspace. */
static int try_cmdline(struct ctx *c)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d/cmdline", (int)c->victim);
	return copy_out(c, p, "cmdline");
}

/* The victim is the probe's own child: its command line says probe. */
static bool cmdline_leaked(struct ctx *c)
{
	char p[128], buf[256] = "";
	ssize_t n;
	int fd;

	path_in(p, sizeof(p), c->ws, "cmdline");
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return n > 0 && strstr(buf, "probe");
}

static void remove_cmdline(struct ctx *c)
{
	char p[128];

	path_in(p, sizeof(p), c->ws, "cmdline");
	unlink(p);
}

/*
 * Each row proves its own layer.  With the network off the command has
 * a network namespace of its own, where the host's loopback listener
 * and abstract sockets do not exist: Landlock's TCP rule and its
 * abstract-socket scope are tried without it (PROBE_NO_NETNS), and the
 * namespace alone on its own row (PROBE_NETNS_ALONE: Landlock would
 * refuse the connect first).  On a kernel whose Landlock lacks the right,
 * the guarantee is another layer's (feature.h): the row is tried with
 * the whole sandbox, and says "held".
 */
const struct check probe_checks[] = {
	{ "landlock", "create a file outside the writable roots", try_write_new,
	  new_exists, remove_new, PROBE_WHOLE, NULL, false, NULL, NULL },
	{ "landlock", "truncate a file outside the writable roots",
	  try_truncate, secret_changed, restore_secret, PROBE_WHOLE, NULL,
	  false, NULL, NULL },
	{ "landlock", "read a file outside the readable roots", try_read,
	  leaked, remove_leak, PROBE_WHOLE, NULL, false, NULL, NULL },
	{ "landlock", "execute a program outside the exec roots", try_exec, ran,
	  remove_ran, PROBE_WHOLE, NULL, false, NULL, NULL },
	{ "landlock", "TCP connect with network off", try_tcp, tcp_contacted,
	  NULL, PROBE_NO_NETNS, NULL, false, "TCP connect and bind rules",
	  NULL },
	{ "net", "reach the host's loopback with network off", try_tcp,
	  tcp_contacted, NULL, PROBE_NETNS_ALONE, NULL, false, NULL, NULL },
	{ "seccomp", "UDP send with network off", probe_try_udp,
	  probe_udp_contacted, NULL, PROBE_WHOLE, NULL, false, NULL, NULL },
	{ "landlock", "connect to an abstract UNIX socket outside",
	  try_abstract, unix_contacted, NULL, PROBE_NO_NETNS, NULL, false,
	  "abstract UNIX sockets of processes outside", NULL },
	{ "landlock", "signal a process outside", try_signal, victim_died,
	  respawn_victim, PROBE_WHOLE, NULL, false, NULL, NULL },
	{ "mount", "chmod a file outside the writable roots", try_chmod,
	  mode_changed, restore_mode, PROBE_WHOLE, NULL, false, NULL, NULL },
	{ "pid", "read a process outside's command line", try_cmdline,
	  cmdline_leaked, remove_cmdline, PROBE_WHOLE, NULL, false, NULL,
	  NULL },
};

const size_t probe_nchecks = sizeof(probe_checks) / sizeof(probe_checks[0]);

pid_t probe_start_victim(void)
{
	return start_victim();
}
