/*
 * dnsconnect.c - look a name up and reach it the way a static binary
 * does (Go's, a musl program's): its own DNS query, sent by system
 * calls alone, no getaddrinfo, no libc wrapper the shim could see (it
 * is meant to be linked static), for t_capture.sh.
 *
 *   dnsconnect [-s SERVER] [-t] [-6] NAME PORT
 *   dnsconnect -q [-s SERVER] [-t] [-6] NAME
 *
 * Sends a hand-built query for NAME's A record (-6: AAAA) to port 53 of
 * SERVER (an IPv4 or IPv6 address; default: the first "nameserver" of
 * /etc/resolv.conf), over UDP (-t: TCP), and reads the first address of
 * the answer; then connects TCP to that address on PORT, writes a
 * request line, "GET /index.txt HTTP/1.0" (no Host header: whoever
 * decides on the other end knows the destination by its address alone),
 * and prints the first line of what comes back.  A NAME that is an
 * address is used as it is, with no query.  With -q it only queries and
 * prints every address of the answer.
 *
 * What it prints, a line each: "resolved NAME ADDR" ("address ADDR"
 * for each with -q), "connected ADDR PORT", "reply LINE"; or one of the
 * failures below.  Exit status:
 *   0  the reply read (-q: at least one address)
 *   1  no answer from the server: "dns-fail WHY" (socket, timeout, a
 *      malformed or mismatched answer)
 *   2  usage
 *   3  NXDOMAIN: "nxdomain NAME"
 *   4  an answer without an address: "noanswer NAME RCODE"
 *   5  the connect failed: "connect-fail ENAME"
 *   6  connected, but nothing came back: "no-reply ENAME|eof"
 * Each wait is bounded (5 s), so it always ends by itself.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#define WAIT_S	   5
#define MSG_MAX	   4096 /* a DNS message, any transport */
#define NAME_MAX_  253
#define ADDRS_MAX  16
#define RESOLV_MAX 8192
#define QTYPE_A	   1
#define QTYPE_AAAA 28

enum {
	EX_OK = 0,
	EX_DNS = 1,
	EX_USAGE = 2,
	EX_NXDOMAIN = 3,
	EX_NOANSWER = 4,
	EX_CONNECT = 5,
	EX_NOREPLY = 6,
};

struct opts {
	const char *server, *name, *port;
	bool tcp, v6, query_only;
};

