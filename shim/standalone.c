/*
 * standalone.c - the shim without the launcher: the policy comes from
 * environment variables, for LD_PRELOAD=/path/to/libcordon.so CMD.
 *
 *   CORDON_READ=DIR:FILE:...   readable: read files, list directories
 *   CORDON_WRITE=...           readable and writable: create, write,
 *                              truncate, remove, rename, make sockets
 *   CORDON_EXEC=...            readable and executable
 *   CORDON_CONNECT_UNIX=...    the UNIX sockets at or below, to connect
 *                              and send to (the sockets below a
 *                              CORDON_WRITE path are allowed too)
 *   CORDON_NET=off|on|PORTS    network: off (the default), on, or a
 *                              comma-separated list of the ports that
 *                              connections may go to ("80,443" TCP,
 *                              "udp:53" UDP, as --connect takes them)
 *   CORDON_ENV=NAME,PREFIX*    variables kept besides the default list
 *                              (PATH, HOME, LANG, LC_*, TERM, ...);
 *                              "*" keeps them all
 *   CORDON_LOG=PATH            append a JSON Lines record of every
 *                              denial to PATH (created, mode 0600)
 *   CORDON_QUIET=1             no denial lines on stderr
 *
 * The shim is active only when at least one of CORDON_READ, CORDON_WRITE
 * and CORDON_EXEC is set (an empty one grants nothing); nothing is
 * granted that they do not name, so a command usually needs the system
 * too, e.g. CORDON_EXEC=/usr:/bin:/lib:/lib64:/etc.  Paths are absolute,
 * separated by ':' and canonicalised when the process starts (symlinks
 * followed); a missing or relative one is skipped with a line on stderr.
 * Granted besides: the devices every program uses as files (/dev/null,
 * /dev/zero, /dev/full, /dev/random, /dev/urandom, /dev/tty, /dev/ptmx,
 * /dev/pts) read and write, the libraries named in LD_PRELOAD readable
 * (every child loads them again), and the log file writable by the
 * command (without the launcher nothing outside holds it).  A denial
 * line names the variable that would allow it.
 *
 * At start-up the first process of the tree:
 *  - applies Landlock when the kernel has it (files; TCP ports from
 *    Linux 6.7; abstract UNIX sockets and signals from 6.12; pathname
 *    UNIX sockets from 7.1; UDP ports from 7.2) and sets no_new_privs,
 *    so everything it runs, static binaries and raw syscalls included,
 *    stays inside; to every thread of the process from Linux 7.0
 *    (TSYNC: the threads a program started before it loaded the shim,
 *    through dlopen()); before 7.0 to this thread and those it starts,
 *    and one line names the others; where Landlock is missing or fails,
 *    one line says so and only the shim's own checks hold: they are
 *    advisory, blind to static binaries and raw syscalls;
 *  - scrubs its environment to the allowed variables (the values of
 *    the others are erased in place, so /proc/PID/environ does not
 *    show them either), keeps LD_PRELOAD,
 *    and replaces the CORDON_* variables with CORDON_POLICY, the policy
 *    as loaded: its children load that one (a child that edits it
 *    cannot leave the Landlock domain it inherited).
 * Raw sockets are refused by the shim only, and UDP and UNIX socket
 * paths before Landlock has them (the launcher adds a seccomp filter
 * for the first two).
 *
 * Runs once, in the constructor, before the program's own libraries:
 * environ is not set yet, so it reads the envp the constructor was
 * handed.  Static storage (shim.store) and the stack only, raw
 * syscalls, one line on fd 2 for whatever could not be done; it never
 * exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/env.h"
#include "shim/core/landlock.h"
#include "shim/shim.h"
#include "shim/standalone.h"
#include "shim/core/strbuf.h"

#define ERR_MAX 512

/* Where the next decoded string goes in shim.store. */
static size_t store_used;
/* The envp the process started with: under -z initfirst the constructor
 * runs before libc sets environ, so shim_init() hands it over. */
static char **start_envp;

static const char *var(const char *name)
{
	return env_value(start_envp, name);
}

