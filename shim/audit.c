/*
 * audit.c - one JSON Lines record per denial, sent where the snapshot
 * says: "unix:PATH", a datagram to the launcher's socket (found again by
 * path each time, so closing every fd or clearing the environment loses
 * nothing, and the command never holds the log file), or "file:PATH",
 * appended when the shim is used without the launcher.
 *
 * Raw syscalls, stack buffers, no locks: this runs in vfork children.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "shim/shim.h"
#include "shim/core/strbuf.h"

#define RECORD_MAX 8192

static void put_field(struct strbuf *sb, const char *key, const char *val)
{
	sb_puts(sb, ",\"");
	sb_puts(sb, key);
	sb_puts(sb, "\":\"");
	sb_json(sb, val);
	sb_puts(sb, "\"");
}

static void put_number(struct strbuf *sb, const char *key, unsigned long v)
{
	sb_puts(sb, ",\"");
	sb_puts(sb, key);
	sb_puts(sb, "\":");
	sb_uint(sb, v);
}

static void put_time(struct strbuf *sb)
{
	struct timespec ts = { 0, 0 };
	char ms[4];

	syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
	sb_puts(sb, "{\"time\":");
	sb_uint(sb, (unsigned long)ts.tv_sec);
	ms[0] = '.';
	ms[1] = (char)('0' + ts.tv_nsec / 100000000 % 10);
	ms[2] = (char)('0' + ts.tv_nsec / 10000000 % 10);
	ms[3] = (char)('0' + ts.tv_nsec / 1000000 % 10);
	sb_put(sb, ms, sizeof(ms));
}

static void program(char out[PATH_BUF])
{
	long n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", out,
			 PATH_BUF - 1);

	out[n > 0 ? n : 0] = '\0';
}

static void send_unix(const char *path, const char *rec, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval timeout = { .tv_sec = 2 };
	long fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = syscall(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	/* Wait while the launcher's queue is full (a burst of denials),
	 * but never hang the program on a launcher that stopped reading. */
	syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_SNDTIMEO, &timeout,
		sizeof(timeout));
	while (syscall(SYS_sendto, fd, rec, len, 0, &sa, sizeof(sa)) < 0 &&
	       errno == EINTR)
		;
	syscall(SYS_close, fd);
}

static void append_file(const char *path, const char *rec, size_t len)
{
	long fd = syscall(SYS_openat, AT_FDCWD, path,
			  O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return;
	syscall(SYS_write, fd, rec, len);
	syscall(SYS_close, fd);
}

void audit_record(const struct op *op, const char *resolved, const char *rule,
		  const char *layer)
{
	const char *log = shim.extra.log;
	char rec[RECORD_MAX], exe[PATH_BUF];
	struct strbuf sb = STRBUF(rec, sizeof(rec));
	int saved = errno;

	if (!log)
		return;
	program(exe);
	put_time(&sb);
	put_number(&sb, "pid", (unsigned long)syscall(SYS_getpid));
	put_number(&sb, "ppid", (unsigned long)syscall(SYS_getppid));
	put_field(&sb, "program", exe);
	put_field(&sb, "operation", op->name);
	if (op->dest) {
		put_field(&sb, "destination", op->dest);
	} else {
		put_field(&sb, "path", op->path);
		put_field(&sb, "resolved", resolved);
		put_number(&sb, "need", op->need);
	}
	put_field(&sb, "verdict", op->verdict ? op->verdict : "deny");
	put_field(&sb, "rule", rule);
	if (op->allow)
		put_field(&sb, "allow", op->allow);
	put_field(&sb, "layer", layer);
	sb_puts(&sb, "}\n");
	if (!sb.full && strncmp(log, "unix:", 5) == 0)
		send_unix(log + 5, rec, sb.len);
	else if (!sb.full && strncmp(log, "file:", 5) == 0)
		append_file(log + 5, rec, sb.len);
	errno = saved;
}
