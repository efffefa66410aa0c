/*
 * session_pty.c - the supervisor's side of a call's terminal: no
 * terminal of the caller's ever enters a session.
 *
 * A call outlives nothing of its own, but what it started in the
 * background does (the session's state).  Given the caller's terminal
 * as its fd 0, such a leftover kept reading it after the call returned:
 * what the user typed next at the prompt (a password) went to it.  So
 * a "run" whose descriptors include a terminal (isatty: a pty's slave
 * or master, a console) gets a pseudo-terminal of the session's own
 * instead, in the place of each of them, and the client (`cordon run`,
 * session_tty.c) relays between it and the caller's terminal while the
 * call runs.  The client closes the master when the call ends: every
 * leftover that still holds the slave is hung up (its reads end, its
 * writes fail; the pty's foreground gets SIGHUP), and nothing inside
 * holds the caller's terminal at any time.  What the caller passes that
 * is no terminal (pipes, files, sockets) goes in as before, the same
 * open file: a leftover keeps it as long as it lives, and only that
 * (doc/manual/session.md).
 *
 * Why the supervisor makes it (from the host's /dev/ptmx), not pid 1
 * (from the sandbox's own devpts instance):
 *  - the master never exists inside, not even for the moment between
 *    its opening and its passing: nothing a call leaves behind can
 *    reach it, whatever it does to pid 1;
 *  - no descriptor crosses from inside out: SCM_RIGHTS runs from the
 *    supervisor to pid 1 and to its own client only, and the
 *    supervisor never has to check a descriptor pid 1 chose;
 *  - the slave has no name inside: the sandbox's /dev/pts is another
 *    instance, so a leftover of one call cannot open the next call's
 *    terminal by name (the sandbox's ptys are mode 0620 of the
 *    session's own uid: by name, any call could read another's keys).
 *    ttyname(3) in the call finds no name for it, as for the caller's
 *    terminal before; isatty, /dev/tty and job control work.
 * The master goes to the client that asked (its uid is the session's,
 * SO_PEERCRED) with the {"tty": true} line, and the supervisor keeps
 * no copy: it never reads what the call writes.  A client that passes
 * a terminal without asking for a pty ("tty": true) is refused
 * (session_serve.c): a protocol client without a relay passes pipes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "enforce/session/session_pty.h"

bool session_pty_has_terminal(const int fds[3])
{
	for (int i = 0; i < 3; i++)
		if (isatty(fds[i]))
			return true;
	return false;
}

/* The slave of @master, opened through the master itself (no name is
 * looked up: the host's /dev/pts could hold anything by then). */
static int open_slave(int master)
{
	if (unlockpt(master) < 0)
		return -errno;
	int fd = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int session_pty_open(int fds[3])
{
	struct termios tio;
	struct winsize ws;
	int term = -1, master, slave, dup[3] = { -1, -1, -1 }, ret = 0;
	bool has_tio, has_ws;

	for (int i = 0; i < 3 && term < 0; i++)
		if (isatty(fds[i]))
			term = i;
	if (term < 0)
		return -ENOTTY;
	/* as the call would have found the caller's terminal, bare */
	has_tio = tcgetattr(fds[term], &tio) == 0;
	has_ws = ioctl(fds[term], TIOCGWINSZ, &ws) == 0;
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return -errno;
	slave = open_slave(master);
	if (slave < 0) {
		close(master);
		return slave;
	}
	if (has_tio)
		tcsetattr(slave, TCSANOW, &tio);
	if (has_ws)
		ioctl(master, TIOCSWINSZ, &ws);
	for (int i = 0; i < 3 && !ret; i++)
		if (isatty(fds[i]) &&
		    (dup[i] = fcntl(slave, F_DUPFD_CLOEXEC, 3)) < 0)
			ret = -errno;
	close(slave);
	for (int i = 0; i < 3; i++) {
		if (dup[i] < 0)
			continue;
		if (ret) {
			close(dup[i]);
			continue;
		}
		close(fds[i]);
		fds[i] = dup[i];
	}
	if (ret) {
		close(master);
		return ret;
	}
	return master;
}
