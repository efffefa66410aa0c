/*
 * session_client.c - the caller's side of a session: `cordon run
 * --session ID`, `cordon session stop ID`, `cordon session list`.
 *
 * `run` sends one request with its descriptors 0, 1 and 2, forwards
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT (and SIGTSTP at a terminal) as
 * requests, and leaves with the call's status.  At a terminal it asks
 * for a pty of the session's own and relays it (session_tty.c): the
 * caller's terminal never enters the session.  A session that is not
 * there (never started, stopped, its supervisor dead) refuses the
 * connection at once: 125, never a wait.  --ask's questions about a
 * host are asked on the client's own terminal (session_ask_tty.c).  What the
 * supervisor answers is read bounded (a line at most SESSION_LINE_MAX).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "enforce/base/base.h"
#include "enforce/session/session.h"
#include "enforce/session/session_proto.h"
#include "enforce/session/session_pty.h"
#include "enforce/session/session_trust.h"
#include "shim/core/env.h"

extern char **environ;

static int sig_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	unsigned char b = (unsigned char)sig;
	int saved = errno;

	if (write(sig_pipe[1], &b, 1) < 0)
		(void)0; /* full: a signal is pending already */
	errno = saved;
}

/* Connect to session @id, its supervisor's identity checked
 * (session_trust.c); -errno when there is none. */
static int connect_to(const char *id)
{
	if (!session_id_valid(id))
		return -EINVAL;
	return session_trust_connect(id);
}

static int no_session(const char *id, int err)
{
	char safe[64];

	snprintf(safe, sizeof(safe), "%s", id);
	say_oneline(safe);
	if (err == -EKEYREJECTED)
		return EXIT_CORDON; /* said (session_trust.c) */
	if (err == -EINVAL)
		say_error("session '%s': not a session id", safe);
	else if (err == -ENOENT || err == -ECONNREFUSED)
		say_error("session '%s': no such session (stopped, ended or "
			  "never started)",
			  safe);
	else
		say_error("session '%s': %s", safe, strerror(-err));
	return EXIT_CORDON;
}

static int send_json(int fd, json_t *doc, const int *fds, int nfds)
{
	char *s = json_dumps(doc, JSON_COMPACT);
	size_t len = s ? strlen(s) : 0;
	int ret;

	json_decref(doc);
	if (!s)
		return -ENOMEM;
	s[len] = '\n';
	ret = session_send(fd, s, len + 1, fds, nfds);
	free(s);
	return ret;
}

/* The next line from the supervisor, parsed; NULL at the end. */
static json_t *next_reply(int fd, struct session_line *l)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	json_t *doc;
	int ret;

	session_line_next(l);
	while ((ret = session_read_line(fd, l)) == 0)
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return NULL;
	if (ret < 0)
		return NULL;
	session_line_close_fds(l); /* none expected from it */
	doc = json_loadb(l->buf, l->used - 1, 0, NULL);
	return json_is_object(doc) ? doc : (json_decref(doc), NULL);
}

/* The request's "env": -e NAME (and PREFIX*) from this environment,
 * -e NAME=VALUE as given. */
static json_t *call_env(const struct policy *p)
{
	json_t *env = json_object();

	for (size_t i = 0; environ && environ[i]; i++) {
		size_t n = env_name_len(environ[i]);
		char name[256];

		if (!environ[i][n] || n >= sizeof(name) ||
		    !env_name_listed(p, environ[i]))
			continue;
		memcpy(name, environ[i], n);
		name[n] = '\0';
		json_object_set_new(env, name, json_string(environ[i] + n + 1));
	}
	for (size_t i = 0; i < p->nenv_sets; i++) {
		char *eq = strchr(p->env_sets[i], '=');

		*eq = '\0';
		json_object_set_new(env, p->env_sets[i], json_string(eq + 1));
		*eq = '=';
	}
	return env;
}

/* The request's "env", with the caller's TERM for a call at a terminal
 * (its pty stands for the caller's terminal), unless -e set one. */
static json_t *tty_env(const struct cli *c, bool tty)
{
	json_t *env = call_env(&c->policy);
	const char *term = getenv("TERM");

	if (tty && term && !json_object_get(env, "TERM"))
		json_object_set_new(env, "TERM", json_string(term));
	return env;
}

