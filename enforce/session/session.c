/*
 * session.c - `cordon session start`: a sandbox prepared once, in which
 * many commands run.
 *
 * The architecture, and why:
 *  - `session start` forks a daemon (setsid: no terminal's signal
 *    reaches it) that is the session's supervisor, outside the sandbox,
 *    exactly as the launcher's parent is for a plain run: it prepares
 *    the policy, the shim, the report socket and the log with
 *    launch_prepare() and forks the sandbox with launch_start(), the
 *    same code a plain run takes (launch.c), so the boundary is the
 *    same: pid 1 in new namespaces with Landlock, the seccomp filter,
 *    the broker's gate, no capabilities.  Only what pid 1 does then
 *    differs: instead of exec'ing one command it serves calls
 *    (session_pid1.c).  A call is vfork+exec from a process already
 *    inside: none of the namespaces, mounts or filters is made again,
 *    which is what makes a call cheap.
 *  - The control socket lives outside every root a session may grant,
 *    where no sandbox can bind or rename (rundir.c: a trusted
 *    $XDG_RUNTIME_DIR/cordon, else ~/.local/state/cordon/run, 0700;
 *    the socket 0600, bound through the directory's descriptor), a
 *    policy whose writable or --connect-unix roots would reach it is
 *    refused, who listens is recorded for the clients to check
 *    (session_trust.c), and it is bound
 *    before the sandbox is made, so the mounts cover it where a readable
 *    root shows it (covers.c), and any socket bound later is the
 *    broker's to refuse: no command reaches the supervisor.
 *  - A client must be of the session's uid (SO_PEERCRED); its requests
 *    are lines of JSON, bounded and validated (session_serve.c), and its
 *    descriptors 0, 1 and 2 come with its request (SCM_RIGHTS), so
 *    pipes and files work as they would bare; a terminal never enters:
 *    the call gets a pty of the session's own, relayed by the client
 *    and closed when the call ends (session_pty.c).
 *  - pid 1 is inside the commands' namespaces and theirs to attack:
 *    what it sends back is fixed-size and checked.  SCM_RIGHTS runs only
 *    from outside (supervisor to pid 1, a pty's master to the client
 *    that asked); nothing inside gets a descriptor
 *    of the supervisor's but the channel's end, which pid 1 holds
 *    close-on-exec and sealed.
 *  - `stop`, `--idle` and a supervisor that dies all end pid 1, and the
 *    PID namespace with every process in it goes with it
 *    (PR_SET_PDEATHSIG, ns.c); then the socket, the report socket and a
 *    ci temp dir are removed.  A dead session's socket refuses a
 *    connection at once: the client says so, exit 125.
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
#include <sys/eventfd.h>
#include <unistd.h>

#include "enforce/run/run.h"
#include "enforce/policy/policy.h"
#include "enforce/probe/probe.h"
#include "enforce/base/base.h"
#include "enforce/session/session.h"
#include "enforce/session/session_ask.h"
#include "enforce/session/session_note.h"
#include "enforce/session/session_serve.h"
#include "enforce/session/session_trust.h"

/* In the sandbox: serve calls instead of running one command. */
static int inside(struct cli *c, struct launch *l, void *arg)
{
	(void)l;
	return session_pid1(c, *(int *)arg);
}

/* The control socket, bound through its directory's descriptor
 * (rundir.h), and who listens on it recorded (session_trust.h). */
static int bind_control(struct session *s)
{
	char err[2 * PATH_BUF], name[SESSION_ID_LEN + 8];
	const struct rundir *rd;
	struct sockaddr_un sa;
	mode_t old;
	int len, ret = rundir_get(&rd, err, sizeof(err));

	if (ret)
		return ret;
	snprintf(name, sizeof(name), "%s.sock", s->id);
	len = rundir_addr(rd->fd, name, &sa);
	if (len < 0)
		return len;
	s->listen_fd =
		socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->listen_fd < 0)
		return -errno;
	old = umask(0177); /* the socket 0600 */
	if (bind(s->listen_fd, (struct sockaddr *)&sa, (socklen_t)len) < 0 ||
	    listen(s->listen_fd, 64) < 0)
		ret = -errno;
	umask(old);
	return ret ? ret : session_trust_record(s->id);
}

