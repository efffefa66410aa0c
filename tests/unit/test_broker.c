/* Unit tests of the UNIX-socket broker (enforce/broker/broker_loop.c) on the
 * real kernel: what arrives at listeners outside, with and without it. */
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>

#include "broker_fixture.h"

TestSuite(broker, .init = bw_setup, .fini = bw_teardown);

/* A stream connect then a write, a sendto and a sendmsg carrying a pipe
 * end, to the sockets of the directory @arg names. */
static void talk(void *arg)
{
	char path[PATH_BUF], rel[64], ctl[CMSG_SPACE(sizeof(int))];
	const char *dir = arg;
	struct sockaddr_un sun;
	struct iovec iov = { "dgram2", 6 };
	struct msghdr m = { .msg_name = &sun,
			    .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int d = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int pipefd[2];

	snprintf(rel, sizeof(rel), "%s/s.sock", dir);
	if (bw_note(bw_connect(s, bw_path(path, rel))) == 0)
		bw_note(write(s, "hello", 5));
	snprintf(rel, sizeof(rel), "%s/d.sock", dir);
	bw_note(bw_sendto(d, "dgram1", 6, bw_path(path, rel)));
	if (pipe2(pipefd, O_CLOEXEC) || write(pipefd[1], "pipe!", 5) != 5)
		_exit(92);
	memset(ctl, 0, sizeof(ctl));
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &pipefd[0], sizeof(int));
	m.msg_namelen = bw_addr(&sun, path);
	bw_note(syscall(SYS_sendmsg, d, &m, 0));
}

/* What the sockets of @dir received: the stream's bytes, datagrams. */
struct got {
	int conns, dgrams;
	char bytes[64], first[64], piped[64];
};

static void receive(const char *dir, int ls, int ld, struct got *g)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { g->first, sizeof(g->first) - 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	(void)dir;
	memset(g, 0, sizeof(*g));
	g->conns = bw_accepted(ls, g->bytes, sizeof(g->bytes));
	n = recv(ld, g->first, sizeof(g->first) - 1, MSG_DONTWAIT);
	if (n < 0)
		return;
	g->dgrams++;
	g->first[n] = '\0';
	iov.iov_base = g->piped; /* the second: the one with the pipe */
	iov.iov_len = sizeof(g->piped) - 1;
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	if (recvmsg(ld, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) >= 0) {
		struct cmsghdr *h = CMSG_FIRSTHDR(&m);
		int fd;

		g->dgrams++;
		cr_assert(h && h->cmsg_type == SCM_RIGHTS, "no descriptor");
		memcpy(&fd, CMSG_DATA(h), sizeof(fd));
		memset(g->piped, 0, sizeof(g->piped));
		cr_assert_eq(read(fd, g->piped, sizeof(g->piped) - 1), 5);
		close(fd);
	}
	g->dgrams += bw_received(ld);
}

static void run_dir(const char *dir, enum bw_mode mode, struct got *g)
{
	char s[64], d[64];
	int ls, ld;

	snprintf(s, sizeof(s), "%s/s.sock", dir);
	snprintf(d, sizeof(d), "%s/d.sock", dir);
	ls = bw_bind(s, SOCK_STREAM);
	ld = bw_bind(d, SOCK_DGRAM);
	cr_assert_eq(bw_run(talk, (void *)dir, mode), 0);
	receive(dir, ls, ld, g);
	close(ls);
	close(ld);
}

static void refused_in(const char *dir)
{
	char want[PATH_BUF], rel[64];
	struct got g;

	run_dir(dir, BW_SERVED, &g);
	cr_assert_eq(g.conns, 0, "%s: a connection arrived", dir);
	cr_assert_eq(g.dgrams, 0, "%s: a datagram arrived", dir);
	cr_assert_eq(w.seen->n, 3);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(w.seen->err[i], EACCES, "%s: call %d: %s", dir, i,
			     strerror(w.seen->err[i]));
	cr_assert_eq(w.records, 3);
	snprintf(rel, sizeof(rel), "%s/d.sock", dir);
	cr_assert_str_eq(json_string_value(json_object_get(w.last, "resolved")),
			 bw_path(want, rel));
	cr_assert_str_eq(
		json_string_value(json_object_get(w.last, "operation")),
		"sendmsg");
	cr_assert_str_eq(json_string_value(json_object_get(w.last, "layer")),
			 "kernel");
}

