/*
 * broker_fixture.h - the world the broker's tests run in: a tree under
 * /tmp (none/ granted nothing, ro/ read, rw/ read and write, u/
 * --connect-unix), listeners bound there from outside, and a child that
 * installs the broker's filter, sends its listener out and makes raw
 * system calls (no shim), with the broker served by the test process.
 */
#ifndef CORDON_TEST_BROKER_FIXTURE_H
#define CORDON_TEST_BROKER_FIXTURE_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/broker/broker.h"
#include "enforce/policy/policy.h"
#include "shim/core/path.h"
#include "tmptree.h"

/* What the child saw, shared with the test process. */
struct broker_seen {
	int err[512]; /* 0 or the errno of each call, in order */
	int n;
	int ok; /* calls that succeeded */
};

static struct {
	char dir[PATH_BUF];
	struct policy p;
	struct broker_seen *seen;
	int records;
	json_t *last; /* the last record */
} w;

static void bw_setup(void)
{
	static const char *const sub[] = { "none", "ro", "rw", "u" };
	static const unsigned int rights[] = { 0, RIGHT_R, RIGHT_R | RIGHT_W,
					       RIGHT_U };
	char tmpl[] = "/tmp/cordon-broker-XXXXXX", path[PATH_BUF];

	memset(&w.p, 0, sizeof(w.p));
	cr_assert(mkdtemp(tmpl));
	cr_assert(realpath(tmpl, w.dir));
	for (size_t i = 0; i < 4; i++) {
		cr_assert(snprintf(path, sizeof(path), "%s/%s", w.dir, sub[i]) <
			  (int)sizeof(path));
		cr_assert_eq(mkdir(path, 0755), 0);
		if (rights[i])
			cr_assert_eq(policy_add_root(&w.p, path, rights[i],
						     ORIGIN_USER, true),
				     0);
	}
	w.p.net = NET_PORTS;
	w.seen = mmap(NULL, sizeof(*w.seen), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert(w.seen != MAP_FAILED);
	w.records = 0;
	w.last = NULL;
}

static void bw_teardown(void)
{
	tmptree_remove(w.dir);
	w.dir[0] = '\0';
	policy_free(&w.p);
	memset(&w.p, 0, sizeof(w.p));
	if (w.seen)
		munmap(w.seen, sizeof(*w.seen));
	w.seen = NULL;
	json_decref(w.last);
	w.last = NULL;
}

/* @rel under the tree, in @out (PATH_BUF). */
static char *bw_path(char *out, const char *rel)
{
	cr_assert(snprintf(out, PATH_BUF, "%s/%s", w.dir, rel) < PATH_BUF);
	return out;
}

static socklen_t bw_addr(struct sockaddr_un *sun, const char *path)
{
	size_t n = strlen(path);

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (n >= sizeof(sun->sun_path))
		n = sizeof(sun->sun_path) - 1; /* the test's paths are short */
	memcpy(sun->sun_path, path, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			   strlen(sun->sun_path) + 1);
}

/* A non-blocking listener (stream) or receiver (datagram) at @rel. */
static int bw_bind(const char *rel, int type)
{
	struct sockaddr_un sun;
	char path[PATH_BUF];
	socklen_t len = bw_addr(&sun, bw_path(path, rel));
	int fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	cr_assert(fd >= 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sun, len), 0, "bind %s",
		     path);
	if (type == SOCK_STREAM)
		cr_assert_eq(listen(fd, 1024), 0);
	return fd;
}

/* Connections waiting at @lfd, each accepted and closed; the bytes the
 * first one sent in @buf (@len), when @buf. */
static int bw_accepted(int lfd, char *buf, size_t len)
{
	int n = 0, c;

	while ((c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		if (buf && n == 0) {
			ssize_t got = read(c, buf, len - 1);

			buf[got > 0 ? got : 0] = '\0';
		}
		close(c);
		n++;
	}
	cr_assert_eq(errno, EAGAIN);
	return n;
}

/* Datagrams waiting at @fd. */
static inline int bw_received(int fd)
{
	char buf[64];
	int n = 0;

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		n++;
	return n;
}

/* In the child: note the result of a raw call. */
static long bw_note(long ret)
{
	struct broker_seen *s = w.seen;

	if (s->n < (int)(sizeof(s->err) / sizeof(s->err[0])))
		s->err[s->n++] = ret < 0 ? errno : 0;
	if (ret >= 0)
		s->ok++;
	return ret;
}

/* Raw calls: no libc wrapper that a shim could interpose. */
static long bw_connect(int fd, const char *path)
{
	struct sockaddr_un sun;
	socklen_t len = bw_addr(&sun, path);

	return syscall(SYS_connect, fd, &sun, len);
}

static inline long bw_sendto(int fd, const void *buf, size_t n,
			     const char *path)
{
	struct sockaddr_un sun;
	socklen_t len = bw_addr(&sun, path);

	return syscall(SYS_sendto, fd, buf, n, 0, &sun, len);
}

static void bw_record(void *arg, json_t *rec)
{
	(void)arg;
	w.records++;
	json_decref(w.last);
	w.last = rec;
}

enum bw_mode {
	BW_BARE,   /* no filter: the twin without the sandbox */
	BW_SERVED, /* the filter, the broker serving it */
	BW_CLOSED, /* the filter, its listener closed: no broker */
};

/* Run @fn in a child under @mode; its exit status, or -1. */
static int bw_run(void (*fn)(void *), void *arg, enum bw_mode mode)
{
	struct broker *b = NULL;
	int sp[2], status, l;
	pid_t pid;

	memset(w.seen, 0, sizeof(*w.seen));
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	cr_assert_eq(setsockopt(sp[0], SOL_SOCKET, SO_PASSCRED, &(int){ 1 },
				sizeof(int)),
		     0);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		char err[256];

		close(sp[0]);
		if (mode != BW_BARE) {
			if (broker_install(w.p.net, false, &l, err,
					   sizeof(err)))
				_exit(90);
			if (broker_give_listener(sp[1], l))
				_exit(91);
			close(l);
		}
		close(sp[1]);
		fn(arg);
		_exit(0);
	}
	close(sp[1]);
	if (mode != BW_BARE) {
		cr_assert_eq(broker_take_listener(sp[0], &l), 0,
			     "no listener from the child");
		if (mode == BW_SERVED)
			cr_assert_eq(broker_start(&b, l, &w.p, bw_record, NULL),
				     0);
		else
			close(l);
	}
	close(sp[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	broker_stop(b);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif
