/*
 * sessioncost.c - what a command costs in a session (issue 20).
 *
 *   sessioncost CORDON [CALLS [OPTION...]]
 *
 * Starts a session (`CORDON session start --json -q OPTION...`), then, in
 * rounds that interleave the three, times each call of /bin/true: bare
 * posix_spawn + waitpid of /bin/true by this program run       posix_spawn +
 * waitpid of `CORDON run --session ID -- /bin/true` protocol  this program
 * speaking the session protocol itself: connect, one request line with
 * descriptors 0, 1, 2 (on /dev/null), read to {"exit": ...} and prints one line
 * per way, "NAME MEDIAN_US", medians of every call (the host takes the CPU away
 * in bursts: a median, not a mean). The session is stopped at the end.  Exit 1
 * when something failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 20
/* a writable copy of a literal, for an argv */
#define W(s) ((char[]){ s })

extern char **environ;

static posix_spawn_file_actions_t quiet;

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int spawn_wait(char *const argv[])
{
	pid_t pid;
	int st;

	if (posix_spawn(&pid, argv[0], &quiet, NULL, argv, environ))
		return -1;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* `cordon session start --json`: the id and the socket. */
static int start(const char *cordon, char **opts, char *id, char *sock)
{
	char buf[8192], *p;
	size_t len = 0;
	ssize_t n;
	int fds[2];
	pid_t pid;
	posix_spawn_file_actions_t fa;
	char *argv[16] = { (char *)cordon, W("session"), W("start"),
			   W("--json"), W("-q") };

	for (int i = 0; opts && opts[i] && i < 10; i++)
		argv[5 + i] = opts[i];

	if (pipe(fds))
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	if (posix_spawn(&pid, cordon, &fa, NULL, argv, environ))
		return -1;
	close(fds[1]);
	while (len < sizeof(buf) - 1 &&
	       (n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(fds[0]);
	waitpid(pid, NULL, 0);
	p = strstr(buf, "\"id\":\"");
	if (!p || sscanf(p + 6, "%16[0-9a-f]", id) != 1)
		return -1;
	p = strstr(buf, "\"socket\":\"");
	if (!p || sscanf(p + 10, "%107[^\"]", sock) != 1)
		return -1;
	return 0;
}

/* One call over the protocol; the status, or -1. */
static int protocol(const char *sock, int null)
{
	static const char req[] = "{\"op\":\"run\",\"argv\":[\"/bin/true\"],"
				  "\"cwd\":\"/tmp\",\"env\":{}}\n";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char cbuf[CMSG_SPACE(3 * sizeof(int))] = { 0 }, buf[4096];
	struct iovec iov = { (void *)req, sizeof(req) - 1 };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int fds[3] = { null, null, null }, fd, st = -1;
	size_t len = 0;
	ssize_t n;
	char *e;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto out;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) != (ssize_t)iov.iov_len)
		goto out;
	while (len < sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
		len += (size_t)n;
		buf[len] = '\0';
		e = strstr(buf, "\"exit\":");
		if (e) {
			st = (int)strtol(e + 7, NULL, 10);
			break;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	return st;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	char id[17], sock[108];
	int calls = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 50, bad = 0;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	double *t[3];
	size_t n = 0;

	if (argc < 2 || calls <= 0 || null < 0) {
		fprintf(stderr, "usage: sessioncost CORDON [CALLS]\n");
		return 2;
	}
	posix_spawn_file_actions_init(&quiet);
	posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
	if (start(argv[1], argc > 3 ? argv + 3 : NULL, id, sock)) {
		fprintf(stderr, "sessioncost: the session did not start\n");
		return 1;
	}
	for (int i = 0; i < 3; i++)
		t[i] = calloc((size_t)ROUNDS * (size_t)calls, sizeof(double));
	char *bare[] = { W("/bin/true"), NULL };
	char *run[] = { argv[1],	W("run"), W("--session"), id, W("--"),
			W("/bin/true"), NULL };
	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < calls; k++, n++)
			for (int j = 0; j < 3; j++) {
				int w = (j + r) % 3, st;
				double t0 = now_us();

				st = w == 0   ? spawn_wait(bare)
				     : w == 1 ? spawn_wait(run)
					      : protocol(sock, null);
				t[w][n] = now_us() - t0;
				bad |= st != 0;
			}
	char *stop[] = { argv[1], W("session"), W("stop"), id, NULL };
	spawn_wait(stop);
	if (bad) {
		fprintf(stderr, "sessioncost: a call failed\n");
		return 1;
	}
	printf("bare %.1f\n", median(t[0], n));
	printf("run %.1f\n", median(t[1], n));
	printf("protocol %.1f\n", median(t[2], n));
	return 0;
}