static void reached_in(const char *dir, enum bw_mode mode)
{
	struct got g;

	run_dir(dir, mode, &g);
	cr_assert_eq(w.seen->n, 4, "%s: %d calls", dir, w.seen->n);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(w.seen->err[i], 0, "%s: call %d: %s", dir, i,
			     strerror(w.seen->err[i]));
	cr_assert_eq(g.conns, 1, "%s", dir);
	cr_assert_str_eq(g.bytes, "hello");
	cr_assert_eq(g.dgrams, 2, "%s", dir);
	cr_assert_str_eq(g.first, "dgram1");
	cr_assert_str_eq(g.piped, "pipe!");
	cr_assert_eq(w.records, 0);
}

Test(broker, sockets_where_nothing_is_granted_receive_nothing)
{
	refused_in("none");
}

Test(broker, sockets_in_a_read_only_root_receive_nothing)
{
	refused_in("ro");
}

Test(broker, the_same_sockets_are_reached_without_the_filter)
{
	reached_in("none", BW_BARE);
	reached_in("ro", BW_BARE);
}

Test(broker, sockets_in_a_writable_root_are_reached_intact)
{
	reached_in("rw", BW_SERVED);
}

Test(broker, sockets_under_connect_unix_are_reached_intact)
{
	reached_in("u", BW_SERVED);
}

/* Connect "s.sock" from the directory @arg. */
static void relative(void *arg)
{
	char dir[PATH_BUF];
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (chdir(bw_path(dir, arg)))
		_exit(93);
	bw_note(bw_connect(s, "s.sock"));
}

Test(broker, a_relative_path_is_resolved_from_the_working_directory)
{
	int good = bw_bind("rw/s.sock", SOCK_STREAM);
	int bad = bw_bind("none/s.sock", SOCK_STREAM);

	cr_assert_eq(bw_run(relative, "rw", BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], 0, "%s", strerror(w.seen->err[0]));
	cr_assert_eq(bw_run(relative, "none", BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], EACCES);
	cr_assert_eq(bw_accepted(good, NULL, 0), 1);
	cr_assert_eq(bw_accepted(bad, NULL, 0), 0);
	close(good);
	close(bad);
}

static void via_link(void *arg)
{
	char path[PATH_BUF];
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	bw_note(bw_connect(s, bw_path(path, arg)));
}

Test(broker, a_symlink_in_a_granted_directory_to_a_refused_socket)
{
	char target[PATH_BUF], link[PATH_BUF];
	int bad = bw_bind("none/s.sock", SOCK_STREAM);

	cr_assert_eq(symlink(bw_path(target, "none/s.sock"),
			     bw_path(link, "rw/link")),
		     0);
	cr_assert_eq(bw_run(via_link, "rw/link", BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], EACCES);
	cr_assert_eq(bw_accepted(bad, NULL, 0), 0);
	cr_assert_str_eq(json_string_value(json_object_get(w.last, "path")),
			 link);
	cr_assert_str_eq(json_string_value(json_object_get(w.last, "resolved")),
			 target);
	/* The twin: the same link without the filter reaches it. */
	cr_assert_eq(bw_run(via_link, "rw/link", BW_BARE), 0);
	cr_assert_eq(w.seen->err[0], 0);
	cr_assert_eq(bw_accepted(bad, NULL, 0), 1);
	close(bad);
}

/* sendto with no address and write() on a connected socket: not handed
 * to the broker (its listener is closed: a handed call fails ENOSYS). */
static void unnotified(void *arg)
{
	int fd = *(int *)arg;
	char path[PATH_BUF];

	bw_note(syscall(SYS_write, fd, "w", 1));
	bw_note(syscall(SYS_sendto, fd, "s", 1, 0, NULL, 0));
	bw_note(bw_sendto(fd, "a", 1, bw_path(path, "rw/x.sock")));
}

