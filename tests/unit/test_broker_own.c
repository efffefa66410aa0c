/* Unit tests of the broker with the network shared
 * (enforce/broker/broker_own.c) on the real kernel: the command's own UNIX
 * sockets in a temp dir shared with the host, and at abstract names, are
 * reached; those a process outside bound receive nothing; a listen() that would
 * take an ephemeral TCP port is refused with ports allowed.  The child is the
 * command (raw system calls), the test process the host. */
#include <dirent.h>
#include <pthread.h>

#include "broker_fixture.h"

/* The fixture's tree lies in /tmp: granted as a default root, as cordon
 * grants it, so that its sockets are the shared kind. */
static void setup(void)
{
	bw_setup();
	cr_assert_eq(policy_add_root(&w.p, "/tmp", RIGHT_R | RIGHT_W,
				     ORIGIN_DEFAULT, true),
		     0);
}

TestSuite(broker_own, .init = setup, .fini = bw_teardown);

/* In the child: bind @path (its own), then reach it and "host.sock" /
 * "host.dgram", bound outside. */
static void own_and_host(void *arg)
{
	char own[PATH_BUF], host[PATH_BUF], rel[64];
	struct sockaddr_un sun;
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int d = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c2 = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	(void)arg;
	bw_path(own, "none/own.sock");
	if (syscall(SYS_bind, l, &sun, bw_addr(&sun, own)) ||
	    syscall(SYS_listen, l, 8))
		_exit(93);
	bw_path(own, "none/own.dgram");
	if (syscall(SYS_bind, d, &sun, bw_addr(&sun, own)))
		_exit(94);
	bw_note(bw_connect(c, bw_path(own, "none/own.sock")));
	bw_note(bw_sendto(s, "own", 3, bw_path(own, "none/own.dgram")));
	snprintf(rel, sizeof(rel), "none/host.sock");
	bw_note(bw_connect(c2, bw_path(host, rel)));
	bw_note(bw_sendto(s, "host", 4, bw_path(host, "none/host.dgram")));
	/* what arrived at its own, seen by the child itself */
	bw_note(accept4(l, NULL, NULL, SOCK_NONBLOCK) >= 0 ? 0 : -1);
	bw_note(recv(d, rel, sizeof(rel), MSG_DONTWAIT) == 3 ? 0 : -1);
}

Test(broker_own, in_a_shared_temp_dir_own_sockets_are_reached_the_hosts_not)
{
	int ls = bw_bind("none/host.sock", SOCK_STREAM);
	int ld = bw_bind("none/host.dgram", SOCK_DGRAM);

	cr_assert_eq(bw_run(own_and_host, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->n, 6);
	cr_assert_eq(w.seen->err[0], 0, "own connect: %s",
		     strerror(w.seen->err[0]));
	cr_assert_eq(w.seen->err[1], 0, "own sendto: %s",
		     strerror(w.seen->err[1]));
	cr_assert_eq(w.seen->err[2], EACCES);
	cr_assert_eq(w.seen->err[3], EACCES);
	cr_assert_eq(w.seen->err[4], 0);
	cr_assert_eq(w.seen->err[5], 0);
	cr_assert_eq(bw_accepted(ls, NULL, 0), 0);
	cr_assert_eq(bw_received(ld), 0);
	cr_assert_eq(w.records, 2);
	/* the twin: without the filter the host's receive both */
	unlink(bw_path((char[PATH_BUF]){ 0 }, "none/own.sock"));
	unlink(bw_path((char[PATH_BUF]){ 0 }, "none/own.dgram"));
	cr_assert_eq(bw_run(own_and_host, NULL, BW_BARE), 0);
	cr_assert_eq(w.seen->ok, 6);
	cr_assert_eq(bw_accepted(ls, NULL, 0), 1);
	cr_assert_eq(bw_received(ld), 1);
	close(ls);
	close(ld);
}

/* "\0cordon-own-PID-TAG", PID the test process's. */
static socklen_t abstract_at(struct sockaddr_un *sun, pid_t pid,
			     const char *tag)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1,
		 "cordon-own-%d-%s", (int)pid, tag);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   strlen(sun->sun_path + 1));
}

