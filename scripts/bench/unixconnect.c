/*
 * unixconnect.c - what the UNIX-socket broker (enforce/broker/broker_loop.c)
 * costs a program that connects to an allowed socket in a loop (a local
 * database client), and one that sends datagrams with sendmsg().
 *
 *   unixconnect [COUNT]
 *
 * Binds a stream listener (accepted and closed by a thread) and a
 * datagram receiver (drained by a thread) in a fresh directory under
 * /tmp, then in a child: COUNT connect+close, COUNT sendmsg of 64 bytes,
 * COUNT sendto of 64 bytes with the address (as the shim sends its
 * records), COUNT write of 64 bytes on a connected datagram socket;
 * bare, under an allow-all seccomp filter (what cordon's own filter
 * already costs), and with the broker's filter stacked on it, served by
 * this process (the directory writable in the policy).  Then what the
 * broker adds with the network shared (the filter as --connect or
 * --bind installs it: bind() and listen() handed over too): COUNT
 * bind() (an autobind) and close of a datagram socket, COUNT
 * connect+close to a listener the child bound itself in a temp dir
 * shared with the host (/tmp, granted as cordon's default root), and to
 * one it bound at an abstract name.  Prints the median of 5 rounds per
 * case, in ns per call, and the ratio broker / seccomp: what the broker
 * adds to cordon.  Never part of the tests.
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enforce/broker/broker.h"
#include "enforce/policy/policy.h"

#define ROUNDS 5

static struct sockaddr_un stream_addr, dgram_addr;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *acceptor(void *arg)
{
	int l = *(int *)arg, c;

	while ((c = accept(l, NULL, NULL)) >= 0)
		close(c);
	return NULL;
}

static void *drainer(void *arg)
{
	int d = *(int *)arg;
	char buf[256];

	while (recv(d, buf, sizeof(buf), 0) >= 0)
		;
	return NULL;
}

#define CASES 7

/* The child's own listeners, for the cases with the network shared. */
static struct sockaddr_un own_addr, abs_addr;
static socklen_t abs_len;

/* connect+close @count times to @a (@len), its listener @l accepted by
 * a thread; ns per call, or -1. */
static double connects(long count, int l, const struct sockaddr_un *a,
		       socklen_t len)
{
	pthread_t t;
	double t0;

	if (l < 0 || listen(l, 4096) || pthread_create(&t, NULL, acceptor, &l))
		return -1;
	t0 = now_ns();
	for (long i = 0; i < count; i++) {
		int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (connect(c, (const struct sockaddr *)a, len))
			_exit(7);
		close(c);
	}
	t0 = (now_ns() - t0) / (double)count;
	shutdown(l, SHUT_RDWR);
	pthread_join(t, NULL);
	close(l);
	return t0;
}

/* The cases with the network shared: bind, own socket in /tmp, own
 * abstract socket. */
static void shared_loops(long count, double out[CASES])
{
	sa_family_t fam = AF_UNIX;
	int l;
	double t = now_ns();

	for (long i = 0; i < count; i++) {
		int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		if (bind(s, (struct sockaddr *)&fam, sizeof(fam)))
			_exit(8);
		close(s);
	}
	out[4] = (now_ns() - t) / (double)count;
	unlink(own_addr.sun_path);
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (bind(l, (struct sockaddr *)&own_addr, sizeof(own_addr)))
		_exit(9);
	out[5] = connects(count, l, &own_addr, sizeof(own_addr));
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (bind(l, (struct sockaddr *)&abs_addr, abs_len))
		_exit(9);
	out[6] = connects(count, l, &abs_addr, abs_len);
	unlink(own_addr.sun_path);
}

/* In the child: the loops, ns per call into @out. */
static void loops(long count, double out[CASES])
{
	char data[64] = "0123456789";
	struct iovec iov = { data, sizeof(data) };
	struct msghdr m = { .msg_name = &dgram_addr,
			    .msg_namelen = sizeof(dgram_addr),
			    .msg_iov = &iov,
			    .msg_iovlen = 1 };
	int d = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	double t;

	t = now_ns();
	for (long i = 0; i < count; i++) {
		int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (connect(c, (struct sockaddr *)&stream_addr,
			    sizeof(stream_addr)))
			_exit(3);
		close(c);
	}
	out[0] = (now_ns() - t) / (double)count;
	t = now_ns();
	for (long i = 0; i < count; i++)
		if (sendmsg(d, &m, 0) < 0 && errno != EAGAIN)
			_exit(4);
	out[1] = (now_ns() - t) / (double)count;
	t = now_ns();
	for (long i = 0; i < count; i++)
		if (sendto(d, data, sizeof(data), 0,
			   (struct sockaddr *)&dgram_addr,
			   sizeof(dgram_addr)) < 0 &&
		    errno != EAGAIN)
			_exit(4);
	out[3] = (now_ns() - t) / (double)count;
	if (connect(s, (struct sockaddr *)&dgram_addr, sizeof(dgram_addr)))
		_exit(5);
	t = now_ns();
	for (long i = 0; i < count; i++)
		if (write(s, data, sizeof(data)) < 0 && errno != EAGAIN)
			_exit(6);
	out[2] = (now_ns() - t) / (double)count;
	close(s);
	close(d);
	shared_loops(count, out);
}

