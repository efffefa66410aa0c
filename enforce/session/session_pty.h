/*
 * session_pty.h - a session call's terminal: the pseudo-terminal the
 * supervisor makes for a call whose caller is at a terminal
 * (session_pty.c), and the relay `cordon run` keeps between it and the
 * caller's terminal (session_tty.c).
 */
#ifndef CORDON_SESSION_PTY_H
#define CORDON_SESSION_PTY_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

/* The supervisor's side. */

/* Is one of @fds (three) a terminal? */
bool session_pty_has_terminal(const int fds[3]);

/**
 * session_pty_open - a new pseudo-terminal for a call: the first
 * terminal among @fds lends it its modes and window size, then every
 * terminal among @fds is closed and replaced (in @fds) by the slave.
 * Return: the master (close-on-exec), or -errno (@fds unchanged).
 */
int session_pty_open(int fds[3]);

/* The client's side: `cordon run` at a terminal. */

#define SESSION_TTY_BUF	  4096
#define SESSION_TTY_DRAIN (256 << 10) /* read after the call's end, at most */

struct session_tty {
	int master; /* -1 until the supervisor sends it */
	int in;	    /* the terminal keys are read from (0), or -1 */
	int out;    /* the terminal the call's output goes to */
	bool raw;   /* @in is in raw mode; @saved holds its modes */
	bool hup;   /* no slave is open: the master has nothing to give */
	struct termios saved;
	char keys[SESSION_TTY_BUF]; /* read from @in, not yet written */
	size_t len, off;
};

/* --ask's question about @spec, asked on the client's controlling
 * terminal (session_ask_tty.c; the relay paused meanwhile): "yes",
 * "no" or "always"; "no" at once without a terminal in the foreground.
 * Blocks up to 30 s. */
const char *session_tty_ask(const char *spec);

/* Is one of 0, 1, 2 a terminal (then `run` asks for a pty)? */
bool session_tty_wanted(void);

/* Is the caller's terminal in raw mode (a line to it ends "\r\n")? */
bool session_tty_is_raw(void);

/* Find the terminals, keep @in's modes. */
void session_tty_init(struct session_tty *t);

/* The master the supervisor sent (@fd, taken): checked, non-blocking,
 * the terminal put in raw mode.  Return: 0 or -errno (closed). */
int session_tty_take(struct session_tty *t, int fd);

/* The descriptors to poll into @p (room for 2); how many. */
size_t session_tty_pollfds(const struct session_tty *t, struct pollfd *p);

/* Relay what @p (from session_tty_pollfds()) says is ready. */
void session_tty_events(struct session_tty *t, const struct pollfd *p,
			size_t n);

/* A signal to the client: SIGWINCH (the window's size to the pty) and
 * SIGCONT (raw mode again) are the relay's; false for the others. */
bool session_tty_signal(struct session_tty *t, int sig);

/* The call ended: what it wrote is passed on, the master closed (a
 * hangup for whatever still holds the slave), the modes restored. */
void session_tty_end(struct session_tty *t);

#endif
