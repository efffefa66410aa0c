/*
 * audit.c - one JSON Lines record per denial, sent where the snapshot
 * says: "unix:PATH", a datagram to the launcher's socket (found again by
 * path each time, so closing every fd or clearing the environment loses
 * nothing, and the command never holds the log file), or "file:PATH",
 * appended when the shim is used without the launcher.
 *
 * Every record is sent: it is built to fit what the launcher accepts
 * (enforce/base/record.h: a datagram of RECORD_DATAGRAM_MAX bytes, texts of
 * RECORD_TEXT_MAX), a text too long for it shortened in its middle
 * (SB_CUT), the resolved path last of all.
 *
 * Raw syscalls, stack buffers, no locks: this runs in vfork children.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "shim/shim.h"
#include "shim/core/strbuf.h"

/* The launcher's RECORD_DATAGRAM_MAX and RECORD_TEXT_MAX (record.h). */
#define RECORD_MAX 16384
#define TEXT_MAX   4096
/* A record but for its six texts: the keys, the numbers, the names
 * (NAME_MAX_ each), the verdict and the layer. */
#define NAME_MAX_    64
#define RECORD_FIXED 544

/* The texts of a record, in the order they give way to one another. */
enum { T_RESOLVED, T_PATH, T_PEER, T_ALLOW, T_RULE, T_PROGRAM, T_COUNT };

static void put_field(struct strbuf *sb, const char *key, const char *val,
		      size_t max)
{
	sb_puts(sb, ",\"");
	sb_puts(sb, key);
	sb_puts(sb, "\":\"");
	sb_escape(sb, val, SB_JSON, max);
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

/* Is @path the socket the launcher bound (its file's device and inode,
 * from the snapshot)?  Asked before the connect and after it: a socket
 * put in its place meanwhile (by a run that can write its directory,
 * which cordon refuses to make) is sent nothing, and a swap must undo
 * itself between two system calls to pass.  One system call each; none
 * at start-up.  Not the peer's credentials: SO_PEERCRED of a connected
 * datagram socket names no one (pid 0, uid -1), and a sibling sandbox
 * has the supervisor's uid and, across the PID namespace, its pid 0. */
static bool is_launchers(const char *path)
{
	struct stat st;

	if (!shim.extra.log_ino)
		return true;
	return syscall(SYS_newfstatat, AT_FDCWD, path, &st,
		       AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISSOCK(st.st_mode) && st.st_ino == shim.extra.log_ino &&
	       st.st_dev == shim.extra.log_dev;
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
	/* connected, then sent with no address: the send is this
	 * process's own, not the broker's on its behalf (a sendto with an
	 * address is brokered), so the kernel names this process as the
	 * sender to the launcher (a session's call, by SO_PASSCRED) */
	if (is_launchers(path) &&
	    syscall(SYS_connect, fd, &sa, sizeof(sa)) == 0 &&
	    is_launchers(path))
		while (syscall(SYS_sendto, fd, rec, len, 0, NULL, 0) < 0 &&
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

/* How much of each text the record holds: each within TEXT_MAX (an
 * escape is never shorter than what it stands for), all of them within
 * the record, the resolved path whole first. */
static void record_caps(const char *const text[T_COUNT], size_t cap[T_COUNT])
{
	for (size_t i = 0; i < T_COUNT; i++) {
		cap[i] = text[i] ? sb_escape_len(text[i], SB_JSON) : 0;
		if (cap[i] > TEXT_MAX)
			cap[i] = TEXT_MAX;
	}
	sb_share(cap + 1, T_COUNT - 1, RECORD_MAX - RECORD_FIXED - cap[0]);
}

/* A look-up, not an act: a metadata call (need 0), an access() asking
 * whether it could, a bind to port 0 (an ephemeral port: a program
 * probing what the stack has, as urllib3 does for IPv6).  A program
 * goes on from most of these; the launcher lists them apart and leaves
 * them out of the options it sums up (tally.c). */
static bool is_probe(const struct op *op)
{
	static const char *const asks[] = { "access", "faccessat", "euidaccess",
					    "eaccess", NULL };
	size_t n;

	if (op->var)
		return false;
	if (op->dest) {
		n = strlen(op->dest);
		return strcmp(op->name, "bind") == 0 && n > 2 &&
		       strcmp(op->dest + n - 2, ":0") == 0;
	}
	if (op->need == 0)
		return true;
	for (size_t i = 0; asks[i]; i++)
		if (strcmp(op->name, asks[i]) == 0)
			return true;
	return false;
}

void audit_record(const struct op *op, const char *resolved, const char *rule,
		  const char *layer)
{
	const char *log = shim.extra.log;
	/* The program's name is read into the record's last PATH_BUF
	 * bytes, which the record reaches only once the name is in it
	 * (the cap keeps it out until then): 16 KB of stack, not 20. */
	char rec[RECORD_MAX], *exe = rec + RECORD_MAX - PATH_BUF;
	struct strbuf sb = STRBUF(rec, RECORD_MAX - PATH_BUF);
	const char *text[T_COUNT];
	size_t cap[T_COUNT];
	int saved = errno;

	if (!log)
		return;
	program(exe);
	text[T_RESOLVED] = op->dest || op->var ? NULL : resolved;
	text[T_PATH] = op->dest ? op->dest : op->var ? op->var : op->path;
	text[T_PEER] = op->dest || op->var ? NULL : op->peer_resolved;
	text[T_ALLOW] = op->allow;
	text[T_RULE] = rule;
	text[T_PROGRAM] = exe;
	record_caps(text, cap);
	put_time(&sb);
	put_number(&sb, "pid", (unsigned long)syscall(SYS_getpid));
	put_number(&sb, "ppid", (unsigned long)syscall(SYS_getppid));
	put_number(&sb, "pgid", (unsigned long)syscall(SYS_getpgid, 0));
	put_field(&sb, "program", exe, cap[T_PROGRAM]);
	sb.cap = RECORD_MAX;
	put_field(&sb, "operation", op->name, NAME_MAX_);
	if (op->dest) {
		put_field(&sb, "destination", op->dest, cap[T_PATH]);
	} else if (op->var) {
		put_field(&sb, "variable", op->var, cap[T_PATH]);
	} else {
		put_field(&sb, "path", op->path, cap[T_PATH]);
		put_field(&sb, "resolved", resolved, cap[T_RESOLVED]);
		put_number(&sb, "need", op->need);
		if (op->peer_resolved)
			put_field(&sb, "peer", op->peer_resolved, cap[T_PEER]);
	}
	if (is_probe(op))
		sb_puts(&sb, ",\"probe\":true");
	put_field(&sb, "verdict", op->verdict ? op->verdict : "deny",
		  NAME_MAX_);
	put_field(&sb, "rule", rule, cap[T_RULE]);
	if (op->allow)
		put_field(&sb, "allow", op->allow, cap[T_ALLOW]);
	put_field(&sb, "layer", layer, NAME_MAX_);
	sb_puts(&sb, "}\n");
	if (!sb.full && strncmp(log, "unix:", 5) == 0)
		send_unix(log + 5, rec, sb.len);
	else if (!sb.full && strncmp(log, "file:", 5) == 0)
		append_file(log + 5, rec, sb.len);
	errno = saved;
}
