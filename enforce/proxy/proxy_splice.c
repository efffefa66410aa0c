/*
 * proxy_splice.c - an established tunnel of the egress proxy moved by
 * splice(2) through a pipe each way: the bytes never enter the proxy's
 * memory, the pipe (PIPE_CAP) is the only buffer and its fill is the
 * backpressure.  Taken over from the bufferevents once what they hold is
 * written (tunnel_splice()); when it cannot be (a pipe refused, bytes
 * still queued), the bufferevent tunnel of proxy_conn.c goes on.
 *
 * Why: through bufferevents each byte is copied into the proxy and out
 * again, and libevent reads a few KB per wake-up; on loopback that was
 * a sixth of a direct transfer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "enforce/proxy/proxy_int.h"

#define PIPE_CAP     (1024 * 1024)
#define SPLICE_FLAGS (SPLICE_F_MOVE | SPLICE_F_NONBLOCK)

/* Write what the input @buf holds to @fd now (a bufferevent's output
 * cannot be drained from outside it: libevent freezes its start).
 * Return: is it all out? */
static bool flush_now(struct evbuffer *buf, int fd)
{
	while (evbuffer_get_length(buf))
		if (evbuffer_write(buf, fd) <= 0)
			return false;
	return true;
}

static bool is_done(const struct conn *c)
{
	return c->dir[0].eof && c->dir[1].eof && !c->dir[0].pending &&
	       !c->dir[1].pending;
}

/* Move what the pipe of @d holds to its destination.  Return: 0, or -1
 * when the connection was freed. */
static int push(struct conn *c, struct splice_dir *d)
{
	ssize_t n;

	while (d->pending) {
		n = splice(d->pipe[0], NULL, d->dst, NULL, d->pending,
			   SPLICE_FLAGS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			event_add(d->out_ev, NULL);
			return 0;
		}
		if (n <= 0) {
			conn_free(c);
			return -1;
		}
		d->pending -= (size_t)n;
	}
	event_del(d->out_ev);
	if (d->eof) {
		shutdown(d->dst, SHUT_WR);
		/* an HTTP request's answer is all the connection carries */
		if (is_done(c) || (d == &c->dir[1] && !c->socks &&
				   c->req.kind == PROXY_HTTP)) {
			conn_free(c);
			return -1;
		}
		return 0;
	}
	event_add(d->in_ev, NULL);
	return 0;
}

static void on_in(evutil_socket_t fd, short what, void *arg)
{
	struct splice_dir *d = arg;
	struct conn *c = d->conn;
	ssize_t n;

	(void)what;
	conn_arm(c, c->px->pol.idle_ms);
	do
		n = splice(fd, NULL, d->pipe[1], NULL, PIPE_CAP - d->pending,
			   SPLICE_FLAGS);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n < 0) {
		conn_free(c);
		return;
	}
	if (n == 0) {
		d->eof = true;
		event_del(d->in_ev);
	}
	d->pending += (size_t)n;
	if (push(c, d))
		return;
	if (!d->eof && d->pending >= PIPE_CAP)
		event_del(d->in_ev);
}

static void on_out(evutil_socket_t fd, short what, void *arg)
{
	struct splice_dir *d = arg;

	(void)fd;
	(void)what;
	conn_arm(d->conn, d->conn->px->pol.idle_ms);
	push(d->conn, d);
}

static bool dir_init(struct conn *c, struct splice_dir *d, int src, int dst)
{
	d->conn = c;
	d->src = src;
	d->dst = dst;
	if (pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK)) {
		d->pipe[0] = d->pipe[1] = -1;
		return false;
	}
	fcntl(d->pipe[1], F_SETPIPE_SZ, PIPE_CAP); /* else 64 KB: fine */
	d->in_ev = event_new(c->px->base, src, EV_READ | EV_PERSIST, on_in, d);
	d->out_ev =
		event_new(c->px->base, dst, EV_WRITE | EV_PERSIST, on_out, d);
	return d->in_ev && d->out_ev;
}

bool tunnel_splice(struct conn *c)
{
	int cfd = bufferevent_getfd(c->client), ufd = bufferevent_getfd(c->up);

	if (evbuffer_get_length(bufferevent_get_output(c->client)) ||
	    evbuffer_get_length(bufferevent_get_output(c->up)) ||
	    !flush_now(bufferevent_get_input(c->client), ufd))
		return false;
	if (!dir_init(c, &c->dir[0], cfd, ufd) ||
	    !dir_init(c, &c->dir[1], ufd, cfd)) {
		tunnel_free(c);
		return false;
	}
	/* the descriptors are the splice's now: taken from the
	 * bufferevents, which then close nothing */
	c->fd[0] = cfd;
	c->fd[1] = ufd;
	bufferevent_setfd(c->client, -1);
	bufferevent_setfd(c->up, -1);
	bufferevent_free(c->client);
	bufferevent_free(c->up);
	c->client = c->up = NULL;
	event_add(c->dir[0].in_ev, NULL);
	event_add(c->dir[1].in_ev, NULL);
	conn_arm(c, c->px->pol.idle_ms);
	return true;
}
