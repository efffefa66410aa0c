/*
 * broker_hold.c - the calls the broker makes on sockets the command
 * owns, with the network shared (broker_own.c says how a socket is
 * known for the command's): a bind() noted, then made by the kernel; a
 * listen() checked against the TCP ports allowed; a connect() or send
 * to an abstract name made while the socket checked is held, so that
 * the name stays that socket's until the call is made.
 *
 * listen(), with TCP ports allowed: Landlock checks the port bind()
 * gives, not the ephemeral one listen() takes for a socket with none,
 * nor the one a failed connect() left it.  The broker refuses those
 * (policy_listen_allowed()) and performs the others on the command's
 * socket: never CONTINUE, since a dup2() could put an unbound socket
 * under the number between the check and the kernel's listen().
 *
 * Runs in the broker's worker threads.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "enforce/broker/broker_deputy.h"
#include "enforce/broker/broker_int.h"

long broker_bind(const struct broker_call *c)
{
	struct broker_own *o = broker_own_of(c->b);
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	pid_t tid = (pid_t)c->n->pid;
	int fd = (int)c->n->data.args[0];
	uint64_t cookie;

	/* Unbound: the address is its family alone. */
	if (o && !getsockname(c->sock, (struct sockaddr *)&ss, &len) &&
	    ss.ss_family == AF_UNIX && len <= sizeof(sa_family_t) &&
	    broker_own_cookie(c->sock, &cookie))
		broker_own_add(o, cookie, tid, fd);
	return BROKER_CONTINUE;
}

/* "ADDR:PORT" of @ss, for the record. */
static void put_dest(const struct sockaddr_storage *ss, unsigned int port,
		     char *out, size_t n)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
			  a, sizeof(a));
	else
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)ss)->sin6_addr, a,
			  sizeof(a));
	snprintf(out, n, ss->ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", a,
		 port);
}

/* Is the socket listening already (listen() again only changes its
 * backlog: an inherited one, as socket activation passes them)? */
static bool accepting(int fd)
{
	int on = 0;
	socklen_t len = sizeof(on);

	return !getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) && on;
}

long broker_listen(const struct broker_call *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	unsigned int port;

	memset(&ss, 0, sizeof(ss));
	if (getsockname(c->sock, (struct sockaddr *)&ss, &len) ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6))
		goto listen;
	port = ntohs(ss.ss_family == AF_INET
			     ? ((struct sockaddr_in *)&ss)->sin_port
			     : ((struct sockaddr_in6 *)&ss)->sin6_port);
	/* SO_ACCEPTCONN asked only when the port alone does not do */
	if (broker_may_listen(c->b, port, false) ||
	    broker_may_listen(c->b, port, accepting(c->sock)))
		goto listen;
	c->denial->op = "listen";
	put_dest(&ss, port, c->denial->dest, sizeof(c->denial->dest));
	return -EACCES;
listen:
	/* A UNIX listener's clients see the credentials of the task that
	 * called listen(): the deputy's, not the supervisor's. */
	if (ss.ss_family == AF_UNIX)
		return broker_deputy_listen(broker_deputy_of(c->b), c->sock,
					    (int)c->n->data.args[1]);
	return listen(c->sock, (int)c->n->data.args[1]) ? -errno : 0;
}
/* How often a call to a socket held waits before the name is checked
 * again (see above), in ms. */
#define HOLD_CHECK_MS 100

static _Thread_local volatile sig_atomic_t rung;

static void ring(int sig)
{
	(void)sig;
	rung = 1;
}

static int hold_signal(void)
{
	return SIGRTMIN + 3;
}

/* Once per process: the signal interrupts (no SA_RESTART), unblocked
 * only in a broker thread waiting in a held call. */
static void hold_setup(void)
{
	struct sigaction sa = { .sa_handler = ring };

	sigemptyset(&sa.sa_mask);
	sigaction(hold_signal(), &sa, NULL);
}