Test(broker, writes_and_sends_without_an_address_are_not_handed_over)
{
	int sp[2];
	char buf[8] = "";

	cr_assert_eq(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sp), 0);
	cr_assert_eq(bw_run(unnotified, &sp[1], BW_CLOSED), 0);
	cr_assert_eq(w.seen->err[0], 0);
	cr_assert_eq(w.seen->err[1], 0);
	cr_assert_eq(w.seen->err[2], ENOSYS, "the filter is not in place");
	cr_assert_eq(recv(sp[0], buf, sizeof(buf), MSG_DONTWAIT), 1);
	cr_assert_eq(buf[0], 'w');
	cr_assert_eq(recv(sp[0], buf, sizeof(buf), MSG_DONTWAIT), 1);
	cr_assert_eq(buf[0], 's');
	cr_assert_eq(bw_received(sp[0]), 0);
	close(sp[0]);
	close(sp[1]);
}

/* TCP: the two ports of @arg, the first allowed. */
static void tcp(void *arg)
{
	const uint16_t *ports = arg;

	for (int i = 0; i < 2; i++) {
		struct sockaddr_in in = { .sin_family = AF_INET,
					  .sin_port = htons(ports[i]),
					  .sin_addr.s_addr =
						  htonl(INADDR_LOOPBACK) };
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		bw_note(syscall(SYS_connect, s, &in, sizeof(in)));
	}
}

static int tcp_listener(uint16_t *port)
{
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(in);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	cr_assert_eq(bind(fd, (struct sockaddr *)&in, len), 0);
	cr_assert_eq(listen(fd, 16), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&in, &len), 0);
	*port = ntohs(in.sin_port);
	return fd;
}

Test(broker, tcp_connect_follows_the_policys_ports)
{
	uint16_t ports[2];
	int allowed = tcp_listener(&ports[0]);
	int refused = tcp_listener(&ports[1]);

	w.p.connect_ports[w.p.nconnect++] = ports[0];
	cr_assert_eq(bw_run(tcp, ports, BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], 0, "%s", strerror(w.seen->err[0]));
	cr_assert_eq(w.seen->err[1], EACCES);
	cr_assert_eq(bw_accepted(allowed, NULL, 0), 1);
	cr_assert_eq(bw_accepted(refused, NULL, 0), 0);
	/* The twin: without the filter, both are reached. */
	cr_assert_eq(bw_run(tcp, ports, BW_BARE), 0);
	cr_assert_eq(w.seen->ok, 2);
	cr_assert_eq(bw_accepted(refused, NULL, 0), 1);
	close(allowed);
	close(refused);
}

/* Connect rw/priv/s.sock as root without capabilities, as the command
 * runs in a root run. */
static void capless(void *arg)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	char path[PATH_BUF];
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	(void)arg;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d))
		_exit(95);
	bw_note(bw_connect(s, bw_path(path, "rw/priv/s.sock")));
}

Test(broker, a_root_run_reaches_no_socket_the_command_could_not)
{
	char priv[PATH_BUF];
	int l;

	if (geteuid() != 0) {
		bw_teardown(); /* a skipped test does not reach .fini */
		cr_skip_test("SKIP: needs root (a root run's capabilities)");
	}
	cr_assert_eq(mkdir(bw_path(priv, "rw/priv"), 0700), 0);
	l = bw_bind("rw/priv/s.sock", SOCK_STREAM);
	cr_assert_eq(chown(priv, 65534, 65534), 0);
	/* Without the filter, the kernel refuses the command itself. */
	cr_assert_eq(bw_run(capless, NULL, BW_BARE), 0);
	cr_assert_eq(w.seen->err[0], EACCES);
	cr_assert_eq(bw_run(capless, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], EACCES);
	cr_assert_eq(bw_accepted(l, NULL, 0), 0);
	/* The twin: the directory open to all, the broker reaches it. */
	cr_assert_eq(chmod(priv, 0755), 0);
	cr_assert_eq(bw_run(capless, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], 0, "%s", strerror(w.seen->err[0]));
	cr_assert_eq(bw_accepted(l, NULL, 0), 1);
	close(l);
}

/* sendmmsg: two datagrams to rw/d.sock, then one to rw and one to
 * none: the count sent, each msg_len written back. */
