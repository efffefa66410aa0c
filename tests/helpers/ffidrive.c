/*
 * ffidrive: call one interposed libc function by name and say what it
 * returned.
 *
 *   ffidrive FUNCTION ARG...   call it; print "ret=<value> errno=<name>"
 *   ffidrive --rows            the table, one row a line (tab-separated):
 *                              label name family ret expect report effect use
 *
 * The function is looked up with dlsym(RTLD_DEFAULT), so with libcordon.so
 * preloaded the call reaches its hook, exactly as a program's own call
 * would; libffi builds the call from the row's signature.  Arguments are
 * text: numbers, symbolic flags ("O_WRONLY|O_CREAT"), paths, addresses.
 *
 * A row's signature has one letter per argument.  These take an ARG:
 *   s string ("NULL" for NULL)   i int          u unsigned int
 *   m mode (octal or S_IF*)      o off_t/long   z size_t
 *   d fd: AT_FDCWD, a number, or a path opened O_PATH (not CLOEXEC)
 *   f fd: a path opened O_RDONLY, or O_PATH where the sandbox refuses
 *     reading it (fchmod and its kin decide on the fd's file first)
 *   v argv: { ARG, NULL }
 *   a sockaddr: unix:PATH, unixd:PATH, tcp:IP:PORT, udp:IP:PORT
 *   M msghdr to that address     W one mmsghdr to that address
 * and these make their argument themselves:
 *   B an out-buffer (64 KiB, zeroed)  Z its size, 4096    N NULL
 *   E environ        S a FILE* on /dev/null   C a walk callback (returns 0)
 *   A posix_spawn_file_actions_t*     k a socket for the address argument
 *   L the address length   q the byte "x"   n 1 (its length)
 * A '.' marks where the variadic arguments start (open, execl); those
 * that take an ARG may be left out.
 *
 * The return convention: i int, -1 fails; l long, -1 fails; p pointer,
 * NULL fails (printed "ptr"/"NULL"); P a popen stream (pclosed); e an
 * error number is returned (posix_spawn: errno= names it); n int, nonzero
 * fails (glob); s system's wait status; x exec, returns only on failure.
 *
 * For the tests, each row also says what its call on a denied path must
 * do (expect: EACCES by default, "fail", "ok", "allow" for no denial at
 * all, "ret=N"), which function the denial line names (report), and
 * whether the same call without the shim changes the tree (effect: w, r).
 * In "use", @F is an existing file, @N a new path, @D a directory holding
 * "file", @E an empty directory, @L a symlink to @F, @X an executable
 * script, @S a shared library, @T a mkstemp template, @U a listening UNIX
 * socket, @P a loopback listener's port, @UID and @GID the caller's ids.
 *
 * Exit status: 0 when the call succeeded by its convention, 1 when it
 * failed, 2 on misuse; an exec that succeeds is the program it ran.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ffi.h>
#include <fnmatch.h>
#include <ftw.h>
#include <glob.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#define PROG	 "ffidrive"
#define MAX_ARGS 12
#define BUF_SIZE 65536

#include "tests/helpers/ffidrive_rows.h"

struct sym {
	const char *name;
	long value;
};

static const struct sym syms[] = {
	{ "O_RDONLY", O_RDONLY },
	{ "O_WRONLY", O_WRONLY },
	{ "O_RDWR", O_RDWR },
	{ "O_CREAT", O_CREAT },
	{ "O_EXCL", O_EXCL },
	{ "O_TRUNC", O_TRUNC },
	{ "O_APPEND", O_APPEND },
	{ "O_NOFOLLOW", O_NOFOLLOW },
	{ "O_DIRECTORY", O_DIRECTORY },
	{ "O_CLOEXEC", O_CLOEXEC },
	{ "O_TMPFILE", O_TMPFILE },
	{ "O_PATH", O_PATH },
	{ "O_NONBLOCK", O_NONBLOCK },
	{ "AT_FDCWD", AT_FDCWD },
	{ "AT_SYMLINK_NOFOLLOW", AT_SYMLINK_NOFOLLOW },
	{ "AT_SYMLINK_FOLLOW", AT_SYMLINK_FOLLOW },
	{ "AT_REMOVEDIR", AT_REMOVEDIR },
	{ "AT_EMPTY_PATH", AT_EMPTY_PATH },
	{ "AT_EACCESS", AT_EACCESS },
	{ "R_OK", R_OK },
	{ "W_OK", W_OK },
	{ "X_OK", X_OK },
	{ "F_OK", F_OK },
	{ "RENAME_NOREPLACE", RENAME_NOREPLACE },
	{ "RENAME_EXCHANGE", RENAME_EXCHANGE },
	{ "S_IFIFO", S_IFIFO },
	{ "S_IFREG", S_IFREG },
	{ "RTLD_NOW", RTLD_NOW },
	{ "RTLD_LAZY", RTLD_LAZY },
	{ "LM_ID_BASE", LM_ID_BASE },
	{ "LM_ID_NEWLM", LM_ID_NEWLM },
	{ "GLOB_ERR", GLOB_ERR },
	{ "FTW_PHYS", FTW_PHYS },
	{ "FTS_PHYSICAL", 0x0010 },
	{ "FTS_NOCHDIR", 0x0004 },
	{ "STATX_BASIC_STATS", STATX_BASIC_STATS },
	{ "WRDE_SHOWERR", WRDE_SHOWERR },
	{ "WRDE_NOCMD", WRDE_NOCMD },
	{ "AF_INET", AF_INET },
	{ "AF_UNIX", AF_UNIX },
	{ "SOCK_STREAM", SOCK_STREAM },
	{ "SOCK_DGRAM", SOCK_DGRAM },
	{ "MSG_DONTWAIT", MSG_DONTWAIT },
	{ "_PC_NAME_MAX", _PC_NAME_MAX },
};

/* One argument's storage, whatever its type. */
union value {
	int i;
	unsigned int u;
	int64_t o;
	uint64_t z;
	void *p;
};