static json_t *run_request(const struct cli *c, bool tty)
{
	char cwd[PATH_BUF], abs[2 * PATH_BUF];
	json_t *argv = json_array();

	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	if (c->cwd && c->cwd[0] == '/')
		snprintf(abs, sizeof(abs), "%s", c->cwd);
	else if (c->cwd)
		snprintf(abs, sizeof(abs), "%s/%s", cwd, c->cwd);
	else
		snprintf(abs, sizeof(abs), "%s", cwd);
	for (size_t i = 0; c->argv[i]; i++)
		json_array_append_new(argv, json_string(c->argv[i]));
	/* --ask's questions only where someone can answer them */
	return json_pack("{s:s, s:o, s:s, s:o, s:b, s:b}", "op", "run", "argv",
			 argv, "cwd", abs, "env", tty_env(c, tty), "tty", tty,
			 "ask", isatty(0));
}

/* @tty: SIGTSTP forwarded too, SIGWINCH and SIGCONT the relay's. */
static void forward_signals(bool tty)
{
	static const int sigs[] = { SIGINT,  SIGTERM,  SIGHUP, SIGQUIT,
				    SIGTSTP, SIGWINCH, SIGCONT };
	struct sigaction sa = { .sa_handler = on_signal };

	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < (tty ? 7 : 4); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* @n bytes of @buf to the caller's terminal in raw mode (no OPOST
 * while it relays the call's pty): each newline a "\r\n". */
static void tty_text(const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n')
			fputc('\r', stderr);
		fputc(buf[i], stderr);
	}
}

/* What the session says for the call (a denial line of the proxy, the
 * summary at its end), on stderr as a plain run says it: escaped by
 * the session already; a control byte from a session that is not
 * cordon's is not passed to the terminal all the same.  @line: one
 * line, its newline added. */
static void say_text(const json_t *v, bool line)
{
	const char *t = json_string_value(v);
	char buf[SESSION_LINE_MAX + 2];
	size_t n = 0;

	if (!t)
		return;
	for (; *t && n < SESSION_LINE_MAX; t++)
		if (((unsigned char)*t >= 0x20 && *t != 0x7f) || *t == '\n' ||
		    *t == '\t')
			buf[n++] = *t;
	if (line || (n && buf[n - 1] != '\n'))
		buf[n++] = '\n';
	if (session_tty_is_raw() && isatty(2))
		tty_text(buf, n);
	else
		fwrite(buf, 1, n, stderr);
	fflush(stderr);
}

/* The master of the call's pty, with {"tty": true}, is the relay's. */
static void take_tty(struct session_tty *t, struct session_line *l, json_t *doc)
{
	if (json_is_true(json_object_get(doc, "tty")) && l->nfds == 1 &&
	    session_tty_take(t, l->fds[0]) == 0)
		l->nfds = 0;
	else if (json_object_get(doc, "tty"))
		say_error("the session sent no pseudo-terminal");
}

/* {"ask": HOST, "id": N} (--ask): the user's answer, sent back. */
static void answer_ask(int fd, const json_t *doc)
{
	const char *spec = json_string_value(json_object_get(doc, "ask"));
	json_t *id = json_object_get(doc, "id");

	if (!spec || !json_is_integer(id))
		return;
	send_json(fd,
		  json_pack("{s:s, s:I, s:s}", "op", "answer", "id",
			    json_integer_value(id), "allow",
			    session_tty_ask(spec)),
		  NULL, 0);
}

/* Wait for the call's end, forwarding signals, relaying its terminal
 * (@t); its status. */