static void mmsg(void *arg)
{
	char rw[PATH_BUF], none[PATH_BUF];
	struct sockaddr_un a[2];
	struct iovec iov[2] = { { "first", 5 }, { "second", 6 } };
	struct mmsghdr v[2];
	int d = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	(void)arg;
	bw_path(rw, "rw/d.sock");
	bw_path(none, "none/d.sock");
	for (int round = 0; round < 2; round++) {
		memset(v, 0, sizeof(v));
		for (int i = 0; i < 2; i++) {
			v[i].msg_hdr.msg_name = &a[i];
			v[i].msg_hdr.msg_namelen =
				bw_addr(&a[i], round && i ? none : rw);
			v[i].msg_hdr.msg_iov = &iov[i];
			v[i].msg_hdr.msg_iovlen = 1;
		}
		bw_note(syscall(SYS_sendmmsg, d, v, 2, 0));
		w.seen->err[10 + 2 * round] = (int)v[0].msg_len;
		w.seen->err[11 + 2 * round] = (int)v[1].msg_len;
	}
}

Test(broker, sendmmsg_sends_what_is_allowed_and_counts_it)
{
	int good = bw_bind("rw/d.sock", SOCK_DGRAM);
	int bad = bw_bind("none/d.sock", SOCK_DGRAM);
	char buf[16] = "";

	cr_assert_eq(bw_run(mmsg, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->ok, 2);
	cr_assert_eq(w.seen->err[10], 5);
	cr_assert_eq(w.seen->err[11], 6);
	cr_assert_eq(w.seen->err[12], 5);
	cr_assert_eq(w.seen->err[13], 0, "the refused one has no length");
	cr_assert_eq(recv(good, buf, sizeof(buf), MSG_DONTWAIT), 5);
	cr_assert_eq(memcmp(buf, "first", 5), 0);
	cr_assert_eq(recv(good, buf, sizeof(buf), MSG_DONTWAIT), 6);
	cr_assert_eq(memcmp(buf, "second", 6), 0);
	cr_assert_eq(bw_received(good), 1);
	cr_assert_eq(bw_received(bad), 0);
	cr_assert_eq(w.records, 1);
	close(good);
	close(bad);
}

static int abstract_addr(struct sockaddr_un *sun)
{
	static const char name[] = "cordon-broker-test";

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path + 1, name, sizeof(name) - 1);
	return (int)(offsetof(struct sockaddr_un, sun_path) + sizeof(name));
}

static void abstract(void *arg)
{
	struct sockaddr_un sun;
	int len = abstract_addr(&sun);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	(void)arg;
	bw_note(syscall(SYS_connect, s, &sun, len));
}

Test(broker, an_abstract_socket_is_refused_as_landlocks_scope_does)
{
	struct sockaddr_un sun;
	int len = abstract_addr(&sun);
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	cr_assert_eq(bind(l, (struct sockaddr *)&sun, (socklen_t)len), 0);
	cr_assert_eq(listen(l, 8), 0);
	cr_assert_eq(bw_run(abstract, NULL, BW_SERVED), 0);
	cr_assert_eq(w.seen->err[0], EPERM);
	cr_assert_eq(bw_accepted(l, NULL, 0), 0);
	cr_assert_eq(bw_run(abstract, NULL, BW_BARE), 0);
	cr_assert_eq(w.seen->err[0], 0);
	cr_assert_eq(bw_accepted(l, NULL, 0), 1);
	close(l);
}

static volatile sig_atomic_t pipes;

static void on_pipe(int sig)
{
	(void)sig;
	pipes++;
}

/* sendmsg on a stream whose peer is gone: EPIPE, and SIGPIPE to the
 * command (not to the supervisor), as without the broker. */
static void broken_pipe(void *arg)
{
	struct iovec iov = { "x", 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int sp[2];

	(void)arg;
	signal(SIGPIPE, on_pipe);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp))
		_exit(96);
	close(sp[1]);
	bw_note(syscall(SYS_sendmsg, sp[0], &m, 0));
	bw_note(syscall(SYS_sendmsg, sp[0], &m, MSG_NOSIGNAL));
	for (int i = 0; i < 1000 && pipes < 1; i++)
		usleep(1000); /* a process signal: it may come a bit later */
	w.seen->err[10] = pipes;
}

Test(broker, a_broken_pipe_signals_the_command_not_the_supervisor)
{
	for (int mode = BW_BARE; mode <= BW_SERVED; mode++) {
		cr_assert_eq(bw_run(broken_pipe, NULL, (enum bw_mode)mode), 0);
		cr_assert_eq(w.seen->err[0], EPIPE);
		cr_assert_eq(w.seen->err[1], EPIPE);
		cr_assert_eq(w.seen->err[10], 1, "mode %d: %d SIGPIPE", mode,
			     w.seen->err[10]);
	}
}
