/* Unit test of the broker with the network shared (enforce/broker/broker_own.c)
 * against a race: an abstract name the command bound, released while a
 * connect to it is being checked, and bound at once by a process
 * outside.  The broker holds the socket it checked until the call is
 * made, so the one outside never gets the connection. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>

#include "broker_fixture.h"

TestSuite(broker_own_race, .init = bw_setup, .fini = bw_teardown);

/* The fixture's path helpers, unused here. */
static void *const unused[]
	__attribute__((unused)) = { (void *)bw_connect, (void *)bw_bind };

#define RUN_MS 1500

static atomic_bool racing;
static atomic_ulong outside_conns, outside_binds;
/* The outsider's socket of the moment: a fork copies it, not the thread
 * that would close it, and the child closes its copy (connector()). */
static atomic_int outsider_fd = -1;

static socklen_t race_addr(struct sockaddr_un *sun, pid_t pid)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1,
		 "cordon-own-race-%d", (int)pid);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   strlen(sun->sun_path + 1));
}

/* Outside: bind the name whenever it is free, hold it a moment, count
 * what connected. */
static void *outsider(void *arg)
{
	struct sockaddr_un sun;
	socklen_t len = race_addr(&sun, getpid());

	(void)arg;
	while (atomic_load(&racing)) {
		int s = socket(AF_UNIX,
			       SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		atomic_store(&outsider_fd, s);

		if (!bind(s, (struct sockaddr *)&sun, len) && !listen(s, 64)) {
			atomic_fetch_add(&outside_binds, 1);
			usleep(200);
			atomic_fetch_add(
				&outside_conns,
				(unsigned long)bw_accepted(s, NULL, 0));
		}
		close(s);
	}
	return NULL;
}

/* In the child: a process of its own binds the name and releases it,
 * over and over (forked, not a thread: the child of a process with
 * threads may only make system calls, and a thread's creation there
 * deadlocked under the sanitizers' runtime); the child connects to it.
 * The test's pid is @name_pid. */
static void rebinder(pid_t name_pid)
{
	struct sockaddr_un sun;
	socklen_t len = race_addr(&sun, name_pid);
	const struct timespec pause = { 0, 50 * 1000 };

	for (;;) {
		long l = syscall(SYS_socket, AF_UNIX,
				 SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (!syscall(SYS_bind, l, &sun, len) &&
		    !syscall(SYS_listen, l, 64))
			nanosleep(&pause, NULL);
		syscall(SYS_close, l);
	}
}

static void connector(void *arg)
{
	struct sockaddr_un sun;
	socklen_t len = race_addr(&sun, getppid());
	struct timespec t0, t;
	pid_t test = getppid(), r;

	(void)arg;
	/* the outsider's socket, copied by the fork: held here, its
	 * name would take this child's connects (nonblocking besides: a
	 * full backlog fails them rather than hold the child for ever) */
	if (atomic_load(&outsider_fd) > 2)
		close(atomic_load(&outsider_fd));
	r = fork();
	if (r < 0)
		_exit(97);
	if (r == 0)
		rebinder(test);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int c = socket(AF_UNIX,
			       SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		if (!syscall(SYS_connect, c, &sun, len))
			bw_note(0);
		close(c);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
			 (t.tv_nsec - t0.tv_nsec) / 1000000 <
		 RUN_MS);
	kill(r, SIGKILL);
	waitpid(r, NULL, 0);
}

static void race(enum bw_mode mode)
{
	pthread_t t;
	int ret;

	atomic_store(&racing, true);
	atomic_store(&outside_conns, 0);
	atomic_store(&outside_binds, 0);
	cr_assert_eq(pthread_create(&t, NULL, outsider, NULL), 0);
	ret = bw_run(connector, NULL, mode);
	/* stopped before any assertion: a failed one ends the test, and
	 * an outsider left racing would spin in the worker for ever */
	atomic_store(&racing, false);
	pthread_join(t, NULL);
	cr_assert_eq(ret, 0);
	cr_log_info("%s: %d connects, the outsider bound %lu times, got %lu",
		    mode == BW_BARE ? "bare" : "brokered", w.seen->ok,
		    atomic_load(&outside_binds), atomic_load(&outside_conns));
}

Test(broker_own_race, a_name_freed_and_bound_outside_meanwhile_gets_nothing,
     .timeout = 30)
{
	w.p.net = NET_PORTS;
	race(BW_SERVED);
	cr_assert_gt(w.seen->ok, 0, "the command never reached its own");
	cr_assert_gt(atomic_load(&outside_binds), 0, "no race was run");
	cr_assert_eq(atomic_load(&outside_conns), 0,
		     "the outsider got %lu connections",
		     atomic_load(&outside_conns));
}

Test(broker_own_race, the_same_race_reaches_the_outsider_without_the_filter,
     .timeout = 30)
{
	race(BW_BARE);
	cr_assert_gt(atomic_load(&outside_conns), 0,
		     "the outsider never got a connection bare");
}