static bool is_abstract(const struct sockaddr_storage *ss, socklen_t len)
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)ss;

	return ss->ss_family == AF_UNIX &&
	       len > offsetof(struct sockaddr_un, sun_path) &&
	       sun->sun_path[0] == '\0';
}

/* Make @call while the abstract name of @ss is held in *@pin; see the
 * head of this file.  Return: @call's result, or -errno. */
static long hold(const struct broker_call *c, const struct sockaddr_storage *ss,
		 socklen_t len, int *pin,
		 long (*call)(const struct broker_call *c, void *arg),
		 void *arg)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const struct sockaddr_un *sun = (const struct sockaddr_un *)ss;
	struct itimerspec it = { .it_value.tv_nsec = HOLD_CHECK_MS * 1000000L,
				 .it_interval.tv_nsec =
					 HOLD_CHECK_MS * 1000000L };
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID,
			       .sigev_signo = hold_signal() };
	struct timespec zero = { 0, 0 };
	sigset_t set;
	timer_t t;
	long ret;

	if (*pin < 0 || !is_abstract(ss, len))
		return call(c, arg);
	pthread_once(&once, hold_setup);
	ev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &ev, &t))
		return call(c, arg); /* unbounded, as before */
	sigemptyset(&set);
	sigaddset(&set, hold_signal());
	timer_settime(t, 0, &it, NULL);
	for (;;) {
		rung = 0;
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		ret = call(c, arg);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		if (ret != -EINTR || !rung)
			break;
		/* Let go first: the command's socket ends now if it let go
		 * too, and the name is checked as it is. */
		close(*pin);
		*pin = broker_call_valid(c)
			       ? broker_own_abstract(
					 broker_own_of(c->b), (pid_t)c->n->pid,
					 sun->sun_path,
					 len - offsetof(struct sockaddr_un,
							sun_path))
			       : -ENOENT;
		if (*pin < 0) {
			ret = *pin;
			break;
		}
	}
	timer_delete(t);
	while (sigtimedwait(&set, NULL, &zero) > 0)
		;
	return ret;
}

struct connect_arg {
	const struct sockaddr_storage *ss;
	socklen_t len;
};

static long connect_call(const struct broker_call *c, void *arg)
{
	const struct connect_arg *a = arg;

	return connect(c->sock, (const struct sockaddr *)a->ss, a->len) ? -errno
									: 0;
}

long broker_connect_held(const struct broker_call *c,
			 const struct sockaddr_storage *ss, socklen_t len,
			 int *pin)
{
	struct connect_arg a = { ss, len };

	/* A UNIX peer reads the connecting task's credentials: the deputy
	 * connects (a pathname through the socket file's descriptor, *@pin).
	 * An abstract name held (the network shared) is connected here: the
	 * hold's timer interrupts this thread's call (broker.h). */
	if (ss->ss_family == AF_UNIX && !is_abstract(ss, len))
		return broker_deputy_connect(broker_deputy_of(c->b), c->sock,
					     ss, len, *pin);
	if (ss->ss_family == AF_UNIX && *pin < 0)
		return broker_deputy_connect(broker_deputy_of(c->b), c->sock,
					     ss, len, -1);
	return hold(c, ss, len, pin, connect_call, &a);
}

struct send_arg {
	const struct msghdr *m;
	int flags;
};

static long send_call(const struct broker_call *c, void *arg)
{
	const struct send_arg *a = arg;
	ssize_t sent = broker_send(c, a->m, a->flags);

	return sent < 0 ? -errno : (long)sent;
}

ssize_t broker_send_held(const struct broker_call *c, const struct msghdr *m,
			 int flags, int *pin)
{
	struct send_arg a = { m, flags };
	long ret = hold(c, m->msg_name, m->msg_namelen, pin, send_call, &a);

	if (ret < 0)
		errno = (int)-ret;
	return ret < 0 ? -1 : (ssize_t)ret;
}
