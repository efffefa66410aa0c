/*
 * session_serve.c - the session's supervisor loop, outside the
 * sandbox: accept clients of the session's uid, take their requests
 * (one line of JSON each, bounded, validated), pass calls to pid 1
 * with the caller's descriptors, answer each call's status, keep the
 * shims' records, and end the session when asked, when idle, or when
 * the sandbox is gone.
 *
 * Requests (doc/session-protocol.md):
 *   {"op": "run", "argv": [...], "cwd": "/abs", "env": {"N": "V"},
 *    "tty": true}
 *       with descriptors 0, 1, 2; answers {"tty": true} with the
 *       master of the call's own pty when one of them is a terminal
 *       (session_pty.c; without "tty": true, refused), {"call": N}
 *       once started, then {"exit": STATUS} (and "error" when cordon
 *       refused: 125)
 *       ("ask": true: its caller answers --ask's questions,
 *       {"ask": "HOST", "id": N}; session_ask.c)
 *   {"op": "answer", "id": N, "allow": "yes"|"no"|"always"}
 *   {"op": "signal", "signal": N}   on a connection with a running call
 *   {"op": "info"}                  answers the session's state
 *   {"op": "stop"}                  answers {"stopped": true}, then ends
 * What pid 1 answers is untrusted: fixed-size messages, a call it
 * was given, a status in 0..255, a pid in range.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "enforce/base/base.h"
#include "enforce/session/session_ask.h"
#include "enforce/session/session_pty.h"
#include "enforce/session/session_note.h"
#include "enforce/session/session_serve.h"
#include "enforce/session/session_trust.h"
#include "shim/core/env.h"

/* The variables a call may not set: the shim's own. */
static const char *const reserved[] = { "LD_PRELOAD", "CORDON_POLICY", ASAN_VAR,
					NULL };

/* The signals a client may forward. */
static bool forwardable(json_int_t sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP ||
	       sig == SIGQUIT || sig == SIGKILL || sig == SIGUSR1 ||
	       sig == SIGUSR2 || sig == SIGWINCH || sig == SIGCONT ||
	       sig == SIGSTOP || sig == SIGTSTP;
}

static void touch(struct session *s)
{
	clock_gettime(CLOCK_MONOTONIC, &s->last);
}

/* The caller's terminals out of the call's descriptors (session_pty.c):
 * a pty of the session's own in their place, its master to the client
 * that asked.  NULL, or the reason the call is refused. */
static const char *own_terminal(struct client *k, json_t *req)
{
	json_t *tty = json_object_get(req, "tty");
	int master, ret;

	if (tty && !json_is_boolean(tty))
		return "\"tty\" is true or false";
	if (!session_pty_has_terminal(k->line.fds))
		return NULL;
	if (!json_is_true(tty))
		return "a terminal never enters a session: ask for a "
		       "pseudo-terminal of its own (\"tty\": true) and relay "
		       "it, or pass pipes";
	master = session_pty_open(k->line.fds);
	if (master < 0)
		return "cannot make the call's pseudo-terminal";
	ret = session_reply_fd(k, json_pack("{s:b}", "tty", 1), master);
	close(master); /* the client's only */
	return ret ? "cannot pass the call's pseudo-terminal" : NULL;
}

static void drop(struct session *s, struct client *k)
{
	pthread_mutex_lock(&s->mu);
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	pthread_mutex_unlock(&s->mu);
	session_line_close_fds(&k->line);
	k->line.len = 0;
	if (!k->running) {
		free(session_note_take(s, k));
		free(k->line.buf);
		k->line.buf = NULL;
		k->call = 0;
	}
}

/* Refuse the request with one line and exit status 125. */
static void refuse(struct session *s, struct client *k, const char *why)
{
	session_reply(
		k, json_pack("{s:i, s:s}", "exit", EXIT_CORDON, "error", why));
	drop(s, k);
}

/* Append @str and its NUL to @buf (@len so far, at most @cap). */
static bool put(char *buf, size_t *len, size_t cap, const char *str)
{
	size_t n = strlen(str) + 1;

	if (n > cap - *len)
		return false;
	memcpy(buf + *len, str, n);
	*len += n;
	return true;
}

/* The call's environment into @buf: the session's, PWD its directory
 * @cwd (as a shell that started there would have it), then the
 * request's on top.  NULL, or the reason it is refused. */