static void abstract_both(void *arg)
{
	struct sockaddr_un sun;
	socklen_t len = abstract_at(&sun, getppid(), "own");
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c2 = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c3 = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	(void)arg;
	if (syscall(SYS_bind, l, &sun, len) || syscall(SYS_listen, l, 8))
		_exit(93);
	bw_note(syscall(SYS_connect, c, &sun, len));
	len = abstract_at(&sun, getppid(), "host");
	bw_note(syscall(SYS_connect, c2, &sun, len));
	len = abstract_at(&sun, getppid(), "nobody");
	bw_note(syscall(SYS_connect, c3, &sun, len));
}

Test(broker_own, abstract_own_sockets_are_reached_the_hosts_not)
{
	struct sockaddr_un sun;
	socklen_t len;
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	/* the child's getppid() is this process */
	len = abstract_at(&sun, getpid(), "host");
	cr_assert_eq(bind(l, (struct sockaddr *)&sun, len), 0);
	cr_assert_eq(listen(l, 8), 0);
	cr_assert_eq(bw_run(abstract_both, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], 0, "own: %s", strerror(w.seen->err[0]));
	cr_assert_eq(w.seen->err[1], EPERM);
	cr_assert_eq(w.seen->err[2], ECONNREFUSED);
	cr_assert_eq(bw_accepted(l, NULL, 0), 0);
	cr_assert_eq(bw_run(abstract_both, NULL, BW_BARE), 0);
	cr_assert_eq(w.seen->err[0], 0);
	cr_assert_eq(w.seen->err[1], 0);
	cr_assert_eq(w.seen->err[2], ECONNREFUSED);
	cr_assert_eq(bw_accepted(l, NULL, 0), 1);
	close(l);
}

/* A name the command bound, released, then bound outside: the broker
 * noted the socket, not the name.  The host is a thread of the test
 * process (outside: no filter), which binds when the child has closed
 * its socket. */
static int sync_up[2], sync_down[2], rebound = -1;

static void *host_binds(void *arg)
{
	struct sockaddr_un sun;
	socklen_t len = abstract_at(&sun, getpid(), "again");
	char b;

	(void)arg;
	if (read(sync_up[0], &b, 1) != 1)
		return NULL;
	rebound =
		socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (bind(rebound, (struct sockaddr *)&sun, len) || listen(rebound, 8))
		rebound = -1;
	if (write(sync_down[1], "b", 1) != 1)
		return NULL;
	return NULL;
}

static void bind_close_reach(void *arg)
{
	struct sockaddr_un sun;
	socklen_t len = abstract_at(&sun, getppid(), "again");
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char b;

	(void)arg;
	bw_note(syscall(SYS_bind, l, &sun, len));
	close(l);
	if (write(sync_up[1], "c", 1) != 1 || read(sync_down[0], &b, 1) != 1)
		_exit(95);
	bw_note(syscall(SYS_connect, c, &sun, len));
}

static void rebind_case(enum bw_mode mode, int want_err, int want_conns)
{
	pthread_t t;

	cr_assert_eq(pipe2(sync_up, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(sync_down, O_CLOEXEC), 0);
	cr_assert_eq(pthread_create(&t, NULL, host_binds, NULL), 0);
	cr_assert_eq(bw_run(bind_close_reach, NULL, mode), 0);
	pthread_join(t, NULL);
	cr_assert(rebound >= 0, "the host could not bind the name");
	cr_assert_eq(w.seen->err[0], 0);
	cr_assert_eq(w.seen->err[1], want_err, "connect: %s",
		     strerror(w.seen->err[1]));
	cr_assert_eq(bw_accepted(rebound, NULL, 0), want_conns);
	close(rebound);
	for (int i = 0; i < 2; i++) {
		close(sync_up[i]);
		close(sync_down[i]);
	}
}

Test(broker_own, an_abstract_name_released_and_bound_outside_is_refused)
{
	rebind_case(BW_SERVED, EPERM, 0);
}

Test(broker_own, the_same_name_bound_outside_is_reached_without_the_filter)
{
	rebind_case(BW_BARE, 0, 1);
}

/* listen() on an IPv4 socket never bound, then on one bound to the
 * --bind port, then on the first after a failed connect(); each
 * socket's state asked of the kernel (SO_ACCEPTCONN). */
static void listens(void *arg)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int a = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int b = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int on = 0;
	socklen_t len = sizeof(on);

	(void)arg;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)w.p.bind_ports[0]);
	bw_note(syscall(SYS_listen, a, 4));
	getsockopt(a, SOL_SOCKET, SO_ACCEPTCONN, &on, &len);
	bw_note(on ? 0 : -1);
	if (syscall(SYS_bind, b, &sin, sizeof(sin)))
		_exit(96);
	bw_note(syscall(SYS_listen, b, 4));
	getsockopt(b, SOL_SOCKET, SO_ACCEPTCONN, &on, &len);
	bw_note(on ? 0 : -1);
	/* a connect() to a port where nothing listens fails, and leaves the
	 * socket the port it took */
	sin.sin_port = htons((uint16_t)w.p.connect_ports[0]);
	bw_note(syscall(SYS_connect, a, &sin, sizeof(sin)));
	bw_note(syscall(SYS_listen, a, 4));
	getsockopt(a, SOL_SOCKET, SO_ACCEPTCONN, &on, &len);
	bw_note(on ? 0 : -1);
}