static int wait_call(int fd, struct session_line *l, struct session_tty *t)
{
	struct pollfd p[4] = { { .fd = fd, .events = POLLIN },
			       { .fd = sig_pipe[0], .events = POLLIN } };
	int ret;

	for (;;) {
		unsigned char sig;
		json_t *doc, *v;
		size_t n;

		ret = session_read_line(fd, l);
		if (ret < 0)
			break;
		if (ret > 0) {
			doc = json_loadb(l->buf, l->used - 1, 0, NULL);
			take_tty(t, l, doc);
			session_line_close_fds(l);
			session_line_next(l);
			v = json_object_get(doc, "exit");
			say_text(json_object_get(doc, "line"), true);
			answer_ask(fd, doc);
			if (json_is_integer(v)) {
				const char *e = json_string_value(
					json_object_get(doc, "error"));
				int st = (int)json_integer_value(v) & 0xff;

				session_tty_end(t); /* its output first */
				if (e)
					say_error("%s", e);
				say_text(json_object_get(doc, "summary"),
					 false);
				json_decref(doc);
				return st;
			}
			json_decref(doc);
			continue;
		}
		n = session_tty_pollfds(t, p + 2);
		if (poll(p, 2 + n, -1) < 0 && errno != EINTR)
			break;
		session_tty_events(t, p + 2, n);
		while (sig_pipe[0] >= 0 && read(sig_pipe[0], &sig, 1) == 1)
			if (!session_tty_signal(t, sig))
				send_json(fd,
					  json_pack("{s:s, s:i}", "op",
						    "signal", "signal", sig),
					  NULL, 0);
	}
	session_tty_end(t);
	say_error("the session ended during the call");
	return EXIT_CORDON;
}

int session_run(struct cli *c)
{
	static char buf[SESSION_LINE_MAX + 1];
	struct session_line l = { .buf = buf };
	static const int std[3] = { 0, 1, 2 };
	struct session_tty t;
	bool tty = session_tty_wanted();
	json_t *req = run_request(c, tty);
	int fd = connect_to(c->session), ret;

	if (fd < 0) {
		json_decref(req);
		return no_session(c->session, fd);
	}
	if (!req) {
		say_error("cannot make the request: %s", strerror(errno));
		return EXIT_CORDON;
	}
	session_tty_init(&t);
	forward_signals(tty);
	/* refused at once (another user): the answer is there to read */
	ret = send_json(fd, req, std, 3);
	if (ret && ret != -EPIPE && ret != -ECONNRESET) {
		say_error("session '%s': %s", c->session, strerror(-ret));
		return EXIT_CORDON;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return wait_call(fd, &l, &t);
}

/* Ask session @id for @op; its answer, or NULL (*@err: why). */
static json_t *ask(const char *id, const char *op, int *err)
{
	static char buf[SESSION_LINE_MAX + 1];
	struct session_line l = { .buf = buf };
	int fd = connect_to(id);
	json_t *doc;

	*err = fd < 0 ? fd : 0;
	if (fd < 0)
		return NULL;
	*err = send_json(fd, json_pack("{s:s}", "op", op), NULL, 0);
	doc = *err ? NULL : next_reply(fd, &l);
	if (!doc && !*err)
		*err = -EPIPE;
	close(fd);
	return doc;
}

int session_stop(struct cli *c)
{
	int err;
	json_t *doc = ask(c->session, "stop", &err);
	bool ok = json_is_true(json_object_get(doc, "stopped"));

	json_decref(doc);
	if (!doc)
		return no_session(c->session, err);
	return ok ? 0 : EXIT_CORDON;
}

int session_list(struct cli *c)
{
	char dir[PATH_BUF];
	json_t *all = json_array();
	struct dirent *e;
	DIR *d;
	int ret = session_dir(dir);

	d = ret ? NULL : opendir(dir);
	while (d && (e = readdir(d))) {
		char id[SESSION_ID_LEN + 8];
		size_t n = strlen(e->d_name);
		json_t *doc;
		int err;

		if (n != SESSION_ID_LEN + 5 ||
		    strcmp(e->d_name + SESSION_ID_LEN, ".sock") != 0)
			continue;
		memcpy(id, e->d_name, SESSION_ID_LEN);
		id[SESSION_ID_LEN] = '\0';
		doc = ask(id, "info", &err);
		if (doc)
			json_array_append_new(all, doc);
	}
	if (d)
		closedir(d);
	if (c->json) {
		char *s = json_dumps(all, JSON_COMPACT);

		puts(s ? s : "[]");
		free(s);
	} else {
		size_t i;
		json_t *v;

		json_array_foreach(all, i, v)
			printf("%s %s calls=%lld running=%lld\n",
			       json_string_value(json_object_get(v, "id")),
			       json_string_value(json_object_get(v, "mode")),
			       (long long)json_integer_value(
				       json_object_get(v, "calls")),
			       (long long)json_integer_value(
				       json_object_get(v, "running")));
	}
	json_decref(all);
	return 0;
}
