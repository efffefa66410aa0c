/* Unit tests of the broker's deputy (enforce/broker/broker_deputy.c), on the
 * real kernel: the connect it makes names it, with no capability, to the
 * peer; once it is gone a call fails EACCES at once. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "enforce/broker/broker_deputy.h"

static char dir[] = "/tmp/deputy.XXXXXX";

static int listening(struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)ss;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	cr_assert(mkdtemp(dir));
	memset(ss, 0, sizeof(*ss));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "%s/s", dir);
	*len = sizeof(*sun);
	cr_assert(!bind(s, (struct sockaddr *)sun, *len));
	cr_assert(!listen(s, 8));
	return s;
}

/* The deputy: this process's only child. */
static pid_t deputy_pid(void)
{
	char path[64], buf[64] = "";
	FILE *f;
	int pid = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", gettid());
	f = fopen(path, "r");
	cr_assert(f);
	if (fgets(buf, sizeof(buf), f))
		pid = (int)strtol(buf, NULL, 10);
	fclose(f);
	return pid;
}

static unsigned long long capeff(pid_t pid)
{
	char path[64], line[256];
	unsigned long long v = ~0ull;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	cr_assert(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			v = strtoull(line + 7, NULL, 16);
	fclose(f);
	return v;
}

Test(broker_deputy, the_peer_sees_the_deputy_without_capabilities)
{
	struct sockaddr_storage ss;
	socklen_t len, cl = sizeof(struct ucred);
	struct ucred uc;
	struct broker_deputy *d = broker_deputy_start();
	int l = listening(&ss, &len), s, a;
	char path[sizeof(struct sockaddr_storage)];

	cr_assert(d);
	snprintf(path, sizeof(path), "%s",
		 ((struct sockaddr_un *)&ss)->sun_path);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_eq(broker_deputy_connect(d, s, &ss, len, -1), 0);
	a = accept(l, NULL, NULL);
	cr_assert(a >= 0);
	cr_assert(!getsockopt(a, SOL_SOCKET, SO_PEERCRED, &uc, &cl));
	cr_assert_eq(uc.pid, deputy_pid());
	cr_assert_neq(uc.pid, getpid());
	cr_assert_eq(uc.uid, getuid());
	cr_assert_eq(capeff(uc.pid), 0);
	/* the listen() it makes is its own too: its clients see the deputy */
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	len = sizeof(sa_family_t);
	cr_assert(!bind(s, (struct sockaddr *)&ss, len)); /* autobind */
	len = sizeof(ss);
	cr_assert(!getsockname(s, (struct sockaddr *)&ss, &len));
	cr_assert_eq(broker_deputy_listen(d, s, 4), 0);
	a = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert(!connect(a, (struct sockaddr *)&ss, len));
	cr_assert(!getsockopt(a, SOL_SOCKET, SO_PEERCRED, &uc, &cl));
	cr_assert_eq(uc.pid, deputy_pid());
	broker_deputy_stop(d);
	unlink(path);
	rmdir(dir);
}

Test(broker_deputy, gone_fails_eacces_without_waiting)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct broker_deputy *d = broker_deputy_start();
	int l = listening(&ss, &len), s;
	pid_t pid;

	cr_assert(d);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_eq(broker_deputy_connect(d, s, &ss, len, -1), 0);
	pid = deputy_pid();
	cr_assert(pid > 0);
	cr_assert(!kill(pid, SIGKILL));
	alarm(10); /* a wait fails the test */
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_eq(broker_deputy_connect(d, s, &ss, len, -1), -EACCES);
	cr_assert_eq(broker_deputy_connect(d, s, &ss, len, -1), -EACCES);
	alarm(0);
	broker_deputy_stop(d);
	close(l);
	unlink(((struct sockaddr_un *)&ss)->sun_path);
	rmdir(dir);
}
