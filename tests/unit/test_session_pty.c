/* Unit tests of a call's own terminal (enforce/session/session_pty.c,
 * enforce/session/session_tty.c): every terminal among the call's descriptors
 * is replaced by the slave of a new pty, nothing else is touched, and
 * the master is checked before the relay takes it. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "enforce/session/session_pty.h"

/* A terminal of the test's own, 21x77, its slave in *@slave. */
static int caller_terminal(int *slave)
{
	struct winsize ws = { .ws_row = 21, .ws_col = 77 };
	int m = posix_openpt(O_RDWR | O_NOCTTY);

	cr_assert_geq(m, 0);
	cr_assert_eq(unlockpt(m), 0);
	*slave = open(ptsname(m), O_RDWR | O_NOCTTY);
	cr_assert_geq(*slave, 0);
	cr_assert_eq(ioctl(m, TIOCSWINSZ, &ws), 0);
	return m;
}

static dev_t rdev(int fd)
{
	struct stat st;

	cr_assert_eq(fstat(fd, &st), 0);
	return st.st_rdev;
}

Test(session_pty, terminals_replaced_pipes_kept)
{
	int caller_slave, caller = caller_terminal(&caller_slave);
	int p[2], fds[3], master;
	struct winsize ws;
	struct stat pst, st;
	char buf[8];

	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(fstat(p[0], &pst), 0);
	fds[0] = p[0];
	fds[1] = dup(caller_slave);
	fds[2] = dup(caller_slave);
	cr_assert(session_pty_has_terminal(fds));
	master = session_pty_open(fds);
	cr_assert_geq(master, 0);
	/* the pipe is the same open file; the terminals are the new pty's */
	cr_assert_eq(fds[0], p[0]);
	cr_assert_eq(fstat(fds[0], &st), 0);
	cr_assert_eq(st.st_ino, pst.st_ino);
	cr_assert(isatty(fds[1]) && isatty(fds[2]));
	cr_assert_neq(rdev(fds[1]), rdev(caller_slave));
	cr_assert_eq(rdev(fds[1]), rdev(fds[2]));
	cr_assert(fcntl(fds[1], F_GETFD) & FD_CLOEXEC);
	cr_assert(fcntl(master, F_GETFD) & FD_CLOEXEC);
	/* the caller's size, and what the call writes reaches the master */
	cr_assert_eq(ioctl(fds[1], TIOCGWINSZ, &ws), 0);
	cr_assert_eq(ws.ws_row, 21);
	cr_assert_eq(ws.ws_col, 77);
	cr_assert_eq(write(fds[1], "hi", 2), 2);
	cr_assert_eq(read(master, buf, sizeof(buf)), 2);
	/* the master closed: the slave is hung up */
	close(master);
	cr_assert_leq(read(fds[1], buf, sizeof(buf)), 0);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	close(p[1]);
	close(caller_slave);
	close(caller);
}

Test(session_pty, no_terminal_no_pty)
{
	int fds[3] = { open("/dev/null", O_RDWR), open("/dev/null", O_RDWR),
		       open("/dev/null", O_RDWR) };
	int kept[3] = { fds[0], fds[1], fds[2] };

	cr_assert(!session_pty_has_terminal(fds));
	cr_assert_lt(session_pty_open(fds), 0);
	cr_assert_arr_eq(fds, kept, sizeof(fds));
	for (int i = 0; i < 3; i++)
		close(fds[i]);
}

/* The relay takes only a pty's master: a slave, a pipe are refused
 * (and closed). */
Test(session_pty, relay_takes_only_a_master)
{
	struct session_tty t;
	int slave, master = caller_terminal(&slave), p[2];

	session_tty_init(&t);
	cr_assert_eq(pipe(p), 0);
	cr_assert_lt(session_tty_take(&t, p[0]), 0);
	cr_assert_lt(fcntl(p[0], F_GETFD), 0);
	cr_assert_lt(session_tty_take(&t, dup(slave)), 0);
	cr_assert_eq(session_tty_take(&t, master), 0);
	cr_assert_eq(t.master, master);
	session_tty_end(&t);
	cr_assert_lt(fcntl(master, F_GETFD), 0);
	close(slave);
	close(p[1]);
}