/* What the arguments of one call point to. */
static char buf[BUF_SIZE] __attribute__((aligned(16)));
static char data[1] = { 'x' };
static char *argv_store[MAX_ARGS][2];
static struct sockaddr_storage addr;
static socklen_t addrlen;
static int socktype;
static struct iovec iov = { .iov_base = data, .iov_len = 1 };
static struct msghdr msg;
static struct mmsghdr mmsg;
static posix_spawn_file_actions_t actions;

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static long number(const char *s, int base)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, base);
	if (errno || end == s || *end)
		die("not a number or a known name: '%s'", s);
	return v;
}

/* "O_WRONLY|O_CREAT|0644": names and numbers (in @base) or-ed. */
static long flags(const char *text, int base)
{
	char tok[128];
	long v = 0;

	for (const char *s = text; *s;) {
		size_t n = strcspn(s, "|");
		size_t i;

		if (n == 0 || n >= sizeof(tok))
			die("bad flags '%s'", text);
		memcpy(tok, s, n);
		tok[n] = '\0';
		for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
			if (strcmp(syms[i].name, tok) == 0)
				break;
		v |= i < sizeof(syms) / sizeof(syms[0]) ? syms[i].value
							: number(tok, base);
		s += n + (s[n] == '|');
	}
	return v;
}

/* A path opened O_PATH without the shim seeing it (the kernel permits
 * O_PATH inside Landlock, so this works under cordon too). */
static int path_fd(const char *text)
{
	long fd;

	if (strcmp(text, "AT_FDCWD") == 0)
		return AT_FDCWD;
	if (text[0] != '/' && text[0] != '.')
		return (int)number(text, 10);
	fd = syscall(SYS_openat, AT_FDCWD, text, O_PATH);
	if (fd < 0)
		die("cannot open '%s': %s", text, strerror(errno));
	return (int)fd;
}

/* A path opened for reading, as a program that changes a file's
 * metadata through its fd holds it; O_PATH where reading is refused. */
static int file_fd(const char *text)
{
	long fd = syscall(SYS_openat, AT_FDCWD, text, O_RDONLY);

	return fd < 0 ? path_fd(text) : (int)fd;
}

