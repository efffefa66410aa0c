/*
 * fakeabi: run a command as if the kernel had an older Landlock ABI.
 *
 *   fakeabi ABI -- COMMAND ARGS...
 *
 * The child installs a seccomp filter that sends every
 * landlock_create_ruleset() to this process through a user-notification fd,
 * hands the fd over a socketpair and executes COMMAND.  The supervisor
 * answers the version query (attr NULL, size 0, flags
 * LANDLOCK_CREATE_RULESET_VERSION) with ABI and lets every other call run in
 * the kernel unchanged, so real rulesets still work.  Only the version
 * number is faked: rights newer than ABI are not rejected.
 *
 * The filter is inherited, so the supervisor keeps serving until no task
 * uses it (POLLHUP on the fd, or the child gone and nothing left to reap:
 * it is a child subreaper, so orphaned descendants come back to it).  It
 * never times out.  SIGINT, SIGTERM, SIGHUP and SIGQUIT are passed on to
 * the child; once the child is gone, they make the supervisor stop.  If the
 * supervisor dies, the child is killed (PR_SET_PDEATHSIG), so the command
 * never runs on with a listener nobody answers.  The kernel allows one
 * listener per filter chain, so fakeabi cannot be nested.
 *
 * Exit status: 2 on misuse or a failure of its own setup; 126 or 127 (as
 * env(1)) if COMMAND cannot be run; otherwise COMMAND's status, 128+N if it
 * was killed by signal N.
 */
#include <errno.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG				"fakeabi"
#define MAX_ABI				9999
#define LANDLOCK_CREATE_RULESET_VERSION 1U

/* The number from the unified syscall table, used if libseccomp is too old. */
#ifdef __SNR_landlock_create_ruleset
#define NR_LANDLOCK_CREATE_RULESET SCMP_SYS(landlock_create_ruleset)
#else
#define NR_LANDLOCK_CREATE_RULESET 444
#endif

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* Print "fakeabi: MESSAGE" and leave with @status; _exit() in the child. */
static void fail(bool child, int status, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

static void fail(bool child, int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (child)
		_exit(status);
	exit(status);
}

#define die(...) fail(false, 2, __VA_ARGS__)

/* libseccomp reports a failed system call as -ECANCELED with errno set. */
static int scmp_errno(int rc)
{
	return rc == -ECANCELED && errno ? errno : -rc;
}

/* Returns the index in @argv of COMMAND; sets *@abi. */
static int parse_args(int argc, char **argv, long *abi)
{
	char *end;
	int cmd = 2;

	if (argc < 3)
		die("usage: " PROG " ABI -- COMMAND ARGS...");
	errno = 0;
	*abi = strtol(argv[1], &end, 10);
	if (errno || *argv[1] < '0' || *argv[1] > '9' || *end || *abi < 1 ||
	    *abi > MAX_ABI)
		die("bad ABI '%s': want 1..%d", argv[1], MAX_ABI);
	if (strcmp(argv[cmd], "--") == 0)
		cmd++;
	if (cmd >= argc)
		die("usage: " PROG " ABI -- COMMAND ARGS...");
	return cmd;
}

static scmp_filter_ctx build_filter(void)
{
	unsigned int api = seccomp_api_get();
	scmp_filter_ctx ctx;
	int rc;

	/* Level 5 is the first with SCMP_ACT_NOTIFY and the notify calls. */
	if (api < 5)
		die("libseccomp API level %u lacks user notification", api);
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		die("cannot create the seccomp filter");
	rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, NR_LANDLOCK_CREATE_RULESET,
			      0);
	if (rc < 0)
		die("cannot add the seccomp rule: %s", strerror(-rc));
	return ctx;
}

static int send_fd(int sock, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u = { 0 };
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	ssize_t n;

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

/* Returns the fd, or -1 with errno set (0 if the child sent nothing). */
static int receive_fd(int sock)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u = { 0 };
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	ssize_t n;
	int fd;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		if (n == 0)
			errno = 0;
		return -1;
	}
	c = CMSG_FIRSTHDR(&msg);
	if (!c || (msg.msg_flags & MSG_CTRUNC) || c->cmsg_level != SOL_SOCKET ||
	    c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int))) {
		errno = EPROTO;
		return -1;
	}
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static void run_child(scmp_filter_ctx ctx, int sock, pid_t parent,
		      const sigset_t *mask, char **cmd)
	__attribute__((noreturn));

