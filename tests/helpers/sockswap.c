/*
 * sockswap.c - take the place of a socket cordon listens on, as a
 * sandboxed command sharing its directory would (linked static: no shim
 * sees it), for t_deputy_sock.sh.
 *
 *   sockswap stream CAPTURE SECONDS PATH...
 *	for up to SECONDS, wait for one of the PATHs to be a socket (or,
 *	a PATH that is a directory, to hold a socket NAME.sock); move it
 *	aside (PATH.aside) and listen in its place; take every connection
 *	until then and write to CAPTURE what came: "fds N" (descriptors
 *	received) and the bytes of its first message.
 *   sockswap dgram CAPTURE SECONDS DIR...
 *	for up to SECONDS, move every cordon-PID.sock that appears in a
 *	DIR aside (once it has been there for half a second: its run has
 *	started) and bind a datagram socket of its own in its place;
 *	append every datagram received to CAPTURE.
 *
 * Every attempt is appended to CAPTURE too ("swap PATH ok" or
 * "swap PATH fail ENAME"), so a test sees what was tried.  Exit 0.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_SWAPS 64

static FILE *cap;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *ename(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "E?";
}

/* Move @path aside and bind a socket of @type there: its fd or -1. */
static int swap(const char *path, int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char aside[sizeof(sa.sun_path) + 8];
	int fd;

	static char failed[MAX_SWAPS][sizeof(sa.sun_path)];
	static int nfailed;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	for (int i = 0; i < nfailed; i++)
		if (strcmp(failed[i], path) == 0)
			return -1; /* tried once: said once */
	snprintf(aside, sizeof(aside), "%s.aside", path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (rename(path, aside) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 8) < 0)) {
		fprintf(cap, "swap %s fail %s\n", path, ename(errno));
		fflush(cap);
		close(fd);
		if (nfailed < MAX_SWAPS)
			snprintf(failed[nfailed++], sizeof(failed[0]), "%s",
				 path);
		return -1;
	}
	fprintf(cap, "swap %s ok\n", path);
	fflush(cap);
	return fd;
}

static bool is_socket(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* What a connection brings: its descriptors counted, its bytes. */
static void take(int conn)
{
	char buf[65536], cbuf[CMSG_SPACE(16 * sizeof(int))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct pollfd p = { .fd = conn, .events = POLLIN };
	int fds = 0;
	ssize_t n;

	if (poll(&p, 1, 5000) <= 0)
		return;
	n = recvmsg(conn, &mh, 0);
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); n >= 0 && cm;
	     cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			fds += (int)((cm->cmsg_len - CMSG_LEN(0)) /
				     sizeof(int));
	fprintf(cap, "fds %d\n", fds);
	if (n > 0)
		fwrite(buf, 1, (size_t)n, cap);
	fputc('\n', cap);
	fflush(cap);
}

/* The first socket "*.sock" in the directory @dir, swapped: its fd. */
static int swap_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[128];
	int fd = -1;
	size_t n;

	while (d && fd < 0 && (e = readdir(d))) {
		n = strlen(e->d_name);
		if (n < 6 || strcmp(e->d_name + n - 5, ".sock") ||
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
			    (int)sizeof(path) ||
		    !is_socket(path))
			continue;
		fd = swap(path, SOCK_STREAM);
	}
	if (d)
		closedir(d);
	return fd;
}

static int stream(double end, char **paths, int n)
{
	struct pollfd p = { .fd = -1, .events = POLLIN };
	struct stat st;

	while (now() < end && p.fd < 0) {
		for (int i = 0; i < n && p.fd < 0; i++) {
			if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
				p.fd = swap_in(paths[i]);
			else if (is_socket(paths[i]))
				p.fd = swap(paths[i], SOCK_STREAM);
		}
		if (p.fd < 0)
			usleep(10000);
	}
	while (p.fd >= 0 && now() < end) {
		int conn;

		if (poll(&p, 1, 100) <= 0)
			continue;
		conn = accept(p.fd, NULL, NULL);
		if (conn >= 0) {
			take(conn);
			close(conn);
		}
	}
	return 0;
}

/* The report sockets of other runs in @dir: swapped once each. */
static void scan(const char *dir, struct pollfd *fds, int *nfds,
		 char seen[MAX_SWAPS][128], int *nseen)
{
	static char first[MAX_SWAPS][128];
	static double at[MAX_SWAPS];
	static int nfirst;
	int j;

	DIR *d = opendir(dir);
	struct dirent *e;
	char path[128];
	int i, pid;

	while (d && (e = readdir(d))) {
		int end = 0;

		if (sscanf(e->d_name, "cordon-%d.sock%n", &pid, &end) != 1 ||
		    e->d_name[end])
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
		    (int)sizeof(path))
			continue;
		for (i = 0; i < *nseen && strcmp(seen[i], path); i++)
			;
		if (i < *nseen || *nseen == MAX_SWAPS || *nfds == MAX_SWAPS)
			continue;
		/* once its run is under way (its sandbox made) */
		for (j = 0; j < nfirst && strcmp(first[j], path); j++)
			;
		if (j == nfirst && nfirst < MAX_SWAPS) {
			snprintf(first[nfirst], sizeof(first[0]), "%s", path);
			at[nfirst++] = now();
		}
		if (j == MAX_SWAPS || now() - at[j] < 0.5)
			continue;
		snprintf(seen[(*nseen)++], sizeof(seen[0]), "%s", path);
		fds[*nfds].fd = swap(path, SOCK_DGRAM);
		fds[*nfds].events = POLLIN;
		if (fds[*nfds].fd >= 0)
			(*nfds)++;
	}
	if (d)
		closedir(d);
}

static int dgram(double end, char **dirs, int n)
{
	static char seen[MAX_SWAPS][128];
	struct pollfd fds[MAX_SWAPS];
	int nfds = 0, nseen = 0;
	char buf[65536];

	while (now() < end) {
		for (int i = 0; i < n; i++)
			scan(dirs[i], fds, &nfds, seen, &nseen);
		if (poll(fds, (nfds_t)nfds, 10) <= 0)
			continue;
		for (int i = 0; i < nfds; i++) {
			ssize_t got;

			if (!(fds[i].revents & POLLIN))
				continue;
			got = recv(fds[i].fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (got > 0) {
				fprintf(cap, "datagram ");
				fwrite(buf, 1, (size_t)got, cap);
				fflush(cap);
			}
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	double end;

	if (argc < 5 ||
	    (strcmp(argv[1], "stream") && strcmp(argv[1], "dgram"))) {
		fprintf(stderr, "usage: sockswap stream|dgram CAPTURE SECONDS "
				"PATH...\n");
		return 2;
	}
	cap = fopen(argv[2], "a");
	if (!cap) {
		perror(argv[2]);
		return 2;
	}
	end = now() + atof(argv[3]);
	if (strcmp(argv[1], "stream") == 0)
		return stream(end, argv + 4, argc - 4);
	return dgram(end, argv + 4, argc - 4);
}