/* A root that would let a command write or connect to the control
 * socket: refused, as a --write of the audit log is. */
static bool reaches_socket(const struct policy *p, const char *sock)
{
	char dir[PATH_BUF];

	snprintf(dir, sizeof(dir), "%s", sock);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	return policy_unix_allowed(p, sock) ||
	       policy_allows(p, RIGHT_W, sock) || rundir_reached(p, dir);
}

/* Wait for pid 1's word that the boundary is in place. */
static int wait_ready(struct session *s)
{
	struct pollfd fds[2] = { { .fd = s->chan, .events = POLLIN },
				 { .fd = s->pidfd, .events = POLLIN } };
	struct session_msg m;

	for (;;) {
		int n = poll(fds, 2, 30000);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (fds[1].revents & POLLIN))
			return -ECHILD;
		if (recv(s->chan, &m, sizeof(m), 0) != (ssize_t)sizeof(m) ||
		    m.type != SESSION_READY)
			return -EPROTO;
		return 0;
	}
}

static const char *net_name(enum net_mode net)
{
	return net == NET_OFF ? "off" : net == NET_PORTS ? "ports" : "on";
}

/* What `session start --json` prints (and the first line without). */
static char *describe(struct session *s)
{
	const struct policy *p = &s->c->policy;
	json_t *w = json_array(), *doc = probe_mode_json(&s->l.fs, s->l.kernel);
	char *out;

	for (size_t i = 0; i < p->nroots; i++)
		if (p->roots[i].rights & RIGHT_W)
			json_array_append_new(w, json_string(p->roots[i].path));
	if (!doc)
		return NULL;
	json_object_set_new(doc, "id", json_string(s->id));
	json_object_set_new(doc, "socket", json_string(s->sockpath));
	json_object_set_new(doc, "pid", json_integer(getpid()));
	json_object_set_new(doc, "policy",
			    json_pack("{s:s, s:s, s:o, s:I}", "mode",
				      cli_mode_name(s->c->mode), "net",
				      net_name(p->net), "writable", w, "idle",
				      (json_int_t)s->idle));
	out = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	return out;
}

/* 0, 1 and 2 of the daemon: /dev/null, once the caller has its answer. */
static void detach_std_fds(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	for (int fd = 0; null >= 0 && fd < 3; fd++)
		dup2(null, fd);
	if (null > 2)
		close(null);
}

static int make_sandbox(struct session *s)
{
	int chan[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, chan) < 0) {
		say_error("cannot make the session's channel: %s",
			  strerror(errno));
		return EXIT_CORDON;
	}
	/* pid 1 keeps its end through its seal (pid1_seal() closes what is
	 * close-on-exec) and makes it close-on-exec again itself */
	fcntl(chan[1], F_SETFD, 0);
	pid = launch_start(s->c, &s->l, inside, &chan[1]);
	close(chan[1]);
	s->chan = chan[0];
	if (pid < 0)
		return EXIT_CORDON;
	s->pid1 = pid;
	s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (s->pidfd < 0 || wait_ready(s)) {
		say_error("the session's sandbox did not start");
		session_end(s);
		return EXIT_CORDON;
	}
	return 0;
}

/* The daemon could not start: the caller's answer is the first error it
 * said (on the caller's stderr already), for its --json document. */
__attribute__((noreturn)) static void daemon_fail(int ready, int status)
{
	const char *why = say_first();

	if (why && write(ready, why, strlen(why)) < 0)
		status = EXIT_CORDON;
	_exit(status);
}

