/*
 * pit_d1: one public libc call per sub-command, on a path of the fixture
 * tree (tests/helpers/pit_tree.c), for catalog pitfall D-1: libc calls
 * itself directly, so every public name (and every variant the compiler
 * picks: fortified, 64-bit) must be interposed on its own.
 *
 *   pit_d1 SUB DIR     make the call on DIR/file, DIR/new, DIR/dir, ...
 *   pit_d1 --list      the sub-commands
 *
 * The calls are written as a program would write them, so that the
 * compiler chooses the names: this file is built plain (pit_d1), and
 * pit_d1_fortify.c, pit_d1_lfs.c and pit_d1_both.c include it with
 * -D_FORTIFY_SOURCE=2 (open with flags known only at run time becomes
 * __open_2, realpath __realpath_chk, readlink __readlink_chk) and
 * -D_FILE_OFFSET_BITS=64 (open64, fopen64, stat64, ...).
 *
 * Prints "SUB: ok" or "SUB: <errno name>"; exit 0 or 1 accordingly, 2 on
 * misuse.  The exec sub-commands run DIR/prog, which prints "ran".
 */
#ifndef PIT_D1_FORTIFY
#undef _FORTIFY_SOURCE
#endif

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

extern char **environ;

static char path[PATH_MAX];
static int rt_flags;	  /* O_RDONLY, unknown to the compiler */
static size_t rt_len = 1; /* PATH_MAX, unknown to the compiler */

static int walk_cb(const char *p, const struct stat *st, int type,
		   struct FTW *ftw)
{
	(void)p;
	(void)st;
	(void)type;
	(void)ftw;
	return 0;
}

static int fd_ok(int fd)
{
	return fd >= 0 ? 0 : -1;
}

static int reaped(int ret)
{
	while (wait(NULL) > 0)
		;
	return ret;
}

static int d_open(void)
{
	return fd_ok(open(path, rt_flags));
}

static int d_openat(void)
{
	return fd_ok(openat(AT_FDCWD, path, rt_flags));
}

static int d_creat(void)
{
	return fd_ok(creat(path, 0644));
}

static int d_fopen(void)
{
	return fopen(path, "r") ? 0 : -1;
}

static int d_freopen(void)
{
	return freopen(path, "r", stdin) ? 0 : -1;
}

static int d_opendir(void)
{
	return opendir(path) ? 0 : -1;
}

static int d_truncate(void)
{
	return truncate(path, 0);
}

static int d_mkstemp(void)
{
	return fd_ok(mkstemp(path));
}

static int d_mkdtemp(void)
{
	return mkdtemp(path) ? 0 : -1;
}

static int d_remove(void)
{
	return remove(path);
}

static int d_unlink(void)
{
	return unlink(path);
}

static int d_rename(void)
{
	char to[PATH_MAX + 8];

	snprintf(to, sizeof(to), "%s.new", path);
	return rename(path, to);
}

static int d_link(void)
{
	char to[PATH_MAX + 8];

	snprintf(to, sizeof(to), "%s.new", path);
	return link(path, to);
}

static int d_symlink(void)
{
	return symlink("file", path);
}

static int d_mkdir(void)
{
	return mkdir(path, 0755);
}

static int d_chmod(void)
{
	return chmod(path, 0600);
}

static int d_utimensat(void)
{
	return utimensat(AT_FDCWD, path, NULL, 0);
}

static int d_stat(void)
{
	struct stat st;

	return stat(path, &st);
}

static int d_lstat(void)
{
	struct stat st;

	return lstat(path, &st);
}

static int d_access(void)
{
	return access(path, R_OK);
}

static int d_readlink(void)
{
	char buf[PATH_MAX];

	return readlink(path, buf, rt_len) < 0 ? -1 : 0;
}

static int d_realpath(void)
{
	char buf[PATH_MAX];

	return realpath(path, buf) ? 0 : -1;
}

static int d_nftw(void)
{
	return nftw(path, walk_cb, 4, FTW_PHYS);
}

static int d_glob(void)
{
	char pattern[PATH_MAX + 4];
	glob_t g;
	int ret;

	snprintf(pattern, sizeof(pattern), "%s/*", path);
	ret = glob(pattern, GLOB_ERR, NULL, &g);
	return ret == 0 ? 0 : (errno = errno ? errno : EIO, -1);
}

static int d_scandir(void)
{
	struct dirent **names;

	return scandir(path, &names, NULL, NULL) < 0 ? -1 : 0;
}

static int d_dlopen(void)
{
	return dlopen(path, RTLD_NOW) ? 0 : (errno = errno ? errno : EIO, -1);
}

static int d_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	return connect(fd, (struct sockaddr *)&sa, sizeof(sa));
}

static int d_execv(void)
{
	char *argv[] = { path, NULL };

	return execv(path, argv);
}

static int d_execvp(void)
{
	char *argv[] = { path, NULL };

	return execvp(path, argv);
}

static int d_execve(void)
{
	char *argv[] = { path, NULL };

	return execve(path, argv, environ);
}