/* One round in a child, with the broker or bare. */
/* An allow-all filter: what any seccomp filter costs a process (the
 * kernel turns on its speculation mitigations for it), which cordon's
 * sysfilter.c already pays. */
static int allow_all(void)
{
	struct sock_filter f[] = { BPF_STMT(BPF_RET | BPF_K,
					    SECCOMP_RET_ALLOW) };
	struct sock_fprog prog = { 1, f };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	       syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

enum mode { BARE, FILTERED, BROKERED, NMODES };

static int round_once(long count, enum mode mode, const struct policy *p,
		      double out[CASES])
{
	struct broker *b = NULL;
	int sp[2], status, l = -1;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) ||
	    setsockopt(sp[0], SOL_SOCKET, SO_PASSCRED, &(int){ 1 },
		       sizeof(int)))
		return -1;
	pid = fork();
	if (pid == 0) {
		char err[256];

		close(sp[0]);
		if (mode != BARE && allow_all())
			_exit(2);
		if (mode == BROKERED) {
			if (broker_install(NET_PORTS, false, &l, err,
					   sizeof(err)))
				_exit(2);
			if (broker_give_listener(sp[1], l))
				_exit(2);
			close(l);
		}
		loops(count, out);
		_exit(write(sp[1], out, CASES * sizeof(double)) ==
				      CASES * sizeof(double)
			      ? 0
			      : 2);
	}
	close(sp[1]);
	if (mode == BROKERED && (broker_take_listener(sp[0], &l) ||
				 broker_start(&b, l, p, NULL, NULL)))
		return -1;
	if (read(sp[0], out, CASES * sizeof(double)) != CASES * sizeof(double))
		out[0] = -1;
	close(sp[0]);
	waitpid(pid, &status, 0);
	broker_stop(b);
	return out[0] < 0 || !WIFEXITED(status) || WEXITSTATUS(status) ? -1 : 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int bind_at(struct sockaddr_un *a, const char *dir, const char *name,
		   int type)
{
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (snprintf(a->sun_path, sizeof(a->sun_path), "%s/%s", dir, name) >=
	    (int)sizeof(a->sun_path))
		return -1;
	if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof(*a)))
		return -1;
	if (type == SOCK_STREAM && listen(fd, 4096))
		return -1;
	return fd;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"connect+close",
		"sendmsg 64 B (dgram, address)",
		"write 64 B (dgram, connected)",
		"sendto 64 B (dgram, address)",
		"bind (autobind), net shared",
		"connect+close, own in /tmp, net shared",
		"connect+close, own abstract, net shared",
	};
	static struct policy p;
	long count = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	char dir[] = "/tmp/cordon-bench-XXXXXX";
	char shared[] = "/tmp/cordon-bench-shared-XXXXXX";
	double r[NMODES][CASES][ROUNDS];
	pthread_t t1, t2;
	int l, d;

	if (count <= 0 || !mkdtemp(dir) || !mkdtemp(shared))
		return 125;
	own_addr.sun_family = AF_UNIX;
	snprintf(own_addr.sun_path, sizeof(own_addr.sun_path), "%s/own.sock",
		 shared);
	abs_addr.sun_family = AF_UNIX;
	snprintf(abs_addr.sun_path + 1, sizeof(abs_addr.sun_path) - 1,
		 "cordon-bench-%d", (int)getpid());
	abs_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			      strlen(abs_addr.sun_path + 1));
	l = bind_at(&stream_addr, dir, "s.sock", SOCK_STREAM);
	d = bind_at(&dgram_addr, dir, "d.sock", SOCK_DGRAM);
	if (l < 0 || d < 0 ||
	    policy_add_root(&p, dir, RIGHT_R | RIGHT_W, ORIGIN_USER, true) ||
	    policy_add_root(&p, "/tmp", RIGHT_R | RIGHT_W, ORIGIN_DEFAULT,
			    true))
		return 125;
	p.net = NET_PORTS;
	pthread_create(&t1, NULL, acceptor, &l);
	pthread_create(&t2, NULL, drainer, &d);
	for (int i = 0; i < ROUNDS; i++)
		for (int k = 0; k < NMODES; k++) {
			double out[CASES];

			if (round_once(count, k, &p, out)) {
				fprintf(stderr, "unixconnect: round failed\n");
				return 1;
			}
			for (int c = 0; c < CASES; c++)
				r[k][c][i] = out[c];
		}
	printf("%-40s %9s %9s %9s %7s\n", "ns per call (median of 5)", "bare",
	       "seccomp", "broker", "ratio");
	for (int c = 0; c < CASES; c++) {
		double m[NMODES];

		for (int k = 0; k < NMODES; k++) {
			qsort(r[k][c], ROUNDS, sizeof(double), cmp);
			m[k] = r[k][c][ROUNDS / 2];
		}
		printf("%-40s %9.0f %9.0f %9.0f %7.2f\n", names[c], m[BARE],
		       m[FILTERED], m[BROKERED], m[BROKERED] / m[FILTERED]);
	}
	unlink(stream_addr.sun_path);
	unlink(dgram_addr.sun_path);
	rmdir(dir);
	rmdir(shared);
	return 0;
}