/* The daemon: prepare, make the sandbox, answer @ready, serve. */
static void daemon_main(struct session *s, int ready)
{
	char *doc;
	int ret;

	signal(SIGPIPE, SIG_IGN);
	pthread_mutex_init(&s->mu, NULL);
	s->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->wake < 0) {
		say_error("cannot make the session's event: %s",
			  strerror(errno));
		daemon_fail(ready, EXIT_CORDON);
	}
	ret = launch_prepare(s->c, &s->l, &s->sup);
	if (ret) {
		modes_cleanup();
		daemon_fail(ready, ret);
	}
	if (s->c->ask)
		session_ask_start(s); /* before the gate is served */
	/* without a PID namespace nothing ends a background process of a
	 * call when the session stops: refused, even with --best-effort */
	if (!feature_layer_ok(&s->l.fs, "pid")) {
		say_error("a session needs the PID namespace (cordon probe: "
			  "the pid layer), so that stop ends every process "
			  "in it");
		supervise_close(&s->sup);
		modes_cleanup();
		daemon_fail(ready, EXIT_CORDON);
	}
	if (reaches_socket(&s->c->policy, s->sockpath)) {
		say_error("the session's own socket '%s' is never granted: "
			  "a root of the policy would reach it",
			  s->sockpath);
		supervise_close(&s->sup);
		modes_cleanup();
		daemon_fail(ready, EXIT_CORDON);
	}
	ret = bind_control(s);
	if (ret) {
		say_error("cannot make the session's socket '%s': %s",
			  s->sockpath, strerror(-ret));
		supervise_close(&s->sup);
		modes_cleanup();
		daemon_fail(ready, EXIT_CORDON);
	}
	/* a session's limits, a call's each (budget.h) */
	budget_init(&s->sup.budget, BUDGET_SESSION_SCALE);
	s->sup.tag = session_tag;
	s->sup.tag_arg = s;
	s->sup.note = session_note;
	/* each report's sender, the kernel's word: its call */
	supervise_want_creds(&s->sup);
	s->sup.tally.policy = &s->c->policy;
	if (make_sandbox(s))
		daemon_fail(ready, EXIT_CORDON);
	doc = describe(s);
	if (!doc || write(ready, doc, strlen(doc)) != (ssize_t)strlen(doc)) {
		session_end(s);
		_exit(EXIT_CORDON);
	}
	free(doc);
	close(ready);
	detach_std_fds();
	session_serve(s);
	session_end(s);
	_exit(0);
}

/* The caller's side: the daemon's answer, printed; 125 without one. */
static int answer(const struct cli *c, int ready, const char *id)
{
	static char buf[1 << 16];
	size_t len = 0;
	ssize_t n;
	json_t *doc;

	while (len < sizeof(buf) - 1 &&
	       (n = read(ready, buf + len, sizeof(buf) - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	doc = len ? json_loads(buf, 0, NULL) : NULL;
	if (!json_is_object(doc)) {
		json_decref(doc);
		/* the daemon said why on stderr and sent it here */
		say_kept(len ? buf
			     : "session start: the session did not start");
		return EXIT_CORDON;
	}
	json_decref(doc);
	if (c->json)
		puts(buf);
	else
		puts(id);
	return fflush(stdout) ? EXIT_CORDON : 0;
}

int session_start(struct cli *c)
{
	static struct session s;
	int ready[2], ret;
	pid_t pid;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.idle = c->idle;
	s.listen_fd = s.chan = s.pidfd = -1;
	ret = session_id_new(s.id);
	if (!ret)
		ret = session_sock_path(s.id, s.sockpath);
	if (ret) {
		say_error("cannot make the session's directory: %s",
			  strerror(-ret));
		return EXIT_CORDON;
	}
	if (pipe2(ready, O_CLOEXEC) < 0) {
		say_error("cannot start the session: %s", strerror(errno));
		return EXIT_CORDON;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		say_error("cannot start the session: %s", strerror(errno));
		return EXIT_CORDON;
	}
	if (pid == 0) {
		close(ready[0]);
		/* nothing of the caller's but 0, 1 and 2 (until the answer):
		 * a pipe it leaked to us must not wait on the session */
		if (ready[1] > 3)
			syscall(SYS_close_range, 3U, (unsigned int)ready[1] - 1,
				0U);
		syscall(SYS_close_range, (unsigned int)ready[1] + 1, ~0U, 0U);
		setsid();
		daemon_main(&s, ready[1]);
	}
	close(ready[1]);
	ret = answer(c, ready[0], s.id);
	close(ready[0]);
	if (ret)
		waitpid(pid, NULL, WNOHANG);
	return ret;
}
