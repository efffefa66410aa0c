/* Unit tests of the broker (enforce/broker/broker_loop.c) against races: a
 * symlink swapped between the check and the use, a descriptor number that
 * changes sockets while the broker works on it. */
#include <pthread.h>
#include <stdatomic.h>

#include "broker_fixture.h"

TestSuite(broker_race, .init = bw_setup, .fini = bw_teardown);

#define TRIES 200

static atomic_bool flipping;
static atomic_ulong flips;

/* Flip rw/flip between rw/s.sock (allowed) and none/s.sock (refused),
 * atomically (rename over it), until told to stop. */
static void *flipper(void *arg)
{
	char good[PATH_BUF], bad[PATH_BUF], tmp[PATH_BUF], link[PATH_BUF];

	(void)arg;
	bw_path(good, "rw/s.sock");
	bw_path(bad, "none/s.sock");
	bw_path(tmp, "rw/flip.tmp");
	bw_path(link, "rw/flip");
	for (unsigned long i = 0; atomic_load(&flipping); i++) {
		unlink(tmp);
		if (symlink(i & 1 ? bad : good, tmp) || rename(tmp, link))
			break;
		atomic_fetch_add(&flips, 1);
	}
	return NULL;
}

static void connect_flip(void *arg)
{
	char path[PATH_BUF];

	(void)arg;
	bw_path(path, "rw/flip");
	for (int i = 0; i < TRIES; i++) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		bw_note(bw_connect(s, path));
		close(s);
		usleep(20); /* let the link flip between connects */
	}
}

static void swapped_link(enum bw_mode mode, int *good, int *bad)
{
	int lgood = bw_bind("rw/s.sock", SOCK_STREAM);
	int lbad = bw_bind("none/s.sock", SOCK_STREAM);
	char target[PATH_BUF], link[PATH_BUF];
	pthread_t t;

	cr_assert_eq(
		symlink(bw_path(target, "rw/s.sock"), bw_path(link, "rw/flip")),
		0);
	atomic_store(&flipping, true);
	atomic_store(&flips, 0);
	cr_assert_eq(pthread_create(&t, NULL, flipper, NULL), 0);
	while (atomic_load(&flips) < 2)
		usleep(100);
	cr_assert_eq(bw_run(connect_flip, NULL, mode), 0);
	atomic_store(&flipping, false);
	pthread_join(t, NULL);
	*good = bw_accepted(lgood, NULL, 0);
	*bad = bw_accepted(lbad, NULL, 0);
	close(lgood);
	close(lbad);
}

Test(broker_race, a_symlink_swapped_between_check_and_use_does_not_redirect)
{
	int good, bad;

	swapped_link(BW_SERVED, &good, &bad);
	cr_assert_eq(bad, 0, "%d connections reached the refused socket", bad);
	cr_assert_gt(good, 0);
	cr_assert_eq(good, w.seen->ok,
		     "every connect that succeeded "
		     "arrived at the allowed listener");
}

Test(broker_race, the_swapped_symlink_reaches_both_without_the_filter)
{
	int good, bad;

	swapped_link(BW_BARE, &good, &bad);
	cr_assert_gt(bad, 0);
	cr_assert_gt(good, 0);
	cr_assert_eq(good + bad, TRIES);
}

/* The descriptor number raced over: a TCP socket and UNIX sockets
 * dup2()ed over it in turn by one thread while another connects it. */
static struct {
	int num;
	int tcp;
	atomic_bool stop;
	atomic_ulong turns;
} race;

static void *dupper(void *arg)
{
	(void)arg;
	while (!atomic_load(&race.stop)) {
		int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		dup2(u, race.num);
		close(u);
		dup2(race.tcp, race.num);
		atomic_fetch_add(&race.turns, 1);
	}
	return NULL;
}

static void connect_raced(void *arg)
{
	char path[PATH_BUF];
	pthread_t t;

	bw_path(path, arg);
	race.tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	race.num = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	atomic_store(&race.stop, false);
	atomic_store(&race.turns, 0);
	if (pthread_create(&t, NULL, dupper, NULL))
		_exit(94);
	while (atomic_load(&race.turns) < 2)
		usleep(10);
	for (int i = 0; i < TRIES; i++) {
		bw_note(bw_connect(race.num, path));
		usleep(5); /* let the number change sockets meanwhile */
	}
	atomic_store(&race.stop, true);
	pthread_join(t, NULL);
}

