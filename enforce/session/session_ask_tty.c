/*
 * session_ask_tty.c - `cordon run --session` answering --ask's
 * question ({"ask": HOST, "id": N}, session_ask.c): the user is asked
 * on the client's own controlling terminal, as a plain run's supervisor
 * asks (ask.c, the same words and wait), never on the call's pty.
 * While the question waits the relay is paused (the client's loop is
 * here): no key goes to the call, and a raw terminal is put in line
 * mode, echoed, then back.  Without a terminal, or in the background of
 * its shell, the answer is no at once.  The host is the supervisor's
 * word on what the command asked for: shown with anything unprintable
 * replaced.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "enforce/run/run.h"
#include "enforce/session/session_pty.h"

static void say(int tty, const char *s)
{
	ssize_t w;

	do
		w = write(tty, s, strlen(s));
	while (w < 0 && errno == EINTR);
}

static const char *ask_on(int tty, const char *spec)
{
	struct termios saved, line;
	bool modes = tcgetattr(tty, &saved) == 0;
	const char *answer = "no";
	char host[300], q[400], buf[64];
	size_t i;

	for (i = 0; spec[i] && i + 1 < sizeof(host); i++)
		host[i] = spec[i] > ' ' && spec[i] < 0x7f ? spec[i] : '?';
	host[i] = '\0';
	if (modes) {
		line = saved;
		line.c_lflag |= ICANON | ECHO | ECHONL;
		line.c_oflag |= OPOST | ONLCR;
		line.c_iflag |= ICRNL; /* raw: Enter is a CR */
		tcsetattr(tty, TCSADRAIN, &line);
	}
	tcflush(tty, TCIFLUSH); /* nothing typed before the question */
	snprintf(q, sizeof(q), "\ncordon: allow %s for this run? [y/N/always] ",
		 host);
	say(tty, q);
	if (!ask_read_line(tty, buf, sizeof(buf)))
		say(tty, "\ncordon: no answer: not allowed\n");
	else if (buf[0] == 'y' || buf[0] == 'Y')
		answer = "yes";
	else if (strncmp(buf, "always", 6) == 0 || strcmp(buf, "a\n") == 0)
		answer = "always";
	if (modes)
		tcsetattr(tty, TCSADRAIN, &saved);
	return answer;
}

const char *session_tty_ask(const char *spec)
{
	const char *answer;
	int tty;

	if (!isatty(0) || tcgetpgrp(0) != getpgrp())
		return "no"; /* no one to ask, or not now */
	tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (tty < 0)
		return "no";
	answer = ask_on(tty, spec);
	close(tty);
	return answer;
}
