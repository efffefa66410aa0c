/*
 * credpeer.c - ancillary data across the broker, by system calls alone
 * (linked static: no shim), for t_deputy_broker.sh.
 *
 *   credpeer recv PATH SECONDS      outside: bind a datagram socket at
 *                                   PATH with SO_PASSCRED and print, per
 *                                   datagram, "msg TEXT pid=P uid=U gid=G"
 *                                   and "fd TARGET" per descriptor, until
 *                                   "end" comes or SECONDS pass
 *   credpeer creds PATH PID UID GID  sendmsg to PATH with SCM_CREDENTIALS
 *                                   naming PID, UID, GID ("self": the
 *                                   sender's own getpid, getuid, getgid)
 *   credpeer rights PATH FROM TO    sendmsg to PATH, per number N from
 *                                   FROM to TO, an empty SCM_RIGHTS
 *                                   header then one carrying N alone,
 *                                   20 bytes long (a length CMSG_NXTHDR
 *                                   stops before, and the kernel reads)
 *   credpeer end PATH               send "end"
 *
 * A sender prints "ok" or "fail ENAME" per message; exit 0 when every
 * message went, 1 when one did not, 2 on usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
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

static void say(const char *what, int fd)
{
	char proc[64], target[256];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, target, sizeof(target) - 1);
	target[n < 0 ? 0 : n] = '\0';
	printf("%s %s\n", what, target);
	close(fd);
}

static int recv_all(const char *path, long seconds)
{
	union {
		struct cmsghdr h;
		char buf[4096];
	} ctl;
	struct sockaddr_un sun;
	time_t end = time(NULL) + seconds;
	int one = 1, s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0 || addr(path, &sun) ||
	    setsockopt(s, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&sun, sizeof(sun)))
		return 2;
	printf("listening\n");
	fflush(stdout);
	while (time(NULL) < end) {
		struct pollfd p = { .fd = s, .events = POLLIN };
		char text[256];
		struct iovec iov = { text, sizeof(text) - 1 };
		struct msghdr m = { .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = ctl.buf,
				    .msg_controllen = sizeof(ctl.buf) };
		ssize_t n;

		if (poll(&p, 1, 200) <= 0)
			continue;
		n = recvmsg(s, &m, MSG_CMSG_CLOEXEC);
		if (n < 0)
			continue;
		text[n] = '\0';
		if (!strcmp(text, "end"))
			break;
		printf("msg %s", text);
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h;
		     h = CMSG_NXTHDR(&m, h)) {
			struct ucred uc;

			if (h->cmsg_level != SOL_SOCKET)
				continue;
			if (h->cmsg_type == SCM_CREDENTIALS) {
				memcpy(&uc, CMSG_DATA(h), sizeof(uc));
				printf(" pid=%d uid=%u gid=%u", (int)uc.pid,
				       (unsigned)uc.uid, (unsigned)uc.gid);
			}
		}
		printf("\n");
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h;
		     h = CMSG_NXTHDR(&m, h))
			if (h->cmsg_level == SOL_SOCKET &&
			    h->cmsg_type == SCM_RIGHTS)
				for (size_t i = 0;
				     i <
				     (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				     i++) {
					int fd;

					memcpy(&fd,
					       CMSG_DATA(h) + i * sizeof(int),
					       sizeof(fd));
					say("fd", fd);
				}
		fflush(stdout);
	}
	return 0;
}

static int send_one(int s, const struct sockaddr_un *sun, const char *text,
		    void *ctl, size_t len)
{
	struct iovec iov = { (void *)text, strlen(text) };
	struct msghdr m = { .msg_name = (void *)sun,
			    .msg_namelen = sizeof(*sun),
			    .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl,
			    .msg_controllen = len };

	if (sendmsg(s, &m, 0) >= 0) {
		printf("ok\n");
		return 0;
	}
	printf("fail %s\n",
	       strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	return 1;
}

static long num(const char *arg, long self)
{
	return !strcmp(arg, "self") ? self : strtol(arg, NULL, 10);
}

int main(int argc, char **argv)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred)) + 64];
	} ctl;
	struct sockaddr_un sun;
	struct ucred uc;
	char text[128];
	int s, ret = 0;

	if (argc < 3 || addr(argv[2], &sun))
		return 2;
	if (!strcmp(argv[1], "recv"))
		return recv_all(argv[2],
				argc > 3 ? strtol(argv[3], NULL, 10) : 10);
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return 2;
	memset(&ctl, 0, sizeof(ctl));
	if (!strcmp(argv[1], "creds") && argc == 6) {
		uc.pid = (pid_t)num(argv[3], getpid());
		uc.uid = (uid_t)num(argv[4], getuid());
		uc.gid = (gid_t)num(argv[5], getgid());
		ctl.h.cmsg_level = SOL_SOCKET;
		ctl.h.cmsg_type = SCM_CREDENTIALS;
		ctl.h.cmsg_len = CMSG_LEN(sizeof(uc));
		memcpy(CMSG_DATA(&ctl.h), &uc, sizeof(uc));
		snprintf(text, sizeof(text), "creds %d %u %u", (int)uc.pid,
			 (unsigned)uc.uid, (unsigned)uc.gid);
		return send_one(s, &sun, text, ctl.buf, CMSG_SPACE(sizeof(uc)));
	}
	if (!strcmp(argv[1], "rights") && argc == 5) {
		for (long n = num(argv[3], 0); n <= num(argv[4], 0); n++) {
			struct cmsghdr h = { .cmsg_len = CMSG_LEN(0),
					     .cmsg_level = SOL_SOCKET,
					     .cmsg_type = SCM_RIGHTS };
			int fd = (int)n;

			memset(&ctl, 0, sizeof(ctl));
			memcpy(ctl.buf, &h, sizeof(h));
			h.cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(ctl.buf + CMSG_LEN(0), &h, sizeof(h));
			memcpy(ctl.buf + 2 * CMSG_LEN(0), &fd, sizeof(fd));
			snprintf(text, sizeof(text), "rights %d", fd);
			ret |= send_one(s, &sun, text, ctl.buf,
					CMSG_LEN(0) + CMSG_LEN(sizeof(int)));
		}
		return ret;
	}
	if (!strcmp(argv[1], "end"))
		return send_one(s, &sun, "end", NULL, 0);
	return 2;
}