/* One line on stderr from up to three pieces. */
static void say(const char *a, const char *b, const char *c)
{
	char line[PATH_BUF + 256];
	struct strbuf sb = STRBUF(line, sizeof(line) - 1);

	sb_puts(&sb, "cordon: ");
	sb_puts(&sb, a);
	sb_puts(&sb, b ? b : "");
	sb_puts(&sb, c ? c : "");
	line[sb.len++] = '\n';
	shim_say(line, sb.len);
}

static void warn_path(const char *what, const char *path, const char *why)
{
	char msg[PATH_BUF + 64];
	struct strbuf sb = STRBUF(msg, sizeof(msg));

	if (shim.policy.quiet)
		return;
	sb_puts(&sb, what);
	sb_puts(&sb, ": '");
	sb_puts(&sb, path);
	sb_puts(&sb, "' ");
	say(msg, why, "; skipped");
}

/* Copy @s into shim.store; NULL when it is full. */
static char *store_take(const char *s)
{
	size_t n = strlen(s) + 1;
	char *at = shim.store + store_used;

	if (n > SNAPSHOT_MAX - store_used)
		return NULL;
	memcpy(at, s, n);
	store_used += n;
	return at;
}

static int add_root(const char *path, unsigned int rights, bool is_dir)
{
	struct policy *p = &shim.policy;

	for (size_t i = 0; i < p->nroots; i++) {
		if (strcmp(p->roots[i].path, path) == 0) {
			p->roots[i].rights |= rights;
			return 0;
		}
	}
	if (p->nroots == POLICY_MAX_ROOTS)
		return -E2BIG;
	p->roots[p->nroots].path = store_take(path);
	if (!p->roots[p->nroots].path)
		return -ENAMETOOLONG;
	p->roots[p->nroots].rights = rights;
	p->roots[p->nroots].origin = ORIGIN_USER;
	p->roots[p->nroots++].is_dir = is_dir;
	return 0;
}

static bool stat_path(const char *path, struct stat *st)
{
	return syscall(SYS_newfstatat, AT_FDCWD, path, st, 0) == 0;
}

/* One entry of a path list: canonicalise, check, add. */
static void add_entry(const char *what, const char *entry, unsigned int rights)
{
	char canon[PATH_BUF];
	struct stat st;
	int ret;

	if (entry[0] != '/') {
		warn_path(what, entry, "is not an absolute path");
		return;
	}
	if (path_resolve(AT_FDCWD, entry, 0, canon) != 0 ||
	    !stat_path(canon, &st)) {
		warn_path(what, entry, "does not exist");
		return;
	}
	ret = add_root(canon, rights, S_ISDIR(st.st_mode));
	if (ret)
		say(what, ": too many paths; the rest is not granted",
		    ret == -E2BIG ? " (the limit is 256)" : "");
}

/* @name's colon-separated paths, when it is set. */
static void add_list(const char *name, unsigned int rights)
{
	const char *v = var(name);
	char entry[PATH_BUF];

	while (v && *v) {
		size_t n = strcspn(v, ":");

		if (n >= sizeof(entry)) {
			say(name, ": a path is too long; skipped", NULL);
		} else if (n > 0) {
			memcpy(entry, v, n);
			entry[n] = '\0';
			add_entry(name, entry, rights);
		}
		v += n;
		v += *v == ':';
	}
}

/* The devices every program uses as files, as the launcher grants them. */
static void add_devices(void)
{
	char canon[PATH_BUF];
	struct stat st;

	for (size_t i = 0; policy_rw_devices[i]; i++)
		if (path_resolve(AT_FDCWD, policy_rw_devices[i], 0, canon) ==
			    0 &&
		    stat_path(canon, &st))
			add_root(canon, RIGHT_R | RIGHT_W, S_ISDIR(st.st_mode));
}

/* Children load the preloaded libraries again: without read access to
 * them every exec would print ld.so's error and lose the shim. */
static void add_preload(void)
{
	const char *v = var("LD_PRELOAD");
	char entry[PATH_BUF], canon[PATH_BUF];
	struct stat st;

	while (v && *v) {
		size_t n = strcspn(v, ": ");

		if (n > 0 && n < sizeof(entry) && v[0] == '/') {
			memcpy(entry, v, n);
			entry[n] = '\0';
			if (!strchr(entry, '$') &&
			    path_resolve(AT_FDCWD, entry, 0, canon) == 0 &&
			    stat_path(canon, &st) && S_ISREG(st.st_mode) &&
			    !(policy_rights(&shim.policy, canon) & RIGHT_R))
				add_root(canon, RIGHT_R, false);
		}
		v += n;
		v += *v != '\0';
	}
}