static const char *put_env(struct session *s, json_t *env, const char *cwd,
			   char *buf, size_t *len, size_t cap)
{
	char entry[SESSION_LINE_MAX];
	const char *name;
	json_t *v;

	if (env && !json_is_object(env))
		return "\"env\" is an object of strings";
	json_object_foreach(env, name, v)
	{
		if (!json_is_string(v) || !cli_is_env_name(name, strlen(name)))
			return "\"env\": not a variable name, or a value "
			       "that is no string";
		for (size_t i = 0; reserved[i]; i++)
			if (strcmp(name, reserved[i]) == 0)
				return "\"env\": the shim's own variables "
				       "are the session's";
	}
	for (size_t i = 0; s->l.envp[i]; i++) {
		size_t n = env_name_len(s->l.envp[i]);
		char nm[256];

		if (!s->l.envp[i][n] || n >= sizeof(nm))
			continue;
		memcpy(nm, s->l.envp[i], n);
		nm[n] = '\0';
		if ((env && json_object_get(env, nm)) || strcmp(nm, "PWD") == 0)
			continue;
		if (!put(buf, len, cap, s->l.envp[i]))
			return "the environment is too large";
	}
	if (!json_object_get(env, "PWD") &&
	    (snprintf(entry, sizeof(entry), "PWD=%s", cwd) >=
		     (int)sizeof(entry) ||
	     !put(buf, len, cap, entry)))
		return "the environment is too large";
	json_object_foreach(env, name, v)
	{
		if (snprintf(entry, sizeof(entry), "%s=%s", name,
			     json_string_value(v)) >= (int)sizeof(entry) ||
		    !put(buf, len, cap, entry))
			return "the environment is too large";
	}
	return NULL;
}

/* The call's directory: absolute, a directory the session may see. */
static const char *check_cwd(struct session *s, json_t *v, char out[PATH_BUF])
{
	const char *cwd = json_string_value(v);
	struct stat st;

	if (!cwd || cwd[0] != '/')
		return "\"cwd\" is an absolute path";
	if (path_resolve(AT_FDCWD, cwd, 0, out) != 0 || stat(out, &st) < 0 ||
	    !S_ISDIR(st.st_mode))
		return "--cwd: no such directory";
	if (!policy_allows(&s->c->policy, RIGHT_R, out))
		return "--cwd: outside what the session may see";
	return NULL;
}

/* "cwd\0argv...\0\0env...\0" after the head, in @buf. */
static const char *build(struct session *s, json_t *req, char *buf, size_t *len)
{
	size_t cap = sizeof(struct session_msg) + SESSION_SPAWN_MAX, i;
	json_t *argv = json_object_get(req, "argv"), *v;
	char cwd[PATH_BUF];
	const char *why = check_cwd(s, json_object_get(req, "cwd"), cwd);

	if (why)
		return why;
	if (!json_is_array(argv) || json_array_size(argv) == 0 ||
	    json_array_size(argv) > SESSION_ARGS_MAX)
		return "\"argv\" is a list of 1 to 4096 strings";
	*len = sizeof(struct session_msg);
	put(buf, len, cap, cwd);
	json_array_foreach(argv, i, v)
	{
		const char *w = json_string_value(v);

		if (!w || (i == 0 && !*w))
			return "\"argv\" is a list of strings, the first "
			       "not empty";
		if (!put(buf, len, cap, w))
			return "the command line is too long";
	}
	if (!put(buf, len, cap, ""))
		return "the command line is too long";
	return put_env(s, json_object_get(req, "env"), cwd, buf, len, cap);
}

static void run_call(struct session *s, struct client *k, json_t *req)
{
	static char buf[sizeof(struct session_msg) + SESSION_SPAWN_MAX];
	struct session_msg m = { .type = SESSION_SPAWN };
	size_t len = 0;
	const char *why;

	if (k->running)
		return refuse(s, k, "a call runs on this connection already");
	if (k->line.nfds != 3)
		return refuse(s, k,
			      "\"run\" comes with descriptors 0, 1 and 2 "
			      "(SCM_RIGHTS)");
	why = build(s, req, buf, &len);
	if (!why && json_object_get(req, "ask") &&
	    !json_is_boolean(json_object_get(req, "ask")))
		why = "\"ask\" is true or false";
	if (!why)
		why = own_terminal(k, req);
	if (why)
		return refuse(s, k, why);
	m.call = ++s->calls;
	m.len = (uint32_t)(len - sizeof(m));
	memcpy(buf, &m, sizeof(m));
	if (session_send(s->chan, buf, len, k->line.fds, 3))
		return refuse(s, k, "the session's sandbox is gone");
	session_line_close_fds(&k->line);
	pthread_mutex_lock(&s->mu);
	k->call = m.call;
	k->running = true;
	k->pid = 0;
	k->asks = json_is_true(json_object_get(req, "ask"));
	pthread_mutex_unlock(&s->mu);
	s->running++;
	touch(s);
}

