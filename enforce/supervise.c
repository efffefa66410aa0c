/*
 * supervise.c - stay outside the sandbox while the command runs, and
 * keep what the shims of its process tree report.
 *
 * The launcher forks: the child installs the boundary and execs the
 * command; the parent never restricts itself.  It owns a datagram
 * socket that every shim of the tree sends its audit records to (found
 * by path, so a program that closes all its descriptors or clears its
 * environment still reaches it), checks that each record is JSON, and
 * appends it to the log file, which the command cannot reach: records
 * already written cannot be erased from inside.  When the command ends
 * it drains the socket and returns the command's status as env(1) would.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "roots.h"
#include "spawn.h"
#include "supervise.h"

#define RECORD_MAX 16384

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* mkdir -p with mode 0700 for what it creates. */
static int make_dirs(char *path)
{
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			*s = '/';
			return -errno;
		}
		*s = '/';
	}
	return mkdir(path, 0700) < 0 && errno != EEXIST ? -errno : 0;
}

/* ~/.local/state/cordon (or $XDG_STATE_HOME/cordon), created. */
static int state_dir(char out[PATH_BUF])
{
	const char *xdg = getenv("XDG_STATE_HOME");
	const char *home = roots_home();
	int n;

	if (xdg && *xdg == '/')
		n = snprintf(out, PATH_BUF, "%s/cordon", xdg);
	else if (home)
		n = snprintf(out, PATH_BUF, "%s/.local/state/cordon", home);
	else
		return -ENOENT;
	if (n < 0 || n >= PATH_BUF)
		return -ENAMETOOLONG;
	return make_dirs(out);
}

int supervise_default_log(char out[PATH_BUF])
{
	char dir[PATH_BUF];
	int ret = state_dir(dir);

	if (ret)
		return ret;
	if (snprintf(out, PATH_BUF, "%s/audit.jsonl", dir) >= PATH_BUF)
		return -ENAMETOOLONG;
	return 0;
}

static int bind_socket(struct supervisor *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *run = getenv("XDG_RUNTIME_DIR");
	char dir[PATH_BUF];
	int n;

	if (run && *run == '/' && access(run, W_OK) == 0)
		n = snprintf(dir, sizeof(dir), "%s", run);
	else if (state_dir(dir) != 0)
		return -ENOENT;
	else
		n = (int)strlen(dir);
	n = snprintf(s->sockpath, sizeof(s->sockpath), "%.*s/cordon-%d.sock", n,
		     dir, (int)getpid());
	if (n < 0 || n >= (int)sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, s->sockpath, (size_t)n + 1);
	s->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->sock < 0)
		return -errno;
	unlink(s->sockpath);
	if (bind(s->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

int supervise_prepare(struct supervisor *s, const char *log, char *err,
		      size_t errlen)
{
	char def[PATH_BUF];
	int ret;

	memset(s, 0, sizeof(*s));
	s->sock = s->logfd = -1;
	if (!log) {
		ret = supervise_default_log(def);
		log = def;
	} else {
		ret = 0;
	}
	if (!ret) {
		s->logfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
				0600);
		ret = s->logfd < 0 ? -errno : 0;
	}
	if (ret) {
		snprintf(err, errlen, "cannot open the audit log '%s': %s", log,
			 strerror(-ret));
		return ret;
	}
	snprintf(s->logpath, sizeof(s->logpath), "%s", log);
	ret = bind_socket(s);
	if (ret)
		snprintf(err, errlen,
			 "cannot create the report socket '%s': %s",
			 s->sockpath, strerror(-ret));
	return ret;
}

/* Keep one record as it came: a JSON object on one line, or nothing. */
static void keep(struct supervisor *s, const char *rec, size_t len)
{
	json_error_t e;
	json_t *j;

	while (len > 0 && rec[len - 1] == '\n')
		len--;
	if (memchr(rec, '\n', len))
		return;
	j = json_loadb(rec, len, 0, &e);
	if (!json_is_object(j)) {
		json_decref(j);
		return;
	}
	if (write(s->logfd, rec, len) == (ssize_t)len &&
	    write(s->logfd, "\n", 1) == 1)
		s->records++;
	supervise_note(s, j);
	json_decref(j);
}

static void drain(struct supervisor *s)
{
	char rec[RECORD_MAX];
	ssize_t n;

	while ((n = recv(s->sock, rec, sizeof(rec), 0)) > 0)
		keep(s, rec, (size_t)n);
}

static int exit_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return EXIT_CORDON;
}

static void handle_signals(void)
{
	static const int fwd[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
	struct sigaction sa = { .sa_handler = forward };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaction(fwd[i], &sa, NULL);
	/* The terminal sends these to the whole foreground group: the
	 * command gets them itself, as under system(3). */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
}

int supervise_wait(struct supervisor *s, pid_t pid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd fds[2] = { { .fd = s->sock, .events = POLLIN },
				 { .fd = pidfd, .events = POLLIN } };
	bool reaped = false;
	int st = 0;

	child = pid;
	handle_signals();
	while (!reaped) {
		/* Without a pidfd (Linux < 5.3), poll in steps. */
		int n = poll(fds, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : 100);

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (fds[0].revents & POLLIN))
			drain(s);
		reaped = waitpid(pid, &st, WNOHANG) == pid;
	}
	if (!reaped)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	if (pidfd >= 0)
		close(pidfd);
	drain(s);
	return exit_status(st);
}

void supervise_close(struct supervisor *s)
{
	if (s->sock >= 0) {
		close(s->sock);
		unlink(s->sockpath);
	}
	if (s->logfd >= 0)
		close(s->logfd);
	s->sock = s->logfd = -1;
}
