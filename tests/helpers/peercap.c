/*
 * peercap.c - what a UNIX peer outside learns of who connected to it,
 * by system calls alone (linked static: no shim), for t_deputy_broker.sh.
 *
 *   peercap listen PATH OUT SECONDS  outside: listen on a stream socket
 *                                    at PATH, accept one connection,
 *                                    write "pid=P uid=U capeff=HEX" to
 *                                    OUT (SO_PEERCRED, then CapEff in
 *                                    /proc/P/status, as sd_bus reads
 *                                    a sender's capabilities), close it
 *   peercap connect PATH             connect to PATH and wait for the
 *                                    listener to close (so the pid it
 *                                    reads is alive); print "ok" or
 *                                    "fail ENAME"
 *   peercap ask PATH OUT             connect to PATH and write what
 *                                    SO_PEERCRED names (the task that
 *                                    called listen()) to OUT, as above
 *
 * Exit 0 on success, 1 on a failure, 2 on usage.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int addr(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path))
		return -1;
	memcpy(sun->sun_path, path, strlen(path) + 1);
	return 0;
}

/* CapEff of @pid as /proc shows it, in @out; "?" when unread. */
static void capeff(pid_t pid, char *out, size_t n)
{
	char path[64], line[256];
	FILE *f;

	snprintf(out, n, "?");
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, n, "%s",
				 line + 7 + strspn(line + 7, "\t "));
			break;
		}
	fclose(f);
}

/* "pid=P uid=U capeff=HEX" of @fd's peer, to @outpath. */
static int record(int fd, const char *outpath)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	char cap[64];
	FILE *out;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len)) {
		perror("peercap SO_PEERCRED");
		return 1;
	}
	capeff(uc.pid, cap, sizeof(cap));
	out = fopen(outpath, "w");
	if (!out) {
		perror(outpath);
		return 1;
	}
	fprintf(out, "pid=%d uid=%u capeff=%s\n", (int)uc.pid,
		(unsigned int)uc.uid, cap);
	fclose(out);
	return 0;
}

static int do_listen(const char *path, const char *outpath, int secs)
{
	struct sockaddr_un sun;
	struct pollfd p;
	int s, c;

	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || addr(path, &sun) ||
	    bind(s, (struct sockaddr *)&sun, sizeof(sun)) || listen(s, 4)) {
		perror("peercap listen");
		return 1;
	}
	chmod(path, 0777);
	p.fd = s;
	p.events = POLLIN;
	if (poll(&p, 1, secs * 1000) != 1) {
		fprintf(stderr, "peercap: no connection\n");
		return 1;
	}
	c = accept(s, NULL, NULL);
	if (c < 0 || record(c, outpath))
		return 1;
	close(c);
	close(s);
	return 0;
}

static int do_ask(const char *path, const char *outpath)
{
	struct sockaddr_un sun;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	if (s < 0 || addr(path, &sun) ||
	    connect(s, (struct sockaddr *)&sun, sizeof(sun))) {
		printf("fail %s\n", strerrorname_np(errno));
		return 1;
	}
	return record(s, outpath);
}

static int do_connect(const char *path)
{
	struct sockaddr_un sun;
	struct pollfd p;
	char b;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	if (s < 0 || addr(path, &sun) ||
	    connect(s, (struct sockaddr *)&sun, sizeof(sun))) {
		printf("fail %s\n", strerrorname_np(errno));
		return 1;
	}
	p.fd = s;
	p.events = POLLIN;
	if (poll(&p, 1, 10000) == 1)
		(void)!read(s, &b, 1);
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "listen"))
		return do_listen(argv[2], argv[3],
				 (int)strtol(argv[4], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "ask"))
		return do_ask(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "connect"))
		return do_connect(argv[2]);
	fprintf(stderr, "usage: peercap listen PATH OUT SECONDS | "
			"peercap connect PATH | peercap ask PATH OUT\n");
	return 2;
}