Test(broker_race, a_unix_socket_dup2ed_over_a_tcp_number_gets_nowhere)
{
	int l = bw_bind("none/s.sock", SOCK_STREAM);

	cr_assert_eq(bw_run(connect_raced, "none/s.sock", BW_SERVED), 0);
	cr_assert_eq(bw_accepted(l, NULL, 0), 0);
	cr_assert_eq(w.seen->ok, 0);
	/* The twin: the same race without the filter reaches it. */
	cr_assert_eq(bw_run(connect_raced, "none/s.sock", BW_BARE), 0);
	cr_assert_gt(bw_accepted(l, NULL, 0), 0);
	close(l);
}

/* A connect blocked on a full backlog (performed by one worker) holds
 * up no other call; a non-blocking socket meets EAGAIN, as without the
 * broker. */
static void *connect_full(void *arg)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	bw_connect(s, arg); /* blocks: the backlog is full */
	return NULL;
}

static void full_backlog(void *arg)
{
	char full[PATH_BUF], other[PATH_BUF];
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int nb = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	pthread_t t;

	(void)arg;
	bw_path(full, "rw/full.sock");
	bw_path(other, "rw/s.sock");
	bw_note(bw_connect(s, full)); /* fills the backlog of 0 */
	if (pthread_create(&t, NULL, connect_full, full))
		_exit(97);
	usleep(100000); /* the thread is blocked in the broker by now */
	bw_note(bw_connect(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0),
			   other));
	bw_note(bw_connect(nb, full));
	_exit(0); /* the blocked thread with it */
}

Test(broker_race, a_blocked_connect_holds_up_nothing_else, .timeout = 20)
{
	char path[PATH_BUF];
	int full = bw_bind("rw/full.sock", SOCK_STREAM);
	int other = bw_bind("rw/s.sock", SOCK_STREAM);

	cr_assert_eq(listen(full, 0), 0);
	cr_assert_eq(bw_run(full_backlog, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->n, 3);
	cr_assert_eq(w.seen->err[0], 0);
	cr_assert_eq(w.seen->err[1], 0, "%s", strerror(w.seen->err[1]));
	cr_assert_eq(w.seen->err[2], EAGAIN, "%s", strerror(w.seen->err[2]));
	cr_assert_eq(bw_accepted(other, NULL, 0), 1);
	/* The twin: the same calls without the broker, fresh listeners
	 * (the blocked worker connects once the first is gone). */
	close(full);
	close(other);
	cr_assert_eq(unlink(bw_path(path, "rw/full.sock")), 0);
	cr_assert_eq(unlink(bw_path(path, "rw/s.sock")), 0);
	full = bw_bind("rw/full.sock", SOCK_STREAM);
	other = bw_bind("rw/s.sock", SOCK_STREAM);
	cr_assert_eq(listen(full, 0), 0);
	cr_assert_eq(bw_run(full_backlog, NULL, BW_BARE), 0);
	cr_assert_eq(w.seen->err[1], 0);
	cr_assert_eq(w.seen->err[2], EAGAIN);
	close(full);
	close(other);
}

static void *connect_thread(void *arg)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	bw_note(bw_connect(s, arg));
	return NULL;
}

/* The notification names the calling thread, not the process. */
static void from_a_thread(void *arg)
{
	char path[PATH_BUF];
	pthread_t t;

	bw_path(path, arg);
	if (pthread_create(&t, NULL, connect_thread, path))
		_exit(98);
	pthread_join(t, NULL);
}

Test(broker_race, a_thread_other_than_the_first_connects)
{
	int good = bw_bind("rw/s.sock", SOCK_STREAM);
	int bad = bw_bind("none/s.sock", SOCK_STREAM);

	cr_assert_eq(bw_run(from_a_thread, "rw/s.sock", BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], 0, "%s", strerror(w.seen->err[0]));
	cr_assert_eq(bw_accepted(good, NULL, 0), 1);
	cr_assert_eq(bw_run(from_a_thread, "none/s.sock", BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], EACCES, "%s", strerror(w.seen->err[0]));
	cr_assert_eq(bw_accepted(bad, NULL, 0), 0);
	close(good);
	close(bad);
}