static json_t *info(struct session *s)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:I, s:I, s:I}", "id", s->id,
			 "socket", s->sockpath, "mode",
			 cli_mode_name(s->c->mode), "pid", (int)getpid(),
			 "calls", (json_int_t)s->calls, "running",
			 (json_int_t)s->running, "idle", (json_int_t)s->idle);
}

static void signal_call(struct session *s, struct client *k, json_t *req)
{
	json_t *v = json_object_get(req, "signal");
	struct session_msg m = { .type = SESSION_SIGNAL, .call = k->call };

	if (!json_is_integer(v) || !forwardable(json_integer_value(v)))
		return refuse(s, k,
			      "\"signal\" is the number of INT, TERM, "
			      "HUP, QUIT, KILL, USR1, USR2, WINCH, CONT, "
			      "STOP or TSTP");
	if (!k->running)
		return; /* ended meanwhile: its status is on its way */
	m.value = (int32_t)json_integer_value(v);
	send(s->chan, &m, sizeof(m), MSG_NOSIGNAL);
}

/* One request of client @k (its line in k->line). */
static void request(struct session *s, struct client *k)
{
	json_error_t je;
	json_t *req = json_loadb(k->line.buf, k->line.used - 1,
				 JSON_REJECT_DUPLICATES, &je);
	const char *op = json_string_value(json_object_get(req, "op"));
	bool run = op && strcmp(op, "run") == 0;

	if (!op) {
		refuse(s, k, "not a request: one JSON object with \"op\"");
	} else if (run) {
		run_call(s, k, req);
	} else if (strcmp(op, "signal") == 0) {
		signal_call(s, k, req);
	} else if (strcmp(op, "answer") == 0) {
		const char *why = session_ask_answer(s, k, req);

		if (why)
			refuse(s, k, why);
	} else if (strcmp(op, "info") == 0) {
		session_reply(k, info(s));
	} else if (strcmp(op, "stop") == 0) {
		s->stopper = (int)(k - s->clients);
	} else {
		refuse(s, k, "\"op\" is run, answer, signal, info or stop");
	}
	json_decref(req); /* @op with it */
	if (k->fd >= 0 && !run)
		session_line_close_fds(&k->line);
}

void session_client_input(struct session *s, struct client *k)
{
	int ret;

	while (k->fd >= 0 && (ret = session_read_line(k->fd, &k->line)) != 0) {
		if (ret == -EMSGSIZE)
			return refuse(s, k, "the request is too long");
		if (ret < 0 || k->line.nfds < 0) {
			/* the caller is gone: its call hangs up, as on a
			 * terminal's */
			struct session_msg m = { SESSION_SIGNAL, k->call,
						 SIGHUP, 0 };

			if (k->running && ret < 0)
				send(s->chan, &m, sizeof(m), MSG_NOSIGNAL);
			if (ret >= 0)
				return refuse(s, k, "too many descriptors");
			return drop(s, k);
		}
		request(s, k);
		if (k->fd < 0)
			return; /* refused and dropped: its buffer too */
		session_line_next(&k->line);
	}
}

/* A connection: the session's uid only. */
static void accept_client(struct session *s)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd =
		accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct client *k = NULL;

	if (fd < 0)
		return;
	for (size_t i = 0; i < SESSION_CLIENTS_MAX && !k; i++)
		if (s->clients[i].fd < 0 && !s->clients[i].running)
			k = &s->clients[i];
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    cred.uid != geteuid() || !k) {
		/* nothing is read from another user: one line, closed */
		static const char no[] =
			"{\"exit\":125,\"error\":\"refused: not the "
			"session's user, or too many clients\"}\n";

		send(fd, no, sizeof(no) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(fd);
		return;
	}
	pthread_mutex_lock(&s->mu);
	*k = (struct client){ .fd = fd };
	pthread_mutex_unlock(&s->mu);
	touch(s); /* a connection is use: --idle counts from it */
	k->line.buf = malloc(SESSION_LINE_MAX + 1);
	if (!k->line.buf) {
		close(fd);
		k->fd = -1;
	}
}

static struct client *client_of(struct session *s, uint32_t call)
{
	for (size_t i = 0; i < SESSION_CLIENTS_MAX; i++)
		if (s->clients[i].running && s->clients[i].call == call)
			return &s->clients[i];
	return NULL;
}