static void load_net(void)
{
	const char *v = var("CORDON_NET");
	struct policy *p = &shim.policy;

	p->net = NET_OFF;
	if (!v || strcmp(v, "off") == 0)
		return;
	if (strcmp(v, "on") == 0) {
		p->net = NET_ON;
		return;
	}
	p->net = NET_PORTS;
	if (policy_add_ports(p, v, false) == 0)
		return;
	p->net = NET_OFF;
	p->nconnect = p->nconnect_udp = 0;
	say("CORDON_NET='", v,
	    "': expected on, off or ports like 80,443 or udp:53; the "
	    "network stays off");
}

static bool is_env_pattern(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '*' && i == n - 1)
			break;
		if (!(c == '_' || (c >= 'A' && c <= 'Z') ||
		      (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			return false;
	}
	return n > 0;
}

static void load_env(void)
{
	const char *v = var("CORDON_ENV");
	struct policy *p = &shim.policy;
	char name[256];

	p->env = ENV_SCRUB;
	while (v && *v) {
		size_t n = strcspn(v, ",");

		if (n >= sizeof(name) || !is_env_pattern(v, n)) {
			say("CORDON_ENV: not a variable name (NAME or "
			    "PREFIX*); skipped",
			    NULL, NULL);
		} else if (p->nenv_names < POLICY_MAX_ENV) {
			memcpy(name, v, n);
			name[n] = '\0';
			p->env_names[p->nenv_names] = store_take(name);
			if (p->env_names[p->nenv_names])
				p->nenv_names++;
		}
		v += n;
		v += *v == ',';
	}
}

/* $HOME, canonical, for the tools' roots in the hints (toolroot.h). */
static void load_home(void)
{
	const char *home = var("HOME");
	char canon[PATH_BUF];

	if (home && home[0] == '/' &&
	    path_resolve(AT_FDCWD, home, 0, canon) == 0 &&
	    strcmp(canon, "/") != 0)
		shim.policy.home = store_take(canon);
}

/* The log file exists before Landlock, which grants only what exists;
 * the command may write it unless a root already lets it. */
static void load_log(void)
{
	const char *v = var("CORDON_LOG");
	char canon[PATH_BUF + 8];
	struct strbuf sb = STRBUF(canon, sizeof(canon));
	long fd;

	if (!v || !*v)
		return;
	sb_puts(&sb, "file:");
	if (path_resolve(AT_FDCWD, v, 0, canon + sb.len) != 0) {
		say("CORDON_LOG: cannot resolve '", v, "'; no audit log");
		return;
	}
	fd = syscall(SYS_openat, AT_FDCWD, canon + sb.len,
		     O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		say("CORDON_LOG: cannot create '", v, "'; no audit log");
		return;
	}
	syscall(SYS_close, fd);
	shim.extra.log = store_take(canon);
	if (shim.extra.log &&
	    !(policy_rights(&shim.policy, shim.extra.log + 5) & RIGHT_W))
		add_root(shim.extra.log + 5, RIGHT_W, false);
}

/* "CORDON_POLICY=<snapshot>" for the children. */
static void encode_snapshot(void)
{
	struct strbuf sb;
	int n;

	shim.snapshot = shim.store + store_used; /* the arena's next piece */
	sb = STRBUF(shim.snapshot, SNAPSHOT_MAX);
	sb_puts(&sb, SNAPSHOT_VAR "=");
	n = snapshot_encode(&shim.policy, &shim.extra, shim.snapshot + sb.len,
			    SNAPSHOT_MAX - sb.len);
	if (n < 0) {
		shim.snapshot[0] = '\0';
		say("the policy is too large to pass on: children run "
		    "without the shim (Landlock still holds them)",
		    NULL, NULL);
	}
}

/* In place: the process keeps the same array, shorter.  At least one
 * CORDON_ variable goes, so CORDON_POLICY has a slot. */
static void scrub_environ(void)
{
	char **envp = start_envp;
	size_t kept = 0, i;

	if (!envp)
		return;
	for (i = 0; envp[i]; i++) {
		if (strncmp(envp[i], "CORDON_", 7) == 0)
			continue;
		if (!env_is_name(envp[i], "LD_PRELOAD") &&
		    !env_name_allowed(&shim.policy, envp[i])) {
			/* the value leaves memory too: /proc/PID/environ
			 * shows the strings, not the array */
			memset(envp[i], 0, strlen(envp[i]));
			continue;
		}
		envp[kept++] = envp[i];
	}
	if (shim.snapshot[0] && kept < i)
		envp[kept++] = shim.snapshot;
	envp[kept] = NULL;
}

/* The threads of this process, from /proc/self/stat (its 20th field):
 * raw calls, the stack only.  0 when it cannot be read. */
static unsigned long threads(void)
{
	char buf[1024];
	unsigned long n = 0;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/stat",
			      O_RDONLY | O_CLOEXEC);
	ssize_t len =
		fd < 0 ? -1
		       : (ssize_t)syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	const char *at;
	int field = 2;

	if (fd >= 0)
		syscall(SYS_close, fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	at = strrchr(buf, ')'); /* the name may hold anything */
	for (; at && *at && field < 20; at++)
		field += *at == ' ';
	while (at && *at >= '0' && *at <= '9')
		n = n * 10 + (unsigned long)(*at++ - '0');
	return n;
}

static void say_threads(unsigned long n)
{
	char num[24];
	struct strbuf sb = STRBUF(num, sizeof(num));

	sb_uint(&sb, n - 1);
	say("Landlock holds this thread and those it starts, not the ", num,
	    " other threads that ran before libcordon.so was loaded (every "
	    "thread needs Landlock ABI 8, Linux 7.0)");
}

static void apply_landlock(void)
{
	char err[ERR_MAX];
	int abi = landlock_abi();
	struct landlock_opts o = { .quiet = false };
	unsigned long n;

	if (abi == -ENOSYS || abi == -EOPNOTSUPP) {
		say("Landlock was not applied: ",
		    abi == -ENOSYS ? "this kernel does not have it"
				   : "it is disabled at boot",
		    "; only the shim's advisory checks hold");
		return;
	}
	if (abi < 0) {
		say("Landlock was not applied: cannot probe it: ",
		    strerror(-abi), "; only the shim's advisory checks hold");
		return;
	}
	n = threads(); /* before: /proc may not be readable after */
	if (landlock_apply(&shim.policy, abi, &o, err, sizeof(err)) != 0) {
		say("Landlock was not applied: ", err,
		    "; only the shim's advisory checks hold");
		return;
	}
	if (!o.all_threads && n > 1)
		say_threads(n);
	shim.extra.ll_unix = o.unix_sockets;
}

int standalone_load(char **envp)
{
	start_envp = envp;
	const char *q = var("CORDON_QUIET");

	if (!var("CORDON_READ") && !var("CORDON_WRITE") && !var("CORDON_EXEC"))
		return -ENOENT;
	memset(&shim.policy, 0, offsetof(struct policy, roots));
	memset(&shim.extra, 0, sizeof(shim.extra));
	store_used = 0;
	shim.extra.standalone = true;
	shim.extra.udp = true; /* CORDON_NET takes UDP ports */
	shim.policy.quiet = q && strcmp(q, "1") == 0;
	add_list("CORDON_READ", RIGHT_R);
	add_list("CORDON_WRITE", RIGHT_R | RIGHT_W);
	add_list("CORDON_EXEC", RIGHT_R | RIGHT_X);
	add_list("CORDON_CONNECT_UNIX", RIGHT_U);
	add_devices();
	add_preload();
	load_home();
	load_log();
	load_env();
	load_net();
	/* first: the snapshot says whether Landlock holds the sockets */
	apply_landlock();
	encode_snapshot();
	scrub_environ();
	return 0;
}

void standalone_refuse_all(char **envp)
{
	start_envp = envp;
	memset(&shim.policy, 0, offsetof(struct policy, roots));
	memset(&shim.extra, 0, sizeof(shim.extra));
	shim.policy.net = NET_OFF;
	say("malformed " SNAPSHOT_VAR ": every file, program and connection "
	    "is refused (set it only through cordon, or unset it)",
	    NULL, NULL);
	apply_landlock();
}
