/*
 * fuzz_session.c - libFuzzer target for what crosses into a session's
 * supervisor (enforce/session/session_serve.c, session_proto.c): a client's
 * requests (lines of JSON on a stream, descriptors with them) and pid 1's
 * messages from inside the sandbox (datagrams on the channel).
 *
 * The input is a list of records [KIND][LEN][LEN bytes]: KIND 0 writes
 * the bytes to the client's stream, 1 the same with three descriptors
 * (as "run" carries 0, 1 and 2), 2 sends them to the supervisor as one
 * datagram of pid 1's, 3 starts a new client.  After each, the
 * supervisor takes what came through the public entry points the
 * session's loop calls (session_client_input(), session_pid1_input()),
 * so that a message added to the protocol is fuzzed with the rest.
 *
 * Whatever the bytes: every line the supervisor answers is one JSON
 * object; every message it sends pid 1 is a whole head of a known type,
 * a spawn's length that of what follows it (within SESSION_SPAWN_MAX)
 * and with three descriptors, a signal one a client may forward, any
 * other's length that of what follows; and nothing leaks a descriptor
 * across inputs.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "enforce/session/session_note.h"
#include "enforce/session/session_serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct session s;
static struct cli cli;
static char *envp[] = { "PATH=/usr/bin:/bin", "HOME=/nonexistent", "LANG=C",
			NULL };
static int pid1_end = -1; /* pid 1's side of s.chan */
static int peer = -1;	  /* the client's side of clients[0] */
static int null_fd = -1;
static int fds_at_start = -1;

static int count_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			n++;
	return n;
}

static void setup(void)
{
	int sv[2];

	signal(SIGPIPE, SIG_IGN);
	memcpy(s.id, "0123456789abcdef", SESSION_ID_LEN + 1);
	snprintf(s.sockpath, sizeof(s.sockpath), "/nonexistent/s.sock");
	s.c = &cli;
	if (policy_add_root(&cli.policy, "/", RIGHT_R, ORIGIN_USER, true))
		abort();
	s.l.envp = envp;
	s.sup.sock = -1;
	s.listen_fd = s.pidfd = -1;
	s.stopper = -1;
	pthread_mutex_init(&s.mu, NULL);
	s.wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       0, sv))
		abort();
	s.chan = sv[0];
	pid1_end = sv[1];
	for (size_t i = 0; i < SESSION_CLIENTS_MAX; i++)
		s.clients[i].fd = -1;
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (s.wake < 0 || null_fd < 0)
		abort();
}

/* A client at clients[0] (the one before it dropped as its loop would:
 * a call it still runs ends). */
static void new_client(void)
{
	struct client *k = &s.clients[0];
	int sv[2];

	if (peer >= 0)
		close(peer);
	peer = -1;
	if (k->fd >= 0)
		close(k->fd);
	session_line_close_fds(&k->line);
	free(k->line.buf);
	if (k->running)
		s.running--;
	free(session_note_take(&s, k));
	*k = (struct client){ .fd = -1 };
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
		       sv))
		abort();
	k->fd = sv[0];
	peer = sv[1];
	k->line.buf = malloc(SESSION_LINE_MAX + 1);
	if (!k->line.buf)
		abort();
}

/* Every line the supervisor answered: one JSON object each. */
static void check_replies(void)
{
	static char buf[1 << 17];
	static size_t have;
	ssize_t n;

	while (peer >= 0 && (n = recv(peer, buf + have, sizeof(buf) - 1 - have,
				      MSG_DONTWAIT)) > 0) {
		char *nl;

		have += (size_t)n;
		while ((nl = memchr(buf, '\n', have))) {
			json_t *doc =
				json_loadb(buf, (size_t)(nl - buf), 0, NULL);

			if (!json_is_object(doc))
				abort();
			json_decref(doc);
			have -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, have);
		}
		if (have == sizeof(buf) - 1)
			abort(); /* a line past any reply's size */
	}
	if (peer < 0)
		have = 0;
}

/* What the supervisor sent pid 1: see the top. */
static void check_pid1(void)
{
	static char buf[sizeof(struct session_msg) + SESSION_SPAWN_MAX + 1];
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(8 * sizeof(int))];
	} ctl;
	struct session_msg m;
	ssize_t n;

	for (;;) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = ctl.space,
				     .msg_controllen = sizeof(ctl.space) };
		int nfds = 0;

		n = recvmsg(pid1_end, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0)
			return;
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&mh); h;
		     h = CMSG_NXTHDR(&mh, h))
			for (size_t i = 0;
			     i < (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			     i++, nfds++) {
				int fd;

				memcpy(&fd, CMSG_DATA(h) + i * sizeof(int),
				       sizeof(fd));
				close(fd);
			}
		if ((size_t)n < sizeof(m))
			abort();
		memcpy(&m, buf, sizeof(m));
		if (m.type == SESSION_SPAWN) {
			if (m.len != (size_t)n - sizeof(m) ||
			    m.len > SESSION_SPAWN_MAX || nfds != 3 ||
			    buf[n - 1] != '\0')
				abort();
		} else if (m.type == SESSION_SIGNAL) {
			if (n != sizeof(m) || nfds || m.value <= 0 ||
			    m.value >= 65)
				abort();
		} else if (m.len != (size_t)n - sizeof(m)) {
			/* a type added since: its head at least says the
			 * length of what follows it */
			abort();
		}
	}
}

static void feed_client(const uint8_t *p, size_t len, bool with_fds)
{
	char cbuf[CMSG_SPACE(3 * sizeof(int))] = { 0 };
	struct iovec iov = { (void *)p, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int three[3] = { null_fd, null_fd, null_fd };

	if (peer < 0)
		new_client();
	if (with_fds) {
		struct cmsghdr *h;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		h = CMSG_FIRSTHDR(&mh);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(three));
		memcpy(CMSG_DATA(h), three, sizeof(three));
	}
	if (len && sendmsg(peer, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		return;
	if (s.clients[0].fd >= 0)
		session_client_input(&s, &s.clients[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t at = 0;

	if (fds_at_start < 0) {
		setup();
		fds_at_start = count_fds();
	}
	new_client();
	/* each input from the same state: its calls numbered from 1 */
	s.stopper = -1;
	s.calls = 0;
	s.running = 0;
	while (at + 3 <= size) {
		uint8_t kind = data[at] % 4;
		size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;

		at += 3;
		if (len > size - at)
			len = size - at;
		if (kind <= 1)
			feed_client(data + at, len, kind == 1);
		else if (kind == 2 && len)
			send(pid1_end, data + at, len,
			     MSG_DONTWAIT | MSG_NOSIGNAL);
		else if (kind == 3)
			new_client();
		if (kind == 2)
			session_pid1_input(&s);
		check_replies();
		check_pid1();
		at += len;
	}
	/* the end of the input: the client goes, its call with it */
	if (peer >= 0)
		close(peer);
	peer = -1;
	if (s.clients[0].fd >= 0)
		session_client_input(&s, &s.clients[0]);
	check_pid1();
	new_client();
	close(peer);
	peer = -1;
	close(s.clients[0].fd);
	s.clients[0].fd = -1;
	if (count_fds() != fds_at_start)
		abort(); /* a descriptor kept across inputs */
	return 0;
}