static const char *ename(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

static long sys_read(int fd, void *buf, size_t len)
{
	return syscall(SYS_read, fd, buf, len);
}

static long sys_write(int fd, const void *buf, size_t len)
{
	return syscall(SYS_write, fd, buf, len);
}

/* A socket whose every wait (connect, send, receive) is bounded. */
static int bounded_socket(int family, int type)
{
	struct timeval tv = { WAIT_S, 0 };
	long fd = syscall(SYS_socket, family, type | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return (int)fd;
}

/* @text as an address with @port into @sa.  Return: its length, or 0. */
static socklen_t parse_addr(const char *text, uint16_t port,
			    struct sockaddr_storage *sa)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

	memset(sa, 0, sizeof(*sa));
	if (inet_pton(AF_INET, text, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		return sizeof(*s4);
	}
	if (inet_pton(AF_INET6, text, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		return sizeof(*s6);
	}
	return 0;
}

/* The first "nameserver" of /etc/resolv.conf into @out (@cap).
 * Return: 0, or -1. */
static int first_nameserver(char *out, size_t cap)
{
	static char buf[RESOLV_MAX + 1];
	long fd = syscall(SYS_openat, AT_FDCWD, "/etc/resolv.conf",
			  O_RDONLY | O_CLOEXEC);
	long n = fd < 0 ? -1 : sys_read((int)fd, buf, RESOLV_MAX);
	char *line, *save = NULL;

	if (fd >= 0)
		syscall(SYS_close, fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t len;

		if (strncmp(line, "nameserver", 10) != 0 ||
		    (line[10] != ' ' && line[10] != '\t'))
			continue;
		line += 10 + strspn(line + 10, " \t");
		len = strcspn(line, " \t%");
		if (len == 0 || len >= cap)
			continue;
		memcpy(out, line, len);
		out[len] = '\0';
		return 0;
	}
	return -1;
}

/* The query for @name of @qtype into @msg (@cap).  Return: its length,
 * or 0 when the name does not fit. */
static size_t build_query(const char *name, uint16_t qtype, uint16_t id,
			  uint8_t *msg, size_t cap)
{
	size_t len = 12, nlen = strlen(name);
	const char *p = name;

	if (nlen == 0 || nlen > NAME_MAX_ || len + nlen + 2 + 4 > cap)
		return 0;
	memset(msg, 0, len);
	msg[0] = (uint8_t)(id >> 8);
	msg[1] = (uint8_t)id;
	msg[2] = 0x01; /* RD: as a stub resolver asks */
	msg[5] = 1;    /* one question */
	while (*p) {
		size_t l = strcspn(p, ".");

		if (l == 0 || l > 63)
			return 0;
		msg[len++] = (uint8_t)l;
		memcpy(msg + len, p, l);
		len += l;
		p += l;
		if (*p == '.')
			p++;
	}
	msg[len++] = 0;
	msg[len++] = (uint8_t)(qtype >> 8);
	msg[len++] = (uint8_t)qtype;
	msg[len++] = 0;
	msg[len++] = 1; /* IN */
	return len;
}

/* Past the name at @off of @msg (@len).  Return: the offset after it,
 * or 0 when malformed. */
static size_t skip_name(const uint8_t *msg, size_t len, size_t off)
{
	while (off < len) {
		uint8_t l = msg[off];

		if ((l & 0xc0) == 0xc0)
			return off + 2 <= len ? off + 2 : 0;
		if (l & 0xc0)
			return 0;
		off += 1u + l;
		if (l == 0)
			return off <= len ? off : 0;
	}
	return 0;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The addresses of type @qtype in the answer @msg (@len) into @addrs
 * (text, ADDRS_MAX of them).  Return: their count, -1 when malformed or
 * not the answer to @id; *@rcode is the answer's. */
static int parse_answer(const uint8_t *msg, size_t len, uint16_t id,
			uint16_t qtype, char addrs[][INET6_ADDRSTRLEN],
			int *rcode)
{
	size_t off = 12;
	unsigned qd, an;
	int n = 0;

	if (len < 12 || get16(msg) != id || !(msg[2] & 0x80))
		return -1;
	*rcode = msg[3] & 0x0f;
	qd = get16(msg + 4);
	an = get16(msg + 6);
	for (unsigned i = 0; i < qd; i++) {
		off = skip_name(msg, len, off);
		if (!off || off + 4 > len)
			return -1;
		off += 4;
	}
	for (unsigned i = 0; i < an && n < ADDRS_MAX; i++) {
		uint16_t type, rdlen;

		off = skip_name(msg, len, off);
		if (!off || off + 10 > len)
			return -1;
		type = get16(msg + off);
		rdlen = get16(msg + off + 8);
		off += 10;
		if (off + rdlen > len)
			return -1;
		if (type == qtype && rdlen == (qtype == QTYPE_AAAA ? 16 : 4))
			inet_ntop(qtype == QTYPE_AAAA ? AF_INET6 : AF_INET,
				  msg + off, addrs[n++], INET6_ADDRSTRLEN);
		off += rdlen;
	}
	return n;
}

/* Send @q (@qlen) to @sa over UDP, or over TCP with its length first;
 * the answer into @ans (MSG_MAX).  Return: its length, or -1 with
 * errno set (ETIMEDOUT, EAGAIN: no answer in time; EPROTO: cut). */
static long exchange(const struct sockaddr_storage *sa, socklen_t salen,
		     bool tcp, const uint8_t *q, size_t qlen, uint8_t *ans)
{
	uint8_t framed[MSG_MAX + 2];
	int fd = bounded_socket(sa->ss_family, tcp ? SOCK_STREAM : SOCK_DGRAM);
	long n = -1, got = 0, want;
	int saved;

	if (fd < 0)
		return -1;
	if (syscall(SYS_connect, fd, sa, salen) < 0)
		goto out;
	if (!tcp) {
		if (sys_write(fd, q, qlen) == (long)qlen)
			n = sys_read(fd, ans, MSG_MAX);
		goto out;
	}
	framed[0] = (uint8_t)(qlen >> 8);
	framed[1] = (uint8_t)qlen;
	memcpy(framed + 2, q, qlen);
	if (sys_write(fd, framed, qlen + 2) != (long)qlen + 2)
		goto out;
	/* the length, then the message: each may come in pieces */
	for (want = 2; got < want;) {
		long r = sys_read(fd, framed + got, (size_t)(want - got));

		if (r <= 0) {
			if (r == 0)
				errno = EPROTO;
			goto out;
		}
		got += r;
		if (got == 2 && want == 2)
			want = 2 + get16(framed);
		if (want > MSG_MAX + 2) {
			errno = EPROTO;
			goto out;
		}
	}
	n = want - 2;
	memcpy(ans, framed + 2, (size_t)n);
out:
	saved = errno;
	syscall(SYS_close, fd);
	errno = saved;
	return n;
}

/* Look @o->name up; its addresses into @addrs.  Return: their count,
 * or the exit status of the failure (negated), said. */
static int lookup(const struct opts *o, char addrs[][INET6_ADDRSTRLEN])
{
	static uint8_t q[MSG_MAX], ans[MSG_MAX];
	char server[INET6_ADDRSTRLEN + 1];
	struct sockaddr_storage sa;
	socklen_t salen;
	uint16_t qtype = o->v6 ? QTYPE_AAAA : QTYPE_A;
	uint16_t id = (uint16_t)(syscall(SYS_getpid) ^ 0x5a5a);
	size_t qlen;
	long n;
	int rcode = 0, count;

	if (o->server)
		snprintf(server, sizeof(server), "%s", o->server);
	else if (first_nameserver(server, sizeof(server))) {
		puts("dns-fail no nameserver in /etc/resolv.conf");
		return -EX_DNS;
	}
	salen = parse_addr(server, 53, &sa);
	qlen = build_query(o->name, qtype, id, q, sizeof(q));
	if (!salen || !qlen) {
		printf("dns-fail bad server '%s' or name\n", server);
		return -EX_DNS;
	}
	n = exchange(&sa, salen, o->tcp, q, qlen, ans);
	if (n < 0) {
		printf("dns-fail %s\n", ename(errno));
		return -EX_DNS;
	}
	count = parse_answer(ans, (size_t)n, id, qtype, addrs, &rcode);
	if (count < 0) {
		puts("dns-fail malformed answer");
		return -EX_DNS;
	}
	if (rcode == 3) {
		printf("nxdomain %s\n", o->name);
		return -EX_NXDOMAIN;
	}
	if (count == 0) {
		printf("noanswer %s %d\n", o->name, rcode);
		return -EX_NOANSWER;
	}
	return count;
}

/* Connect to @addr on @o->port, ask, print the reply's first line. */
static int reach(const struct opts *o, const char *addr)
{
	static const char req[] = "GET /index.txt HTTP/1.0\r\n\r\n";
	char buf[1024];
	struct sockaddr_storage sa;
	socklen_t salen;
	unsigned long port;
	char *end;
	long n, got = 0;
	int fd;

	port = strtoul(o->port, &end, 10);
	salen = parse_addr(addr, (uint16_t)port, &sa);
	if (*end || port == 0 || port > 65535 || !salen)
		return EX_USAGE;
	fd = bounded_socket(sa.ss_family, SOCK_STREAM);
	if (fd < 0 || syscall(SYS_connect, fd, &sa, salen) < 0) {
		printf("connect-fail %s\n", ename(errno));
		return EX_CONNECT;
	}
	printf("connected %s %lu\n", addr, port);
	fflush(stdout);
	if (sys_write(fd, req, sizeof(req) - 1) != (long)sizeof(req) - 1) {
		printf("no-reply %s\n", ename(errno));
		return EX_NOREPLY;
	}
	/* the first line, however it comes in pieces */
	while (got < (long)sizeof(buf) - 1 && !memchr(buf, '\n', (size_t)got)) {
		n = sys_read(fd, buf + got, sizeof(buf) - 1 - (size_t)got);
		if (n < 0 && got == 0) {
			printf("no-reply %s\n", ename(errno));
			return EX_NOREPLY;
		}
		if (n <= 0)
			break;
		got += n;
	}
	syscall(SYS_close, fd);
	if (got == 0) {
		puts("no-reply eof");
		return EX_NOREPLY;
	}
	buf[got] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	printf("reply %s\n", buf);
	return EX_OK;
}

static int usage(void)
{
	fprintf(stderr, "usage: dnsconnect [-s SERVER] [-t] [-6] NAME PORT\n"
			"       dnsconnect -q [-s SERVER] [-t] [-6] NAME\n");
	return EX_USAGE;
}

int main(int argc, char **argv)
{
	static char addrs[ADDRS_MAX][INET6_ADDRSTRLEN];
	struct sockaddr_storage literal;
	struct opts o = { 0 };
	int c, n;

	while ((c = getopt(argc, argv, "s:t6q")) != -1) {
		switch (c) {
		case 's':
			o.server = optarg;
			break;
		case 't':
			o.tcp = true;
			break;
		case '6':
			o.v6 = true;
			break;
		case 'q':
			o.query_only = true;
			break;
		default:
			return usage();
		}
	}
	if (argc - optind != (o.query_only ? 1 : 2))
		return usage();
	o.name = argv[optind];
	o.port = o.query_only ? NULL : argv[optind + 1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!o.query_only && parse_addr(o.name, 0, &literal))
		return reach(&o, o.name);
	n = lookup(&o, addrs);
	if (n < 0)
		return -n;
	if (o.query_only) {
		for (int i = 0; i < n; i++)
			printf("address %s\n", addrs[i]);
		return EX_OK;
	}
	printf("resolved %s %s\n", o.name, addrs[0]);
	return reach(&o, addrs[0]);
}
