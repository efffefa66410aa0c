/* Unit tests of the broker's fast path (enforce/broker/broker_loop.c performs a
 * call in the thread that received it): a send that would wait passes the lead
 * on and holds up nothing else; a stream send that goes out in part goes on to
 * its end, as the kernel's blocking send does. */
#include <poll.h>
#include <pthread.h>

#include "broker_fixture.h"

TestSuite(broker_block, .init = bw_setup, .fini = bw_teardown);

static void *send_blocked(void *arg)
{
	int d = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	bw_sendto(d, "late", 4, arg); /* blocks: the receiver is full */
	return NULL;
}

/* Fill the receiver at rw/d.sock (non-blocking: EAGAIN once full), then
 * a blocking send to it from a thread, then a connect from this one. */
static void full_receiver(void *arg)
{
	char dgram[PATH_BUF], other[PATH_BUF];
	int nb = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	pthread_t t;

	(void)arg;
	bw_path(dgram, "rw/d.sock");
	bw_path(other, "rw/s.sock");
	for (int i = 0; i < 400; i++)
		if (bw_sendto(nb, "fill", 4, dgram) < 0)
			break;
	bw_note(bw_sendto(nb, "fill", 4, dgram)); /* EAGAIN: full */
	if (pthread_create(&t, NULL, send_blocked, dgram))
		_exit(97);
	usleep(100000); /* the thread's send waits in the broker by now */
	bw_note(bw_connect(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0),
			   other));
	_exit(0); /* the blocked thread with it */
}

static void full_receiver_case(enum bw_mode mode)
{
	char path[PATH_BUF];
	int d = bw_bind("rw/d.sock", SOCK_DGRAM);
	int s = bw_bind("rw/s.sock", SOCK_STREAM);

	cr_assert_eq(bw_run(full_receiver, NULL, mode), 0);
	cr_assert_eq(w.seen->n, 2);
	cr_assert_eq(w.seen->err[0], EAGAIN, "%s", strerror(w.seen->err[0]));
	cr_assert_eq(w.seen->err[1], 0, "%s", strerror(w.seen->err[1]));
	cr_assert_eq(bw_accepted(s, NULL, 0), 1);
	cr_assert_gt(bw_received(d), 0);
	/* Closing the receiver ends the send still waiting (in the broker's
	 * worker, or in the child's thread, gone). */
	close(d);
	close(s);
	cr_assert_eq(unlink(bw_path(path, "rw/d.sock")), 0);
	cr_assert_eq(unlink(bw_path(path, "rw/s.sock")), 0);
}

Test(broker_block, a_send_that_would_wait_holds_up_nothing_else, .timeout = 20)
{
	full_receiver_case(BW_SERVED);
}

Test(broker_block, the_same_calls_without_the_filter)
{
	full_receiver_case(BW_BARE);
}

#define BIG (200u << 10)

/* The bytes one connection at the listener brought, checked against the
 * pattern the child sends; -1 on a wrong byte. */