static void parse_addr(const char *text)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&addr;
	struct sockaddr_in *in = (struct sockaddr_in *)&addr;
	const char *rest = strchr(text, ':');
	char host[64];
	const char *colon;

	if (!rest)
		die("bad address '%s'", text);
	rest++;
	if (strncmp(text, "unix:", 5) == 0 || strncmp(text, "unixd:", 6) == 0) {
		if (strlen(rest) >= sizeof(un->sun_path))
			die("path too long for a socket: '%s'", rest);
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path, rest, strlen(rest) + 1);
		addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				      strlen(rest) + 1);
		socktype = text[4] == 'd' ? SOCK_DGRAM : SOCK_STREAM;
		return;
	}
	colon = strrchr(rest, ':');
	if (!colon || (size_t)(colon - rest) >= sizeof(host))
		die("bad address '%s'", text);
	memcpy(host, rest, (size_t)(colon - rest));
	host[colon - rest] = '\0';
	in->sin_family = AF_INET;
	in->sin_port = htons((uint16_t)number(colon + 1, 10));
	if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
		die("bad IPv4 address '%s'", host);
	addrlen = sizeof(*in);
	socktype = strncmp(text, "udp:", 4) == 0 ? SOCK_DGRAM : SOCK_STREAM;
}

static int walk_cb(const char *path, const struct stat *st, int type,
		   struct FTW *ftw)
{
	(void)path;
	(void)st;
	(void)type;
	(void)ftw;
	return 0;
}

static ffi_type *ffi_of(char kind)
{
	switch (kind) {
	case 'i':
	case 'd':
	case 'f':
	case 'k':
		return &ffi_type_sint;
	case 'u':
	case 'm':
	case 'L':
		return &ffi_type_uint;
	case 'o':
		return &ffi_type_sint64;
	case 'z':
	case 'Z':
	case 'n':
		return &ffi_type_uint64;
	default:
		return &ffi_type_pointer;
	}
}

static bool takes_arg(char kind)
{
	return strchr("siumozdfvaMW", kind) != NULL;
}

/* The value of an argument that takes its text from the command line. */
static void from_text(char kind, char *text, size_t idx, union value *v)
{
	switch (kind) {
	case 's':
		v->p = strcmp(text, "NULL") == 0 ? NULL : text;
		break;
	case 'i':
		v->i = (int)flags(text, 0);
		break;
	case 'u':
		v->u = (unsigned int)flags(text, 0);
		break;
	case 'm':
		v->u = (unsigned int)flags(text, 8);
		break;
	case 'o':
		v->o = flags(text, 0);
		break;
	case 'z':
		v->z = (uint64_t)flags(text, 0);
		break;
	case 'd':
		v->i = path_fd(text);
		break;
	case 'f':
		v->i = file_fd(text);
		break;
	case 'v':
		argv_store[idx][0] = text;
		argv_store[idx][1] = NULL;
		v->p = argv_store[idx];
		break;
	case 'a':
		parse_addr(text);
		v->p = &addr;
		break;
	case 'M':
		parse_addr(text);
		msg = (struct msghdr){ .msg_name = &addr,
				       .msg_namelen = addrlen,
				       .msg_iov = &iov,
				       .msg_iovlen = 1 };
		v->p = &msg;
		break;
	case 'W':
		parse_addr(text);
		mmsg.msg_hdr = (struct msghdr){ .msg_name = &addr,
						.msg_namelen = addrlen,
						.msg_iov = &iov,
						.msg_iovlen = 1 };
		v->p = &mmsg;
		break;
	}
}

/* The value of an argument the driver makes itself. */
static void made(char kind, union value *v)
{
	extern char **environ;

	switch (kind) {
	case 'B':
		v->p = buf;
		break;
	case 'Z':
		v->z = 4096;
		break;
	case 'N':
		v->p = NULL;
		break;
	case 'E':
		v->p = environ;
		break;
	case 'S':
		v->p = fdopen(
			(int)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR),
			"r+");
		if (!v->p)
			die("cannot open /dev/null");
		break;
	case 'C':
		v->p = (void *)walk_cb;
		break;
	case 'A':
		posix_spawn_file_actions_init(&actions);
		v->p = &actions;
		break;
	case 'k':
		v->i = socket(addr.ss_family, socktype, 0);
		if (v->i < 0)
			die("socket: %s", strerror(errno));
		break;
	case 'L':
		v->u = addrlen;
		break;
	case 'q':
		v->p = data;
		break;
	case 'n':
		v->z = 1;
		break;
	default:
		die("unknown argument kind '%c'", kind);
	}
}

