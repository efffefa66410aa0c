/*
 * session_pid1.c - pid 1 of a session's namespaces: instead of
 * exec'ing one command (spawn_exec), it waits on the channel from the
 * supervisor for calls and starts each as its child, in a process group
 * of its own, with the caller's descriptors, directory and environment
 * (spawn_child), and says when each has started and how it ended.  A
 * call given a terminal (only ever the supervisor's pty for it,
 * session_pty.c) leads a session of its own with that terminal as its
 * controlling one.
 *
 * It runs inside the whole boundary (Landlock, the seccomp filter, the
 * broker's filter, no capabilities), sealed (pid1.c): the commands can
 * neither trace it nor read its memory or descriptors, and it keeps
 * nothing they could use: its environment wiped, 0, 1 and 2 on
 * /dev/null, the channel close-on-exec, each call's descriptors closed
 * once the call is started.  It reaps every orphan (background
 * processes of earlier calls live on, as state of the session).  When
 * the supervisor goes (the channel ends), it leaves, and the PID
 * namespace, with every process in it, goes with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/session/session.h"
#include "enforce/session/session_proto.h"
#include "enforce/base/base.h"

extern char **environ;

struct running {
	uint32_t call;
	pid_t pid;
};

static struct running calls[SESSION_CALLS_MAX];

static void say(int chan, uint32_t type, uint32_t call, int32_t value)
{
	struct session_msg m = { type, call, value, 0 };

	if (send(chan, &m, sizeof(m), MSG_NOSIGNAL) < 0 && errno == EPIPE)
		_exit(EXIT_CORDON);
}

/* "cwd\0argv...\0\0env...\0" into @argv and @envp (each room for
 * SESSION_ARGS_MAX + 1); false when malformed. */
static bool split(char *buf, size_t len, const char **cwd, char **argv,
		  char **envp)
{
	char **out = argv;
	size_t i = 0, n = 0;

	if (len == 0 || buf[len - 1] != '\0')
		return false;
	*cwd = buf;
	i = strlen(buf) + 1;
	while (i < len) {
		if (buf[i] == '\0' && out == argv) {
			out[n] = NULL;
			out = envp;
			n = 0;
			i++;
			continue;
		}
		if (n == SESSION_ARGS_MAX)
			return false;
		out[n++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	out[n] = NULL;
	return out == envp && argv[0] && **cwd == '/';
}

/* The call's stderr as this process's for the line spawn_child()
 * prints when the command cannot start, then /dev/null again. */
static int start(struct cli *c, char **argv, char **envp,
		 const struct spawn_call *call, pid_t *pid)
{
	int ret, null;

	dup2(call->fds[2], 2);
	ret = spawn_child(argv, envp, &c->policy, call, pid);
	fflush(stderr);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 2);
		close(null);
	}
	return ret;
}

static void spawn(struct cli *c, int chan, const struct session_msg *m,
		  char *payload, int *fds, int nfds)
{
	static char *argv[SESSION_ARGS_MAX + 1], *envp[SESSION_ARGS_MAX + 1];
	struct spawn_call call = { .fds = { -1, -1, -1 } };
	size_t slot = SESSION_CALLS_MAX;
	pid_t pid = -1;
	int ret = EXIT_CORDON;

	for (size_t i = 0; i < SESSION_CALLS_MAX; i++)
		if (calls[i].pid == 0)
			slot = i;
	if (nfds == 3 && slot < SESSION_CALLS_MAX &&
	    split(payload, m->len, &call.cwd, argv, envp)) {
		memcpy(call.fds, fds, sizeof(call.fds));
		/* the supervisor's pty: only it passes a terminal */
		for (int i = 0; i < 3; i++)
			call.terminal = call.terminal || isatty(fds[i]);
		ret = start(c, argv, envp, &call, &pid);
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	if (ret) {
		say(chan, SESSION_EXITED, m->call, ret);
		return;
	}
	calls[slot] = (struct running){ m->call, pid };
	say(chan, SESSION_STARTED, m->call, pid);
}

static void deliver(const struct session_msg *m)
{
	for (size_t i = 0; i < SESSION_CALLS_MAX; i++)
		if (calls[i].pid > 0 && calls[i].call == m->call &&
		    m->value > 0 && m->value < NSIG &&
		    kill(-calls[i].pid, m->value) < 0)
			kill(calls[i].pid, m->value);
}

/* One message from the supervisor. */
static void receive(struct cli *c, int chan)
{
	static char buf[sizeof(struct session_msg) + SESSION_SPAWN_MAX];
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct session_msg m = { 0 };
	int fds[4], nfds = 0;
	ssize_t n = recvmsg(chan, &mh, MSG_CMSG_CLOEXEC);

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0)
		_exit(0); /* the supervisor is gone: so is the session */
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm;
	     cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			for (size_t i = 0;
			     i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int) &&
			     nfds < 4;
			     i++)
				fds[nfds++] = ((int *)CMSG_DATA(cm))[i];
	if ((size_t)n >= sizeof(m))
		memcpy(&m, buf, sizeof(m));
	if ((size_t)n >= sizeof(m) && m.type == SESSION_SPAWN &&
	    m.len == (size_t)n - sizeof(m)) {
		spawn(c, chan, &m, buf + sizeof(m), fds, nfds);
		return;
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	if ((size_t)n == sizeof(m) && m.type == SESSION_SIGNAL)
		deliver(&m);
}

/* Reap every child; say how each call ended. */
static void reap(int chan)
{
	int st;
	pid_t w;

	while ((w = waitpid(-1, &st, WNOHANG)) > 0)
		for (size_t i = 0; i < SESSION_CALLS_MAX; i++) {
			if (calls[i].pid != w)
				continue;
			say(chan, SESSION_EXITED, calls[i].call,
			    WIFEXITED(st) ? WEXITSTATUS(st)
					  : 128 + WTERMSIG(st));
			calls[i].pid = 0;
		}
}

/* 0, 1 and 2 on /dev/null: no descriptor of the caller of `session
 * start` stays here, and a call's descriptors never land on them. */
static void null_std_fds(void)
{
	int null = open("/dev/null", O_RDWR);

	for (int fd = 0; null >= 0 && fd < 3; fd++)
		if (fd != null)
			dup2(null, fd);
	if (null > 2)
		close(null);
}

int session_pid1(struct cli *c, int chan)
{
	static const int ignored[] = { SIGINT, SIGQUIT, SIGPIPE, SIGTERM,
				       SIGHUP, SIGUSR1, SIGUSR2 };
	struct pollfd fds[2];
	sigset_t set;
	int sfd;

	spawn_forget_environ(environ, NULL);
	environ = NULL;
	null_std_fds();
	/* nothing of the supervisor's but the channel */
	if (chan > 3)
		syscall(SYS_close_range, 3U, (unsigned int)chan - 1, 0U);
	syscall(SYS_close_range, (unsigned int)chan + 1, ~0U, 0U);
	fcntl(chan, F_SETFD, FD_CLOEXEC);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		return EXIT_CORDON;
	/* an init gets only the signals it handles: none from inside ends
	 * the session (pid1_catch_signals() made TERM, HUP, USR1 and USR2
	 * end the start; the calls have their own group to signal) */
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	say(chan, SESSION_READY, 0, 0);
	fds[0] = (struct pollfd){ .fd = chan, .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		struct signalfd_siginfo si;

		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			return EXIT_CORDON;
		if (fds[1].revents & POLLIN) {
			while (read(sfd, &si, sizeof(si)) > 0)
				;
			reap(chan);
		}
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR))
			receive(c, chan);
	}
}