/* The child: filter, hand over the listener, wait for the go, exec. */
static void run_child(scmp_filter_ctx ctx, int sock, pid_t parent,
		      const sigset_t *mask, char **cmd)
{
	char go;
	ssize_t n;
	int rc, nfd;

	if (sigprocmask(SIG_SETMASK, mask, NULL) < 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		fail(true, 2, "cannot prepare the child: %s", strerror(errno));
	if (getppid() != parent)
		_exit(2);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail(true, 2, "cannot set no_new_privs: %s", strerror(errno));
	rc = scmp_errno(seccomp_load(ctx));
	/* The kernel allows one listener per filter chain. */
	if (rc == EBUSY)
		fail(true, 2,
		     "a seccomp listener is already installed "
		     "(fakeabi cannot be nested)");
	if (rc)
		fail(true, 2, "cannot load the seccomp filter: %s",
		     strerror(rc));
	nfd = seccomp_notify_fd(ctx);
	if (nfd < 0)
		fail(true, 2, "the seccomp filter has no notify fd");
	if (send_fd(sock, nfd) < 0)
		fail(true, 2, "cannot pass the notify fd: %s", strerror(errno));
	close(nfd);
	do
		n = read(sock, &go, 1);
	while (n < 0 && errno == EINTR);
	/* No go: the supervisor failed and has said why. */
	if (n != 1)
		_exit(2);
	close(sock);
	execvp(cmd[0], cmd);
	rc = errno;
	fail(true, rc == ENOENT ? 127 : 126, "cannot run '%s': %s", cmd[0],
	     strerror(rc));
}

static bool is_version_query(const struct seccomp_notif *req)
{
	return req->data.nr == NR_LANDLOCK_CREATE_RULESET &&
	       req->data.arch == seccomp_arch_native() &&
	       req->data.args[0] == 0 && req->data.args[1] == 0 &&
	       (unsigned int)req->data.args[2] ==
		       LANDLOCK_CREATE_RULESET_VERSION;
}

/* Answer one pending notification; a task that died meanwhile is skipped. */
static void serve_one(int nfd, long abi)
{
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	int rc, err;

	rc = seccomp_notify_alloc(&req, &resp);
	if (rc < 0)
		die("cannot allocate a notification: %s",
		    strerror(scmp_errno(rc)));
	do
		err = scmp_errno(seccomp_notify_receive(nfd, req));
	while (err == EINTR);
	if (err && err != ENOENT)
		die("cannot receive a notification: %s", strerror(err));
	if (err == 0 && seccomp_notify_id_valid(nfd, req->id) == 0) {
		resp->id = req->id;
		if (is_version_query(req))
			resp->val = abi;
		else
			resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		do
			err = scmp_errno(seccomp_notify_respond(nfd, resp));
		while (err == EINTR);
		if (err && err != ENOENT)
			die("cannot answer a notification: %s", strerror(err));
	}
	seccomp_notify_free(req, resp);
}

/*
 * Reap every child that has exited, recording the status of @child in
 * *@status.  Returns true when no child at all is left.
 */
static bool reap(pid_t child, int *status)
{
	pid_t pid;
	int st;

	for (;;) {
		pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0) {
			if (pid == child)
				*status = st;
			continue;
		}
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0 && errno != ECHILD)
			die("cannot wait: %s", strerror(errno));
		return pid < 0;
	}
}

/*
 * Drain the signalfd: reap on SIGCHLD, pass the others on to the child.
 * Returns true when the supervisor should stop.
 */
static bool handle_signals(int sfd, pid_t child, int *status)
{
	struct signalfd_siginfo si;
	bool stop = false;
	ssize_t n;

	for (;;) {
		n = read(sfd, &si, sizeof(si));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return stop;
		if (n != sizeof(si))
			die("cannot read signals: %s", strerror(errno));
		if (si.ssi_signo == SIGCHLD)
			stop |= reap(child, status) && *status != -1;
		else if (*status == -1)
			kill(child, (int)si.ssi_signo);
		else
			stop = true;
	}
}

/* Serve @nfd until no task uses the filter; returns the child's status. */
static int supervise(int nfd, int sfd, pid_t child, long abi)
{
	struct pollfd pfd[2] = {
		{ .fd = nfd, .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};
	int status = -1;
	int n;

	for (;;) {
		n = poll(pfd, 2, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("cannot poll: %s", strerror(errno));
		if (pfd[0].revents & POLLIN)
			serve_one(nfd, abi);
		if (pfd[0].revents & POLLHUP)
			break;
		/* Never spin on an fd that poll() will keep flagging. */
		if ((pfd[0].revents | pfd[1].revents) & (POLLERR | POLLNVAL))
			die("the notify fd or the signalfd failed");
		if ((pfd[1].revents & POLLIN) &&
		    handle_signals(sfd, child, &status))
			break;
	}
	/* Reap what has already exited: init may not, in a container. */
	reap(child, &status);
	while (status == -1 && waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			die("cannot wait for the child: %s", strerror(errno));
	return status;
}

/* Block the signals the supervisor reads from its signalfd. */
static int setup_signals(sigset_t *old)
{
	sigset_t set;
	size_t i;
	int sfd;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	if (sigprocmask(SIG_BLOCK, &set, old) < 0)
		die("cannot block signals: %s", strerror(errno));
	sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0)
		die("cannot create a signalfd: %s", strerror(errno));
	return sfd;
}

/* Take the notify fd from the child, then let it exec; dies on failure. */
static int handshake(int sock, pid_t child)
{
	int nfd = receive_fd(sock);
	int err = errno;

	if (nfd >= 0 && write(sock, "", 1) == 1)
		return nfd;
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* errno 0: the child failed first and has said why. */
	if (nfd < 0 && err == 0)
		exit(2);
	die("cannot take the notify fd from the child: %s",
	    strerror(nfd < 0 ? err : errno));
}

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	sigset_t old;
	long abi;
	int cmd, sfd, nfd, sv[2], status;
	pid_t parent = getpid(), child;

	cmd = parse_args(argc, argv, &abi);
	ctx = build_filter();
	sfd = setup_signals(&old);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		die("cannot become a child subreaper: %s", strerror(errno));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		die("cannot create a socketpair: %s", strerror(errno));
	child = fork();
	if (child < 0)
		die("cannot fork: %s", strerror(errno));
	if (child == 0) {
		close(sv[0]);
		close(sfd);
		run_child(ctx, sv[1], parent, &old, &argv[cmd]);
	}
	close(sv[1]);
	seccomp_release(ctx);
	nfd = handshake(sv[0], child);
	close(sv[0]);
	status = supervise(nfd, sfd, child, abi);
	close(nfd);
	close(sfd);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
