/* Unit tests of what crosses into a session (enforce/session/session_proto.c):
 * ids, and lines read bounded with the descriptors that come along. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "enforce/session/session_proto.h"

static char buf[SESSION_LINE_MAX + 1];

Test(session_proto, ids)
{
	char id[SESSION_ID_LEN + 1];

	cr_assert(session_id_valid("0123456789abcdef"));
	cr_assert(!session_id_valid("0123456789abcde"));
	cr_assert(!session_id_valid("0123456789abcdef0"));
	cr_assert(!session_id_valid("0123456789ABCDEF"));
	cr_assert(!session_id_valid("../../etc/passwd"));
	cr_assert(!session_id_valid(""));
	cr_assert_eq(session_id_new(id), 0);
	cr_assert(session_id_valid(id), "%s", id);
}

Test(session_proto, lines_and_descriptors)
{
	struct session_line l = { .buf = buf };
	int sv[2], fds[3];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	for (int i = 0; i < 3; i++)
		fds[i] = open("/dev/null", O_RDONLY);
	cr_assert_eq(session_send(sv[0], "{\"a\":1}\n{\"b\"", 12, fds, 3), 0);
	cr_assert_eq(session_read_line(sv[1], &l), 1);
	cr_assert_str_eq(l.buf, "{\"a\":1}");
	cr_assert_eq(l.nfds, 3);
	for (int i = 0; i < 3; i++)
		cr_assert(fcntl(l.fds[i], F_GETFD) & FD_CLOEXEC);
	session_line_close_fds(&l);
	session_line_next(&l);
	/* the rest is kept; more is needed: 0, not a line */
	cr_assert_eq(session_read_line(sv[1], &l), 0);
	cr_assert_eq(session_send(sv[0], ":2}\n", 4, NULL, 0), 0);
	cr_assert_eq(session_read_line(sv[1], &l), 1);
	cr_assert_str_eq(l.buf, "{\"b\":2}");
	session_line_next(&l);
	close(sv[0]);
	cr_assert_eq(session_read_line(sv[1], &l), -EPIPE);
	close(sv[1]);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
}

Test(session_proto, too_many_descriptors_are_all_closed)
{
	struct session_line l = { .buf = buf };
	int sv[2], fds[3];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	for (int i = 0; i < 3; i++)
		fds[i] = open("/dev/null", O_RDONLY);
	cr_assert_eq(session_send(sv[0], "x", 1, fds, 3), 0);
	cr_assert_eq(session_send(sv[0], "y\n", 2, fds, 1), 0);
	cr_assert_eq(session_read_line(sv[1], &l), 1);
	cr_assert_eq(l.nfds, -1);
	close(sv[0]);
	close(sv[1]);
}

Test(session_proto, a_line_too_long)
{
	static char big[SESSION_LINE_MAX + 10];
	struct session_line l = { .buf = buf };
	int sv[2];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(big, 'x', sizeof(big));
	/* the reader drains as the writer writes: a child writes */
	if (fork() == 0) {
		session_send(sv[0], big, sizeof(big), NULL, 0);
		_exit(0);
	}
	close(sv[0]);
	int ret;

	while ((ret = session_read_line(sv[1], &l)) == 0)
		usleep(1000);
	cr_assert_eq(ret, -EMSGSIZE);
	close(sv[1]);
}
