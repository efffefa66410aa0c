/*
 * ask.c - --ask: a host the policy refuses is asked about on the
 * controlling terminal, by the supervisor, outside the command's reach
 * (run.h).
 *
 * The command runs in a process group of its own, the terminal's
 * foreground (spawn.c, policy.ask_fg).  To ask, the supervisor takes the
 * foreground for its own group: while the question waits, a read of the
 * terminal the command starts stops it (SIGTTIN), so the answer typed is
 * the supervisor's (a read the command had waiting already, which the
 * kernel let start in the foreground, may still take it: then cordon
 * has no answer, which is no); the command can inject no input (TIOCSTI and
 * TIOCLINUX are refused by the seccomp filter) and cannot read what the
 * terminal shows.  The terminal's modes are the command's own when it
 * asks (raw, for an editor): a line, echoed, is read in canonical mode,
 * then the modes and the foreground go back, and the command's group is
 * continued.  No answer in ASK_SECONDS is no.
 *
 * "always" writes the host into the profile --ask=PROFILE named, through
 * its directory held from before the run (learn_out.c, the deputy that
 * writes learned profiles): merged into its allow_hosts.  Answers are
 * kept for the run: a host is asked once.  One question at a time (the
 * proxy's asker thread is the only caller).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "enforce/learn/learn.h"
#include "enforce/run/run.h"
#include "shim/core/strbuf.h"

#define ASK_SECONDS 30
#define ASK_KEPT    64

static int tty = -1;
static bool has_profile;
static struct {
	char spec[300];
	int answer;
} kept[ASK_KEPT];
static size_t nkept;

int ask_start(const char *profile, char *err, size_t errlen)
{
	if (!isatty(STDIN_FILENO)) {
		snprintf(err, errlen,
			 "--ask needs a terminal: stdin is not one, and no "
			 "question is asked where no one can answer");
		return -1;
	}
	tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (tty < 0) {
		snprintf(err, errlen, "--ask: cannot open the terminal: %s",
			 strerror(errno));
		return -1;
	}
	ask_hold(profile);
	return 0;
}

void ask_hold(const char *profile)
{
	if (profile && profile[0]) {
		learn_out_hold(profile);
		has_profile = true;
	}
}

bool ask_has_profile(void)
{
	return has_profile;
}

int ask_save(const char *spec)
{
	json_t *prof = learn_out_read(), *hosts;
	int ret = -1;

	if (!prof)
		prof = json_object();
	hosts = prof ? json_object_get(prof, "allow_hosts") : NULL;
	if (prof && !json_is_array(hosts)) {
		hosts = json_array();
		json_object_set_new(prof, "allow_hosts", hosts);
	}
	if (hosts) {
		size_t i;
		json_t *v;
		bool have = false;

		json_array_foreach(hosts, i, v)
		{
			have = have ||
			       (json_is_string(v) &&
				strcmp(json_string_value(v), spec) == 0);
		}
		if (!have)
			json_array_append_new(hosts, json_string(spec));
		ret = learn_out_write(prof);
	}
	json_decref(prof);
	return ret;
}

static void say(const char *s)
{
	ssize_t w;

	do
		w = write(tty, s, strlen(s));
	while (w < 0 && errno == EINTR);
}

bool ask_read_line(int fd, char *buf, size_t cap)
{
	struct timespec end, now;
	size_t n = 0;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ASK_SECONDS;
	while (n + 1 < cap) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long ms;
		ssize_t r;

		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (end.tv_sec - now.tv_sec) * 1000 +
		     (end.tv_nsec - now.tv_nsec) / 1000000;
		if (ms <= 0 || poll(&pfd, 1, (int)ms) <= 0)
			return false;
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		n += (size_t)r;
		buf[n] = '\0';
		if (memchr(buf, '\n', n))
			return true;
	}
	return true;
}

static int ask_tty(const char *spec)
{
	struct termios saved, line;
	bool modes = tcgetattr(tty, &saved) == 0;
	pid_t fg = tcgetpgrp(tty);
	char buf[64], q[400];
	int answer = ASK_NO;

	if (fg > 0 && fg != getpgrp())
		tcsetpgrp(tty, getpgrp()); /* SIGTTOU: blocked here */
	if (modes) {
		line = saved;
		line.c_lflag |= ICANON | ECHO | ECHONL;
		tcsetattr(tty, TCSANOW, &line);
	}
	tcflush(tty, TCIFLUSH); /* nothing typed before the question */
	snprintf(q, sizeof(q), "\ncordon: allow %s for this run? [y/N%s] ",
		 spec, has_profile ? "/always" : "");
	say(q);
	if (!ask_read_line(tty, buf, sizeof(buf))) {
		say("\ncordon: no answer: not allowed\n");
	} else if (buf[0] == 'y' || buf[0] == 'Y') {
		answer = ASK_YES;
	} else if (has_profile && (strncmp(buf, "always", 6) == 0 ||
				   strcmp(buf, "a\n") == 0)) {
		answer = ask_save(spec) == 0 ? ASK_ALWAYS : ASK_YES;
		if (answer == ASK_YES)
			say("cordon: cannot write the profile: allowed for "
			    "this run only\n");
	}
	if (modes)
		tcsetattr(tty, TCSANOW, &saved);
	if (fg > 0 && fg != getpgrp()) {
		tcsetpgrp(tty, fg);
		kill(-fg, SIGCONT); /* a read that stopped it meanwhile */
	}
	return answer;
}

int ask_host(const char *spec)
{
	sigset_t ttou, old;
	int answer;

	if (tty < 0)
		return ASK_NO;
	for (size_t i = 0; i < nkept; i++)
		if (strcmp(kept[i].spec, spec) == 0)
			return kept[i].answer;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	pthread_sigmask(SIG_BLOCK, &ttou, &old);
	answer = ask_tty(spec);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (nkept < ASK_KEPT) {
		snprintf(kept[nkept].spec, sizeof(kept[0].spec), "%s", spec);
		kept[nkept++].answer = answer;
	}
	return answer;
}

void ask_stop(void)
{
	if (tty >= 0) {
		/* the terminal back to the group the shell started */
		sigset_t ttou, old;

		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		pthread_sigmask(SIG_BLOCK, &ttou, &old);
		if (tcgetpgrp(tty) != getpgrp())
			tcsetpgrp(tty, getpgrp());
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		close(tty);
		tty = -1;
	}
}