/* A port of the loopback where nothing listens (bound a moment, then
 * closed). */
static unsigned int dead_port(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(s, (struct sockaddr *)&sin, sizeof(sin)), 0);
	cr_assert_eq(getsockname(s, (struct sockaddr *)&sin, &len), 0);
	close(s);
	return ntohs(sin.sin_port);
}

Test(broker_own, a_listen_without_bind_is_refused_with_ports)
{
	const char *dest;

	w.p.connect_ports[0] = (uint16_t)dead_port();
	w.p.nconnect = 1;
	w.p.bind_ports[0] = (uint16_t)dead_port();
	w.p.nbind = 1;
	cr_assert_eq(bw_run(listens, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], EACCES);
	cr_assert_neq(w.seen->err[1], 0, "the refused socket listens");
	cr_assert_eq(w.seen->err[2], 0);
	cr_assert_eq(w.seen->err[3], 0, "the bound socket does not listen");
	cr_assert_eq(w.seen->err[4], ECONNREFUSED);
	cr_assert_eq(w.seen->err[5], EACCES, "after a failed connect: %s",
		     strerror(w.seen->err[5]));
	cr_assert_neq(w.seen->err[6], 0, "it listens after a failed connect");
	cr_assert_eq(w.records, 2);
	cr_assert_str_eq(
		json_string_value(json_object_get(w.last, "operation")),
		"listen");
	dest = json_string_value(json_object_get(w.last, "destination"));
	cr_assert(dest && !strncmp(dest, "0.0.0.0:", 8), "%s", dest);
	cr_assert_str_eq(json_string_value(json_object_get(w.last, "allow")),
			 "with --net");
	/* the twin: bare, and with --bind 0 (any ephemeral port) */
	cr_assert_eq(bw_run(listens, NULL, BW_BARE), 0);
	cr_assert_eq(w.seen->ok, 6);
	w.p.bind_ports[1] = 0;
	w.p.nbind = 2;
	cr_assert_eq(bw_run(listens, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->ok, 6);
}

/* A socket the command holds that was bound already (a process outside
 * passed it: here inherited) is not noted by a bind() the command tries
 * on it: holding it opens nothing at its name. */
static int inherited = -1;

static void rebind_inherited(void *arg)
{
	struct sockaddr_un sun;
	socklen_t len = abstract_at(&sun, getppid(), "other");
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	(void)arg;
	bw_note(syscall(SYS_bind, inherited, &sun, len));
	len = abstract_at(&sun, getppid(), "held");
	bw_note(syscall(SYS_connect, c, &sun, len));
}

Test(broker_own, a_bound_socket_the_command_holds_is_not_its_own)
{
	struct sockaddr_un sun;
	socklen_t len = abstract_at(&sun, getpid(), "held");

	inherited = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	cr_assert_eq(bind(inherited, (struct sockaddr *)&sun, len), 0);
	cr_assert_eq(listen(inherited, 8), 0);
	cr_assert_eq(bw_run(rebind_inherited, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], EINVAL);
	cr_assert_eq(w.seen->err[1], EPERM);
	cr_assert_eq(bw_accepted(inherited, NULL, 0), 0);
	/* the twin: bare, the same connect reaches it */
	cr_assert_eq(bw_run(rebind_inherited, NULL, BW_BARE), 0);
	cr_assert_eq(w.seen->err[1], 0);
	cr_assert_eq(bw_accepted(inherited, NULL, 0), 1);
	close(inherited);
}

/* More sockets bound (and closed) than the broker remembers: the ones
 * closed are forgotten first, the command's live one stays its own. */
static void many_binds(void *arg)
{
	struct sockaddr_un sun;
	socklen_t len = abstract_at(&sun, getppid(), "kept");
	sa_family_t fam = AF_UNIX;
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	(void)arg;
	if (syscall(SYS_bind, l, &sun, len) || syscall(SYS_listen, l, 8))
		_exit(93);
	for (int i = 0; i < 1100; i++) {
		int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		/* autobind: an abstract name of the kernel's choosing */
		if (syscall(SYS_bind, s, &fam, sizeof(fam)))
			_exit(94);
		close(s);
	}
	bw_note(syscall(SYS_connect, c, &sun, len));
}

Test(broker_own, closed_sockets_are_forgotten_before_a_live_one)
{
	cr_assert_eq(bw_run(many_binds, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], 0, "connect: %s",
		     strerror(w.seen->err[0]));
}

/* A connect waiting on the full backlog of the command's own abstract
 * listener, which the command then closes: it fails, as bare (the
 * broker's hold on the socket does not keep it waiting for ever). */
static void *close_later(void *arg)
{
	usleep(300 * 1000);
	close(*(int *)arg);
	return NULL;
}

static void full_backlog(void *arg)
{
	struct sockaddr_un sun;
	socklen_t len = abstract_at(&sun, getppid(), "full");
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c1 = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c2 = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	pthread_t t;

	(void)arg;
	if (syscall(SYS_bind, l, &sun, len) || listen(l, 0))
		_exit(93);
	bw_note(syscall(SYS_connect, c1, &sun, len));
	if (pthread_create(&t, NULL, close_later, &l))
		_exit(94);
	bw_note(syscall(SYS_connect, c2, &sun, len));
	pthread_join(t, NULL);
}

Test(broker_own, a_wait_on_an_own_listener_closed_meanwhile_ends, .timeout = 15)
{
	cr_assert_eq(bw_run(full_backlog, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], 0);
	cr_assert_eq(w.seen->err[1], ECONNREFUSED, "%s",
		     strerror(w.seen->err[1]));
	cr_assert_eq(bw_run(full_backlog, NULL, BW_BARE), 0);
	cr_assert_eq(w.seen->err[1], ECONNREFUSED, "bare: %s",
		     strerror(w.seen->err[1]));
}

/* Each refused connect leaves no descriptor behind in the supervisor
 * (the O_PATH of the socket file opened to decide). */
static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");

	cr_assert(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void refused_many(void *arg)
{
	char path[PATH_BUF];

	(void)arg;
	bw_path(path, "none/host.sock");
	for (int i = 0; i < 100; i++) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		bw_note(bw_connect(s, path));
		close(s);
	}
}

Test(broker_own, a_refused_connect_leaves_no_descriptor_open)
{
	int ls = bw_bind("none/host.sock", SOCK_STREAM);
	int before = open_fds();

	cr_assert_eq(bw_run(refused_many, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->ok, 0);
	cr_assert_eq(w.seen->err[99], EACCES);
	/* the broker's threads end after bw_run(): a few cached pidfds at
	 * most remain a moment, never one per call */
	cr_assert_lt(open_fds() - before, 20, "%d descriptors more",
		     open_fds() - before);
	cr_assert_eq(bw_accepted(ls, NULL, 0), 0);
	close(ls);
}

/* The command's listener closed, its connections kept (they carry its
 * name): a connect to the name is refused as the kernel refuses it,
 * ECONNREFUSED (a client that retries until the server is back). */
static void lingering(void *arg)
{
	struct sockaddr_un sun;
	socklen_t len = abstract_at(&sun, getppid(), "linger");
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c1 = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c2 = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	(void)arg;
	if (syscall(SYS_bind, l, &sun, len) || listen(l, 8))
		_exit(93);
	bw_note(syscall(SYS_connect, c1, &sun, len));
	bw_note(accept4(l, NULL, NULL, SOCK_CLOEXEC) >= 0 ? 0 : -1);
	close(l);
	bw_note(syscall(SYS_connect, c2, &sun, len));
}

Test(broker_own, a_name_whose_listener_closed_is_refused_as_bare)
{
	cr_assert_eq(bw_run(lingering, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->ok, 2);
	cr_assert_eq(w.seen->err[2], ECONNREFUSED, "%s",
		     strerror(w.seen->err[2]));
	cr_assert_eq(bw_run(lingering, NULL, BW_BARE), 0);
	cr_assert_eq(w.seen->err[2], ECONNREFUSED, "bare: %s",
		     strerror(w.seen->err[2]));
}
