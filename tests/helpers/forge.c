/*
 * forge: what a hostile program inside the sandbox can send to the
 * launcher's report socket, with raw system calls (no libc call the shim
 * could hook, so none it could refuse or report).
 *
 *   forge send DATAGRAM...   each argument as one datagram
 *   forge flood N [DATAGRAM] N datagrams (default: a valid record)
 *   forge sigsys             a system call of the i386 ABI (int 0x80):
 *                            the seccomp filter kills for it
 *   forge socket             print the report socket's path
 *   forge write FILE TEXT    append TEXT to FILE
 *   forge trunc FILE         truncate FILE
 *   forge rename FROM TO     rename FROM over TO
 *   forge unlink FILE        remove FILE
 *
 * The socket's path is the "log=unix:PATH" field of the policy snapshot
 * in CORDON_POLICY, read from /proc/self/environ (the environment the
 * process started with, whatever the shim did to environ since).
 *
 * The file sub-commands change a file behind the shim's back (the
 * kernel alone decides), and print the errno name when refused.
 *
 * Exit status: 0 when every datagram was sent or the change was made, 1
 * when not, 2 on misuse or when there is no socket to send to; sigsys:
 * 0 when the call returned (no filter), 3 when the kernel has no i386
 * ABI here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define ENV_MAX (256 * 1024)

static void say(const char *s)
{
	syscall(SYS_write, 2, s, strlen(s));
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* @n bytes of percent-encoded @in into @out (decoded, NUL-ended). */
static int decode(const char *in, size_t n, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char c = in[i];

		if (c == '%' && i + 2 < n && hexval(in[i + 1]) >= 0 &&
		    hexval(in[i + 2]) >= 0) {
			c = (char)(hexval(in[i + 1]) << 4 | hexval(in[i + 2]));
			i += 2;
		}
		if (o + 1 >= outlen)
			return -1;
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

/* The socket's path from the starting environment's CORDON_POLICY. */
static int socket_path(char *out, size_t outlen)
{
	static char env[ENV_MAX];
	static const char var[] = "CORDON_POLICY=", key[] = "|log=unix:";
	long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/environ",
			  O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	long n = 1;

	if (fd < 0)
		return -1;
	while (n > 0 && len < sizeof(env) - 1) {
		n = syscall(SYS_read, fd, env + len, sizeof(env) - 1 - len);
		len += n > 0 ? (size_t)n : 0;
	}
	syscall(SYS_close, fd);
	env[len] = '\0';
	for (size_t i = 0; i < len; i += strlen(env + i) + 1) {
		const char *v = env + i, *log, *end;

		if (strncmp(v, var, sizeof(var) - 1) != 0)
			continue;
		log = strstr(v, key);
		if (!log)
			return -1;
		log += sizeof(key) - 1;
		end = log + strcspn(log, "|");
		return decode(log, (size_t)(end - log), out, outlen);
	}
	return -1;
}

static long open_socket(struct sockaddr_un *sa)
{
	char path[sizeof(sa->sun_path)];

	if (socket_path(path, sizeof(path)) < 0) {
		say("forge: no log=unix: in CORDON_POLICY\n");
		exit(2);
	}
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, strlen(path) + 1);
	return syscall(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

static int send_one(long fd, const struct sockaddr_un *sa, const char *d,
		    size_t len)
{
	long n;

	do
		n = syscall(SYS_sendto, fd, d, len, 0, sa, sizeof(*sa));
	while (n < 0 && errno == EINTR);
	return n == (long)len ? 0 : -1;
}

static const char valid[] =
	"{\"time\":1.5,\"pid\":7,\"ppid\":1,\"program\":\"/forge\","
	"\"operation\":\"open\",\"path\":\"/flood\",\"resolved\":\"/flood\","
	"\"need\":1,\"verdict\":\"deny\",\"rule\":\"forged flood\","
	"\"layer\":\"shim\"}\n";

static int flood(long fd, const struct sockaddr_un *sa, long n, const char *d)
{
	int failed = 0;

	for (long i = 0; i < n; i++)
		failed |= send_one(fd, sa, d, strlen(d));
	return failed;
}

/* getpid through the i386 entry: seccomp sees AUDIT_ARCH_I386. */
static int sigsys(void)
{
#if defined(__x86_64__)
	long ret = 20; /* __NR_getpid on i386 */

	__asm__ volatile("int $0x80"
			 : "+a"(ret)
			 :
			 : "memory", "r8", "r9", "r10", "r11");
	return ret > 0 ? 0 : 3;
#else
	return 3;
#endif
}

static int result(long ret)
{
	if (ret >= 0)
		return 0;
	say(strerrorname_np(errno) ? strerrorname_np(errno) : "error");
	say("\n");
	return 1;
}

/* A change of a file made with raw system calls, or -1 (not one). */
static int change(int argc, char **argv)
{
	const char *cmd = argv[1];
	long fd;

	if (strcmp(cmd, "write") == 0 && argc == 4) {
		size_t len = strlen(argv[3]);
		long n;

		fd = syscall(SYS_openat, AT_FDCWD, argv[2],
			     O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd < 0)
			return result(fd);
		n = syscall(SYS_write, fd, argv[3], len);
		syscall(SYS_close, fd);
		return result(n == (long)len ? 0 : -1);
	}
	if (strcmp(cmd, "trunc") == 0 && argc == 3)
		return result(syscall(SYS_truncate, argv[2], 0));
	if (strcmp(cmd, "rename") == 0 && argc == 4)
		return result(syscall(SYS_renameat, AT_FDCWD, argv[2], AT_FDCWD,
				      argv[3]));
	if (strcmp(cmd, "unlink") == 0 && argc == 3)
		return result(syscall(SYS_unlinkat, AT_FDCWD, argv[2], 0));
	return -1;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa;
	int failed = 0, ret;
	long fd;

	if (argc >= 2 && strcmp(argv[1], "sigsys") == 0)
		return sigsys();
	if (argc >= 2 && strcmp(argv[1], "socket") == 0) {
		char path[sizeof(sa.sun_path)];

		if (socket_path(path, sizeof(path)) < 0)
			return 2;
		syscall(SYS_write, 1, path, strlen(path));
		syscall(SYS_write, 1, "\n", 1);
		return 0;
	}
	ret = argc >= 3 ? change(argc, argv) : -1;
	if (ret >= 0)
		return ret;
	if (argc < 3 || (strcmp(argv[1], "send") && strcmp(argv[1], "flood"))) {
		say("usage: forge send DATAGRAM... | flood N [DATAGRAM] | "
		    "sigsys | socket | write FILE TEXT | trunc FILE | "
		    "rename FROM TO | unlink FILE\n");
		return 2;
	}
	fd = open_socket(&sa);
	if (fd < 0)
		return 2;
	if (strcmp(argv[1], "flood") == 0)
		return flood(fd, &sa, strtol(argv[2], NULL, 10),
			     argc > 3 ? argv[3] : valid);
	for (int i = 2; i < argc; i++)
		failed |= send_one(fd, &sa, argv[i], strlen(argv[i]));
	return failed;
}