/* A message from pid 1: untrusted (session_serve.h). */
bool session_pid1_input(struct session *s)
{
	struct session_msg m;
	ssize_t n = recv(s->chan, &m, sizeof(m), MSG_DONTWAIT | MSG_TRUNC);
	struct client *k;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if (n != (ssize_t)sizeof(m))
		return n != 0;
	k = client_of(s, m.call);
	if (!k)
		return true;
	if (m.type == SESSION_STARTED && m.value > 0 &&
	    m.value <= RECORD_PID_MAX && !k->pid) {
		pthread_mutex_lock(&s->mu);
		k->pid = m.value;
		session_ask_started(s);
		pthread_mutex_unlock(&s->mu);
		session_reply(k,
			      json_pack("{s:I}", "call", (json_int_t)k->call));
	} else if (m.type == SESSION_EXITED) {
		json_t *end = json_pack(
			"{s:i}", "exit",
			m.value >= 0 && m.value <= 255 ? m.value : EXIT_CORDON);
		char *summary;

		/* its records first, and the proxy's lines, then the
		 * summary of its denials, as a plain run ends */
		supervise_drain(&s->sup);
		session_note_flush(s);
		summary = session_note_take(s, k);
		if (end && summary)
			json_object_set_new(end, "summary",
					    json_string(summary));
		free(summary);
		pthread_mutex_lock(&s->mu);
		k->running = false;
		pthread_mutex_unlock(&s->mu);
		s->running--;
		touch(s);
		session_reply(k, end);
		drop(s, k);
	}
	return true;
}

static bool idle_over(struct session *s)
{
	struct timespec now;

	if (!s->idle || s->running)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - s->last.tv_sec >= s->idle;
}

void session_serve(struct session *s)
{
	struct pollfd fds[5 + SESSION_CLIENTS_MAX];
	struct client *who[5 + SESSION_CLIENTS_MAX];

	for (size_t i = 0; i < SESSION_CLIENTS_MAX; i++)
		s->clients[i].fd = -1;
	s->stopper = -1;
	touch(s);
	while (s->stopper < 0 && !idle_over(s)) {
		nfds_t n = 0;

		fds[n++] = (struct pollfd){ s->pidfd, POLLIN, 0 };
		fds[n++] = (struct pollfd){ s->chan, POLLIN, 0 };
		fds[n++] = (struct pollfd){ s->listen_fd, POLLIN, 0 };
		fds[n++] = (struct pollfd){ s->sup.sock, POLLIN, 0 };
		fds[n++] = (struct pollfd){ s->wake, POLLIN, 0 };
		for (size_t i = 0; i < SESSION_CLIENTS_MAX; i++)
			if (s->clients[i].fd >= 0) {
				who[n] = &s->clients[i];
				fds[n++] = (struct pollfd){ s->clients[i].fd,
							    POLLIN, 0 };
			}
		if (poll(fds, n, s->idle ? 1000 : -1) < 0 && errno != EINTR)
			break;
		if (fds[0].revents)
			break; /* pid 1 is gone: so is the session */
		if ((fds[1].revents & (POLLIN | POLLHUP)) &&
		    !session_pid1_input(s))
			break;
		if (fds[3].revents & POLLIN)
			supervise_drain(&s->sup);
		if (fds[2].revents & POLLIN)
			accept_client(s);
		if (fds[4].revents & POLLIN) {
			session_note_flush(s);
			session_ask_flush(s);
		}
		for (nfds_t i = 5; i < n; i++)
			if (fds[i].revents)
				session_client_input(s, who[i]);
	}
}

void session_end(struct session *s)
{
	struct client *stopper =
		s->stopper >= 0 ? &s->clients[s->stopper] : NULL;

	if (s->listen_fd >= 0) {
		unlink(s->sockpath);
		session_trust_forget(s->id);
		close(s->listen_fd);
		s->listen_fd = -1;
	}
	if (s->pid1 > 0) {
		/* the namespace's init: every process in it goes too, and
		 * waitpid() returns once they have */
		kill(s->pid1, SIGKILL);
		while (waitpid(s->pid1, NULL, 0) < 0 && errno == EINTR)
			;
		s->pid1 = 0;
	}
	session_ask_stop(s); /* before the proxy's threads are joined */
	if (s->sup.sock >= 0)
		supervise_drain(&s->sup);
	launch_stop(&s->l);
	supervise_note_losses(&s->sup); /* the limits are the session's */
	supervise_report_check(&s->sup);
	/* what the calls planted for git outside, moved aside once nothing
	 * inside runs (gitguard.h): records of the launcher's own */
	if (s->c->policy.nroots)
		supervise_sweep(&s->sup, &s->c->policy);
	for (size_t i = 0; i < SESSION_CLIENTS_MAX; i++) {
		struct client *k = &s->clients[i];

		if (k == stopper || (k->fd < 0 && !k->running))
			continue;
		pthread_mutex_lock(&s->mu);
		k->running = false;
		pthread_mutex_unlock(&s->mu);
		refuse(s, k, "the session ended");
	}
	supervise_close(&s->sup);
	modes_cleanup();
	if (stopper) {
		session_reply(stopper, json_pack("{s:b}", "stopped", 1));
		drop(s, stopper);
	}
}