static int d_execl(void)
{
	return execl(path, path, (char *)NULL);
}

static int d_execlp(void)
{
	return execlp(path, path, (char *)NULL);
}

static int d_execle(void)
{
	return execle(path, path, (char *)NULL, environ);
}

static int d_fexecve(void)
{
	char *argv[] = { path, NULL };
	int fd = open(path, O_PATH);

	if (fd < 0)
		return -1;
	return fexecve(fd, argv, environ);
}

static int spawn(int p)
{
	char *argv[] = { path, NULL };
	pid_t pid;
	int ret = p ? posix_spawnp(&pid, path, NULL, NULL, argv, environ)
		    : posix_spawn(&pid, path, NULL, NULL, argv, environ);

	if (ret)
		errno = ret;
	return reaped(ret ? -1 : 0);
}

static int d_posix_spawn(void)
{
	return spawn(0);
}

static int d_posix_spawnp(void)
{
	return spawn(1);
}

/* The shell runs the path: success is its exit status. */
static int d_system(void)
{
	int st = system(path);

	return st == 0 ? 0 : (errno = errno ? errno : EACCES, -1);
}

static int d_popen(void)
{
	FILE *f = popen(path, "r");
	char line[64];
	int ok;

	if (!f)
		return -1;
	ok = fgets(line, sizeof(line), f) != NULL;
	pclose(f);
	if (ok)
		fputs(line, stdout);
	return ok ? 0 : (errno = EACCES, -1);
}

static int d_wordexp(void)
{
	char words[PATH_MAX + 8];
	wordexp_t w;
	int ok;

	snprintf(words, sizeof(words), "$(%s)", path);
	if (wordexp(words, &w, WRDE_SHOWERR) != 0)
		return (errno = EIO, -1);
	ok = w.we_wordc == 1 && strcmp(w.we_wordv[0], "ran") == 0;
	return ok ? 0 : (errno = EACCES, -1);
}

struct sub {
	const char *name;
	const char *target; /* the fixture entry it names */
	int (*call)(void);
};

static const struct sub subs[] = {
	{ "open", "file", d_open },
	{ "openat", "file", d_openat },
	{ "creat", "new", d_creat },
	{ "fopen", "file", d_fopen },
	{ "freopen", "file", d_freopen },
	{ "opendir", "dir", d_opendir },
	{ "truncate", "file", d_truncate },
	{ "mkstemp", "tmpXXXXXX", d_mkstemp },
	{ "mkdtemp", "tmpXXXXXX", d_mkdtemp },
	{ "remove", "file", d_remove },
	{ "unlink", "file", d_unlink },
	{ "rename", "file", d_rename },
	{ "link", "file", d_link },
	{ "symlink", "new", d_symlink },
	{ "mkdir", "new", d_mkdir },
	{ "chmod", "file", d_chmod },
	{ "utimensat", "file", d_utimensat },
	{ "stat", "file", d_stat },
	{ "lstat", "link", d_lstat },
	{ "access", "file", d_access },
	{ "readlink", "link", d_readlink },
	{ "realpath", "file", d_realpath },
	{ "nftw", "dir", d_nftw },
	{ "glob", "dir", d_glob },
	{ "scandir", "dir", d_scandir },
	{ "dlopen", "lib.so", d_dlopen },
	{ "connect", "sock", d_connect },
	{ "execv", "prog", d_execv },
	{ "execvp", "prog", d_execvp },
	{ "execve", "prog", d_execve },
	{ "execl", "prog", d_execl },
	{ "execlp", "prog", d_execlp },
	{ "execle", "prog", d_execle },
	{ "fexecve", "prog", d_fexecve },
	{ "posix_spawn", "prog", d_posix_spawn },
	{ "posix_spawnp", "prog", d_posix_spawnp },
	{ "system", "prog", d_system },
	{ "popen", "prog", d_popen },
	{ "wordexp", "prog", d_wordexp },
};

int main(int argc, char **argv)
{
	const struct sub *s = NULL;
	const char *e;

	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
			printf("%s %s\n", subs[i].name, subs[i].target);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: pit_d1 SUB DIR | pit_d1 --list\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (strcmp(subs[i].name, argv[1]) == 0)
			s = &subs[i];
	if (!s) {
		fprintf(stderr, "pit_d1: no sub-command '%s'\n", argv[1]);
		return 2;
	}
	if (snprintf(path, sizeof(path), "%s/%s", argv[2], s->target) >=
	    (int)sizeof(path))
		return 2;
	rt_flags = (int)strtol("0", NULL, 10);	   /* O_RDONLY, at run time */
	rt_len = (size_t)strtol("4096", NULL, 10); /* PATH_MAX */
	fflush(NULL);
	errno = 0;
	if (s->call() == 0) {
		printf("%s: ok\n", s->name);
		return 0;
	}
	e = strerrorname_np(errno);
	printf("%s: %s\n", s->name, e ? e : "?");
	return 1;
}
