/*
 * session_tty.c - `cordon run --session` at a terminal: the relay
 * between the caller's terminal and the call's own pseudo-terminal,
 * whose master the supervisor sends (session_pty.c says why the call
 * never gets the caller's terminal itself).
 *
 * As `ssh -t` does: while the call runs, the caller's terminal (fd 0)
 * is in raw mode, so every key (Ctrl-C, Ctrl-Z, Ctrl-\ too) goes to
 * the pty, whose line discipline, set to the caller's modes by the
 * supervisor, makes it the call's signal; the call's output goes to
 * the caller's terminal (fd 1, else 2, else 0).  The window's size goes
 * to the pty at SIGWINCH (TIOCSWINSZ on the master: the call gets its
 * SIGWINCH from the kernel); signals sent to the client itself are the
 * client's to forward as requests (session_client.c).  The terminal's
 * modes are restored on every way out: the call's end, the session's,
 * and a signal that ends the client (its handler restores them, then
 * the signal takes its course).  When only fd 1 or 2 is a terminal,
 * or when the client is not in the terminal's foreground, the modes
 * are not touched and no key is read: the caller's Ctrl-C reaches the
 * client (or not) as a job's, and the client forwards it.
 *
 * What the master gives is the call's output, passed as a bare run
 * would have written it; the master is checked (a pty's, TIOCGPTN)
 * before anything is read from it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "enforce/session/session_pty.h"

/* What a signal handler restores: the modes and their terminal. */
static struct termios restore_modes;
static volatile sig_atomic_t restore_fd = -1;

/* The signals whose default ends the client (those the client forwards
 * instead are caught by session_client.c). */
static const int fatal[] = { SIGALRM, SIGUSR1, SIGUSR2, SIGVTALRM,
			     SIGPROF, SIGXCPU, SIGXFSZ, SIGSEGV,
			     SIGBUS,  SIGFPE,  SIGILL,	SIGABRT };

static void restore_and_die(int sig)
{
	int saved = errno;

	if (restore_fd >= 0)
		tcsetattr(restore_fd, TCSADRAIN, &restore_modes);
	signal(sig, SIG_DFL);
	raise(sig); /* delivered, by default, when the handler returns */
	errno = saved;
}

static void catch_fatal(bool on)
{
	struct sigaction sa = { .sa_handler = on ? restore_and_die : SIG_DFL };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
}

bool session_tty_is_raw(void)
{
	return restore_fd >= 0;
}

bool session_tty_wanted(void)
{
	return isatty(0) || isatty(1) || isatty(2);
}

void session_tty_init(struct session_tty *t)
{
	*t = (struct session_tty){ .master = -1, .in = -1, .out = 0 };
	/* a client in the background of its shell leaves the keys (and
	 * the modes) to the foreground, as a background job would */
	if (isatty(0) && tcgetpgrp(0) == getpgrp() &&
	    tcgetattr(0, &t->saved) == 0)
		t->in = 0;
	if (isatty(1))
		t->out = 1;
	else if (isatty(2))
		t->out = 2;
}

static void enter_raw(struct session_tty *t)
{
	struct termios raw = t->saved;

	if (t->in < 0)
		return;
	cfmakeraw(&raw);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(t->in, TCSADRAIN, &raw) == 0)
		t->raw = true;
	restore_fd = t->raw ? t->in : -1;
}

static void resize(struct session_tty *t)
{
	struct winsize ws;

	if (t->master >= 0 &&
	    ioctl(t->in >= 0 ? t->in : t->out, TIOCGWINSZ, &ws) == 0)
		ioctl(t->master, TIOCSWINSZ, &ws);
}

int session_tty_take(struct session_tty *t, int fd)
{
	unsigned int n;

	if (t->master >= 0 || ioctl(fd, TIOCGPTN, &n) < 0) {
		close(fd);
		return -EPROTO;
	}
	t->master = fd;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	restore_modes = t->saved;
	catch_fatal(true);
	enter_raw(t);
	resize(t);
	return 0;
}

size_t session_tty_pollfds(const struct session_tty *t, struct pollfd *p)
{
	size_t n = 0;

	if (t->master >= 0 && !t->hup)
		p[n++] = (struct pollfd){ t->master, POLLIN, 0 };
	if (t->master >= 0 && t->off < t->len)
		p[n++] = (struct pollfd){ t->master, POLLOUT, 0 };
	else if (t->master >= 0 && t->in >= 0)
		p[n++] = (struct pollfd){ t->in, POLLIN, 0 };
	return n;
}

/* All of @buf to the caller's terminal; a terminal that fails is left. */
static void put_out(struct session_tty *t, const char *buf, size_t len)
{
	while (len > 0 && t->out >= 0) {
		ssize_t w = write(t->out, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd p = { t->out, POLLOUT, 0 };

			poll(&p, 1, -1);
			continue;
		}
		if (w <= 0) {
			t->out = -1;
			return;
		}
		buf += w;
		len -= (size_t)w;
	}
}

/* What the call wrote, to the caller's terminal: how much (0 once the
 * pty has nothing more to give now, or ever: no slave is open). */
static size_t from_master(struct session_tty *t)
{
	char buf[SESSION_TTY_BUF];
	ssize_t n;

	do
		n = read(t->master, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return 0;
	put_out(t, buf, (size_t)n);
	return (size_t)n;
}

static void to_master(struct session_tty *t)
{
	ssize_t w = write(t->master, t->keys + t->off, t->len - t->off);

	if (w > 0)
		t->off += (size_t)w;
	else if (w < 0 && errno != EAGAIN && errno != EINTR)
		t->off = t->len; /* no call to take them */
	if (t->off == t->len)
		t->off = t->len = 0;
}

static void from_keys(struct session_tty *t)
{
	ssize_t r = read(t->in, t->keys, sizeof(t->keys));

	if (r > 0) {
		t->off = 0;
		t->len = (size_t)r;
		to_master(t);
	} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
		t->in = -1; /* no more keys; the modes stay saved */
	}
}

void session_tty_events(struct session_tty *t, const struct pollfd *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!p[i].revents)
			continue;
		if (p[i].events & POLLOUT)
			to_master(t);
		else if (p[i].fd != t->master)
			from_keys(t);
		else if (!from_master(t) && (p[i].revents & POLLHUP))
			t->hup = true; /* no slave is open: nothing to read */
	}
}

bool session_tty_signal(struct session_tty *t, int sig)
{
	if (sig == SIGCONT && t->raw)
		enter_raw(t); /* a shell that stopped us set its own */
	if (sig == SIGWINCH || sig == SIGCONT)
		resize(t);
	return sig == SIGWINCH || sig == SIGCONT;
}

void session_tty_end(struct session_tty *t)
{
	if (t->master >= 0) {
		/* what the call wrote before it ended is the pty's still (at
		 * most its buffers' worth); no more: a leftover that writes
		 * on would hold the caller's terminal */
		for (size_t n = 0; n < SESSION_TTY_DRAIN;) {
			size_t got = from_master(t);

			if (!got)
				break;
			n += got;
		}
		close(t->master);
		t->master = -1;
	}
	if (t->raw && restore_fd >= 0)
		tcsetattr(restore_fd, TCSADRAIN, &restore_modes);
	t->raw = false;
	restore_fd = -1;
	catch_fatal(false);
}