static void *drain(void *arg)
{
	int l = *(int *)arg, c = -1;
	struct pollfd p = { .fd = l, .events = POLLIN };
	static char buf[65536];
	long total = 0;
	ssize_t got;

	if (poll(&p, 1, 10000) == 1)
		c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return (void *)-2L;
	while ((got = read(c, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < got; i++)
			if (buf[i] != (char)((total + i) % 251))
				total = -1 - (long)BIG;
		total += got;
		usleep(1000); /* slower than the sender: it must wait */
	}
	close(c);
	return (void *)total;
}

/* One sendmsg of BIG bytes on a connected stream socket whose send
 * buffer holds far less: the kernel sends it all, waiting for room. */
static void big_send(void *arg)
{
	static char data[BIG];
	struct iovec iov = { data, sizeof(data) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long sent;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i % 251);
	if (bw_note(bw_connect(s, arg)) < 0)
		_exit(0);
	setsockopt(s, SOL_SOCKET, SO_SNDBUF, &(int){ 4096 }, sizeof(int));
	sent = bw_note(syscall(SYS_sendmsg, s, &m, 0));
	w.seen->ok = (int)sent;
	close(s);
}

static void big_send_case(enum bw_mode mode)
{
	char path[PATH_BUF];
	int l = bw_bind("rw/big.sock", SOCK_STREAM);
	pthread_t t;
	void *got;

	bw_path(path, "rw/big.sock");
	cr_assert_eq(pthread_create(&t, NULL, drain, &l), 0);
	cr_assert_eq(bw_run(big_send, path, mode), 0);
	cr_assert_eq(pthread_join(t, &got), 0);
	cr_assert_eq(w.seen->n, 2);
	cr_assert_eq(w.seen->err[0], 0, "%s", strerror(w.seen->err[0]));
	cr_assert_eq(w.seen->err[1], 0, "%s", strerror(w.seen->err[1]));
	cr_assert_eq(w.seen->ok, (int)BIG);
	cr_assert_eq((long)got, (long)BIG, "the reader got %ld bytes",
		     (long)got);
	close(l);
}

Test(broker_block, a_stream_send_in_part_goes_on_to_its_end, .timeout = 30)
{
	big_send_case(BW_SERVED);
}

Test(broker_block, the_same_stream_send_without_the_filter, .timeout = 30)
{
	big_send_case(BW_BARE);
}

/* The path given, ".." and all, is decided where it leads. */
static void connect_to(void *arg)
{
	char path[PATH_BUF];

	bw_note(bw_connect(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0),
			   bw_path(path, arg)));
}

Test(broker_block, a_dotdot_path_is_decided_where_it_leads)
{
	int good = bw_bind("rw/s.sock", SOCK_STREAM);
	int bad = bw_bind("none/s.sock", SOCK_STREAM);

	cr_assert_eq(bw_run(connect_to, "rw/../none/s.sock", BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], EACCES, "%s", strerror(w.seen->err[0]));
	cr_assert_eq(bw_accepted(bad, NULL, 0), 0);
	cr_assert_eq(bw_run(connect_to, "none/../rw/./s.sock", BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], 0, "%s", strerror(w.seen->err[0]));
	cr_assert_eq(bw_accepted(good, NULL, 0), 1);
	/* The twin: without the filter the refused one is reached. */
	cr_assert_eq(bw_run(connect_to, "rw/../none/s.sock", BW_BARE), 0);
	cr_assert_eq(w.seen->err[0], 0, "%s", strerror(w.seen->err[0]));
	cr_assert_eq(bw_accepted(bad, NULL, 0), 1);
	close(good);
	close(bad);
}

/* A descriptor that is no socket: ENOTSOCK whatever the address (the
 * broker asks the socket's type only on a failure). */
static void no_socket(void *arg)
{
	char refused[PATH_BUF], allowed[PATH_BUF];
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)arg;
	bw_note(bw_connect(fd, bw_path(refused, "none/s.sock")));
	bw_note(bw_sendto(fd, "x", 1, bw_path(allowed, "rw/d.sock")));
}

static void no_socket_case(enum bw_mode mode)
{
	int bad = bw_bind("none/s.sock", SOCK_STREAM);
	int d = bw_bind("rw/d.sock", SOCK_DGRAM);

	cr_assert_eq(bw_run(no_socket, NULL, mode), 0);
	cr_assert_eq(w.seen->n, 2);
	cr_assert_eq(w.seen->err[0], ENOTSOCK, "%s", strerror(w.seen->err[0]));
	cr_assert_eq(w.seen->err[1], ENOTSOCK, "%s", strerror(w.seen->err[1]));
	cr_assert_eq(w.records, 0);
	cr_assert_eq(bw_accepted(bad, NULL, 0), 0);
	cr_assert_eq(bw_received(d), 0);
	close(bad);
	close(d);
}

Test(broker_block, a_descriptor_that_is_no_socket_is_refused_as_such)
{
	no_socket_case(BW_SERVED);
}

Test(broker_block, the_same_descriptor_without_the_filter)
{
	no_socket_case(BW_BARE);
}