/* By label first ("connect/unix"), then by the function's name. */
static const struct row *find_row(const char *name)
{
	for (size_t i = 0; i < NROWS; i++)
		if (strcmp(rows[i].label, name) == 0)
			return &rows[i];
	for (size_t i = 0; i < NROWS; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}

static void *find_function(const char *name)
{
	void *fn = dlsym(RTLD_DEFAULT, name);

	/* Pre-2.33 names (__xstat) are kept only as old versions. */
	if (!fn)
		fn = dlvsym(RTLD_DEFAULT, name, "GLIBC_2.2.5");
	return fn;
}

static const char *errno_name(int e)
{
	static char num[16];
	const char *s = e ? strerrorname_np(e) : "0";

	if (s)
		return s;
	snprintf(num, sizeof(num), "%d", e);
	return num;
}

static void reap(void)
{
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

/* Print the result by the row's convention; the exit status. */
static int report(const struct row *r, ffi_arg ret, int err)
{
	long v = (long)ret;
	void *p = (void *)(uintptr_t)ret;
	bool failed;

	switch (r->ret) {
	case 'p':
	case 'P':
		failed = p == NULL;
		if (r->ret == 'P' && p)
			pclose(p);
		reap();
		printf("ret=%s errno=%s\n", p ? "ptr" : "NULL",
		       errno_name(err));
		return failed;
	case 'l':
		failed = v == -1;
		break;
	case 'e':
		v = (int)ret;
		reap();
		printf("ret=%ld errno=%s\n", v, errno_name((int)v));
		return v != 0;
	case 'n':
	case 's':
		v = (int)ret;
		failed = v != 0;
		break;
	default:
		v = (int)ret;
		failed = v == -1;
	}
	reap();
	printf("ret=%ld errno=%s\n", v, errno_name(err));
	return failed;
}

static void print_rows(void)
{
	for (size_t i = 0; i < NROWS; i++) {
		const struct row *r = &rows[i];

		printf("%s\t%s\t%s\t%c\t%s\t%s\t%c\t%s\n", r->label, r->name,
		       r->family, r->ret, r->expect ? r->expect : "EACCES",
		       r->report ? r->report : r->name, r->effect, r->use);
	}
}

int main(int argc, char **argv)
{
	ffi_type *types[MAX_ARGS], *rtype;
	union value vals[MAX_ARGS];
	void *ptrs[MAX_ARGS];
	const struct row *r;
	unsigned int nfixed = 0, n = 0;
	int next = 2, err;
	ffi_arg ret = 0;
	ffi_cif cif;
	ffi_status st;
	void *fn;

	if (argc == 2 && strcmp(argv[1], "--rows") == 0) {
		print_rows();
		return 0;
	}
	if (argc < 2)
		die("usage: " PROG " FUNCTION ARG... | " PROG " --rows");
	r = find_row(argv[1]);
	if (!r)
		die("no table row for '%s'", argv[1]);
	fn = find_function(r->name);
	if (!fn)
		die("no function '%s' in this process", r->name);
	/* Addresses first: a socket argument needs the address's family. */
	for (int i = 2; i < argc; i++)
		if (strstr(argv[i], "unix:") == argv[i] ||
		    strstr(argv[i], "unixd:") == argv[i] ||
		    strstr(argv[i], "tcp:") == argv[i] ||
		    strstr(argv[i], "udp:") == argv[i])
			parse_addr(argv[i]);
	for (const char *k = r->sig; *k; k++) {
		if (*k == '.') {
			nfixed = n;
			continue;
		}
		if (n == MAX_ARGS)
			die("too many arguments in the row of %s", r->name);
		if (takes_arg(*k)) {
			if (next >= argc && nfixed)
				break; /* optional: open's mode */
			if (next >= argc)
				die("%s: missing argument %u", r->name, n + 1);
			from_text(*k, argv[next++], n, &vals[n]);
		} else {
			made(*k, &vals[n]);
		}
		types[n] = ffi_of(*k);
		ptrs[n] = &vals[n];
		n++;
	}
	if (next != argc)
		die("%s: too many arguments", r->name);
	rtype = strchr("pP", r->ret) ? &ffi_type_pointer
		: r->ret == 'l'	     ? &ffi_type_sint64
				     : &ffi_type_sint;
	if (nfixed)
		st = ffi_prep_cif_var(&cif, FFI_DEFAULT_ABI, nfixed, n, rtype,
				      types);
	else
		st = ffi_prep_cif(&cif, FFI_DEFAULT_ABI, n, rtype, types);
	if (st != FFI_OK)
		die("ffi_prep_cif failed for %s", r->name);
	fflush(NULL);
	errno = 0;
	ffi_call(&cif, FFI_FN(fn), &ret, ptrs);
	err = errno;
	return report(r, ret, err);
}
