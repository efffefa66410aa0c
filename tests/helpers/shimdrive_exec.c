/*
 * shimdrive_exec.c - run programs through every name of the exec family,
 * for tests/integration/t_shim_exec.sh.
 *
 *   shimdrive_exec run [-0] [-u NAME] [-s NAME=VALUE] METHOD PROG [ARG...]
 *	Print "pid N", then run PROG with ARGs through METHOD: execve
 *	execv execvp execvpe execl execlp execle fexecve execveat
 *	posix_spawn posix_spawnp posix_spawn_old posix_spawnp_old (the
 *	@GLIBC_2.2.5 versions) system popen wordexp (the last three of
 *	"PROG ARG...").  -0 passes an empty envp (where the method takes
 *	one), -u unsets NAME and -s sets NAME first.  errno is 1234
 *	before the call.  An exec prints
 *	"METHOD: ENAME" when it returns; a spawn prints "METHOD: ENAME
 *	errno=N" or "METHOD: exit N"; system prints "system: status 0xS
 *	errno=N"; popen copies the output, then "popen: pclose 0xS";
 *	wordexp prints "wordexp: R errno=ENAME [word]...".
 *   shimdrive_exec matrix [-b] [-o] FILE...
 *	Every method but wordexp on every FILE (and, with -b, the
 *	p-methods on its bare name, found through PATH; with -o, the
 *	@GLIBC_2.2.5 spawns too), each in a child of its own: one line of
 *	result per call, the programs' own output between them.
 *   shimdrive_exec vfork-env
 *	unsetenv LD_PRELOAD, vfork, execv /usr/bin/env in the child, then
 *	say whether the parent's environ is as it was.
 *   shimdrive_exec vfork-stress N SECONDS
 *	vfork+execv /bin/true N times, or as many as SECONDS allow (a
 *	loaded machine), while three threads malloc and free; a hang never
 *	ends, whatever the budget.
 *   shimdrive_exec execl-many N
 *	From a thread with a 64 KiB stack, execl /bin/sh with N (1000 or
 *	2000) arguments: it prints how many it got.
 *   shimdrive_exec errno-keep
 *	errno after posix_spawn, posix_spawnp, system and popen succeed.
 *
 * Exit status: 0 when the call did what it was asked, 1 when it failed,
 * 2 on misuse; an exec that succeeds is the program it ran.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

#define PROG	       "shimdrive_exec"
#define MAX_ARGS       8
#define SMALL_STACK    (64 * 1024)
#define MALLOC_SPINS   3
#define ERRNO_MARK     1234
#define CHURN_BURST    256
#define CHURN_PAUSE_NS 50000

/* posix_spawn[p] as a program linked against glibc < 2.15 calls them. */
int posix_spawn_old(pid_t *pid, const char *path,
		    const posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *attr, char *const argv[],
		    char *const envp[]);
int posix_spawnp_old(pid_t *pid, const char *file,
		     const posix_spawn_file_actions_t *fa,
		     const posix_spawnattr_t *attr, char *const argv[],
		     char *const envp[]);
__asm__(".symver posix_spawn_old,posix_spawn@GLIBC_2.2.5");
__asm__(".symver posix_spawnp_old,posix_spawnp@GLIBC_2.2.5");

static char *empty_env[] = { NULL };

static const char *ename(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "?";
}

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " run|matrix|vfork-env|vfork-stress|"
			"execl-many|errno-keep ...\n");
	exit(2);
}

/* "a b c" of argv, for system() and popen(). */
static const char *joined(char *const argv[])
{
	static char buf[4096];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; argv[i]; i++) {
		int n = snprintf(buf + len, sizeof(buf) - len, "%s%s",
				 i ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(buf) - len)
			break;
		len += (size_t)n;
	}
	return buf;
}

static int wait_exit(const char *method, pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) < 0) {
		printf("%s: waitpid %s\n", method, ename(errno));
		return 1;
	}
	if (WIFEXITED(st))
		printf("%s: exit %d\n", method, WEXITSTATUS(st));
	else
		printf("%s: signal %d\n", method, WTERMSIG(st));
	return 0;
}

static int spawn(const char *method, const char *prog, char *const argv[],
		 char *const envp[])
{
	pid_t pid;
	int r;

	errno = ERRNO_MARK;
	if (strcmp(method, "posix_spawn") == 0)
		r = posix_spawn(&pid, prog, NULL, NULL, argv, envp);
	else if (strcmp(method, "posix_spawnp") == 0)
		r = posix_spawnp(&pid, prog, NULL, NULL, argv, envp);
	else if (strcmp(method, "posix_spawn_old") == 0)
		r = posix_spawn_old(&pid, prog, NULL, NULL, argv, envp);
	else
		r = posix_spawnp_old(&pid, prog, NULL, NULL, argv, envp);
	if (r) {
		printf("%s: %s errno=%d\n", method, ename(r), errno);
		return 1;
	}
	return wait_exit(method, pid);
}

static int words(char *const argv[])
{
	wordexp_t we;
	int r;

	errno = ERRNO_MARK;
	r = wordexp(joined(argv), &we, 0);
	printf("wordexp: %d errno=%s", r, ename(errno));
	if (r == 0 || r == WRDE_NOSPACE) {
		for (size_t i = 0; i < we.we_wordc; i++)
			printf(" [%s]", we.we_wordv[i]);
		wordfree(&we);
	}
	printf("\n");
	return r == 0 ? 0 : 1;
}

static int shell(const char *method, char *const argv[])
{
	char line[4096];
	FILE *f;
	int st;

	if (strcmp(method, "wordexp") == 0)
		return words(argv);
	errno = ERRNO_MARK;
	if (strcmp(method, "system") == 0) {
		st = system(joined(argv));
		printf("system: status %#x errno=%d\n", (unsigned int)st,
		       errno);
		return st == 0 ? 0 : 1;
	}
	f = popen(joined(argv), "r");
	if (!f) {
		printf("popen: NULL %s\n", ename(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	st = pclose(f);
	printf("popen: pclose %#x\n", (unsigned int)st);
	return st == 0 ? 0 : 1;
}

/* execl* with up to MAX_ARGS - 1 arguments after PROG. */
static void execl_n(const char *method, const char *prog, char *const a[],
		    char *const envp[])
{
#define L8 a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
	if (strcmp(method, "execl") == 0)
		execl(prog, L8);
	else if (strcmp(method, "execlp") == 0)
		execlp(prog, L8);
	else
		execle(prog, L8, envp);
#undef L8
}

static int dirfd_of(const char *prog, const char **base)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(prog, '/');

	if (!slash) {
		*base = prog;
		return AT_FDCWD;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - prog + 1), prog);
	*base = slash + 1;
	return open(dir, O_PATH | O_DIRECTORY);
}

/* One call of METHOD; returns only when it did not exec. */
static int call(const char *method, const char *prog, char *const argv[],
		char *const envp[])
{
	char *a[MAX_ARGS] = { NULL };
	const char *base;
	int fd;

	if (strncmp(method, "posix_spawn", 11) == 0)
		return spawn(method, prog, argv, envp);
	if (!strcmp(method, "system") || !strcmp(method, "popen") ||
	    !strcmp(method, "wordexp"))
		return shell(method, argv);
	for (size_t i = 0; argv[i] && i < MAX_ARGS - 1; i++)
		a[i] = argv[i];
	fflush(stdout);
	errno = ERRNO_MARK;
	if (strcmp(method, "execve") == 0)
		execve(prog, argv, envp);
	else if (strcmp(method, "execv") == 0)
		execv(prog, argv);
	else if (strcmp(method, "execvp") == 0)
		execvp(prog, argv);
	else if (strcmp(method, "execvpe") == 0)
		execvpe(prog, argv, envp);
	else if (strncmp(method, "execl", 5) == 0)
		execl_n(method, prog, a, envp);
	else if (strcmp(method, "fexecve") == 0) {
		fd = open(prog, O_RDONLY);
		if (fd < 0) {
			printf("%s: open %s\n", method, ename(errno));
			return 1;
		}
		errno = ERRNO_MARK;
		fexecve(fd, argv, envp);
	} else if (strcmp(method, "execveat") == 0) {
		fd = dirfd_of(prog, &base);
		errno = ERRNO_MARK;
		execveat(fd, base, argv, envp, 0);
	} else {
		usage();
	}
	printf("%s: %s\n", method, ename(errno));
	return 1;
}

static int cmd_run(int argc, char **argv)
{
	char *const *envp = environ;
	int opt;

	while ((opt = getopt(argc, argv, "+0u:s:")) != -1) {
		switch (opt) {
		case '0':
			envp = empty_env;
			break;
		case 'u':
			unsetenv(optarg);
			break;
		case 's':
			putenv(optarg);
			break;
		default:
			usage();
		}
	}
	if (argc - optind < 2)
		usage();
	if (envp != empty_env)
		envp = environ; /* after -u and -s */
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	return call(argv[optind], argv[optind + 1], argv + optind + 1, envp);
}

static const char *const methods[] = {
	"execve",
	"execv",
	"execvp",
	"execvpe",
	"execl",
	"execlp",
	"execle",
	"fexecve",
	"execveat",
	"posix_spawn",
	"posix_spawnp",
	"posix_spawn_old",
	"posix_spawnp_old",
	"system",
	"popen",
	NULL,
};

static bool searches(const char *method)
{
	return !strcmp(method, "execvp") || !strcmp(method, "execvpe") ||
	       !strcmp(method, "execlp") || !strcmp(method, "posix_spawnp") ||
	       !strcmp(method, "posix_spawnp_old") ||
	       !strcmp(method, "system") || !strcmp(method, "popen");
}

static void matrix_one(const char *method, const char *prog)
{
	char *argv[] = { (char *)prog, NULL };
	pid_t pid;
	int st;

	printf("== %s %s\n", method, prog);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		call(method, prog, argv, environ);
		fflush(stdout);
		_exit(99);
	}
	waitpid(pid, &st, 0);
	printf("   exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128);
}

static bool is_old(const char *method)
{
	return strstr(method, "_old") != NULL;
}

static int cmd_matrix(int argc, char **argv)
{
	bool bare = false, old = false;
	int opt;

	while ((opt = getopt(argc, argv, "+bo")) != -1) {
		if (opt == 'b')
			bare = true;
		else if (opt == 'o')
			old = true;
		else
			usage();
	}
	for (int i = optind; i < argc; i++) {
		const char *slash = strrchr(argv[i], '/');

		for (size_t m = 0; methods[m]; m++) {
			if (is_old(methods[m]) && !old)
				continue;
			matrix_one(methods[m], argv[i]);
			if (bare && slash && searches(methods[m]))
				matrix_one(methods[m], slash + 1);
		}
	}
	return 0;
}

static size_t count(char **env)
{
	size_t n = 0;

	while (env && env[n])
		n++;
	return n;
}

/* vfork, then execv @path in the child; the child never returns here. */
static pid_t vfork_execv(const char *path, char *const argv[])
{
	pid_t pid = vfork();

	if (pid == 0) {
		execv(path, argv);
		_exit(127);
	}
	return pid;
}

static int cmd_vfork_env(void)
{
	char *argv[] = { (char *)"env", NULL };
	char **before;
	size_t n;
	pid_t pid;
	int st;

	unsetenv("LD_PRELOAD");
	before = environ;
	n = count(environ);
	fflush(stdout);
	pid = vfork_execv("/usr/bin/env", argv);
	waitpid(pid, &st, 0);
	printf("parent: LD_PRELOAD=%s environ %s, %s variables\n",
	       getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "(unset)",
	       environ == before ? "same" : "changed",
	       count(environ) == n ? "same" : "other");
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

static volatile int stop;

/* malloc and free in bursts, pausing between them: the vfork children
 * must run while malloc's locks change hands, without starving. */
static void *churn(void *arg)
{
	struct timespec pause = { 0, CHURN_PAUSE_NS };

	(void)arg;
	while (!stop) {
		for (int n = 0; n < CHURN_BURST; n++) {
			void *p[MALLOC_SPINS];

			for (int i = 0; i < MALLOC_SPINS; i++)
				p[i] = malloc((size_t)(16 << i));
			for (int i = 0; i < MALLOC_SPINS; i++)
				free(p[i]);
		}
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmd_vfork_stress(long n, double budget)
{
	char *argv[] = { (char *)"true", NULL };
	double end = now() + budget;
	pthread_t t[3];
	long bad = 0, runs = 0;

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, churn, NULL);
	for (; runs < n && now() < end; runs++) {
		int st;
		pid_t pid = vfork_execv("/bin/true", argv);

		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			bad++;
	}
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("vfork-stress: %ld runs, %ld failed\n", runs, bad);
	return bad ? 1 : 0;
}

#define A10   "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"
#define A100  A10, A10, A10, A10, A10, A10, A10, A10, A10, A10
#define A1000 A100, A100, A100, A100, A100, A100, A100, A100, A100, A100

static void *execl_many(void *arg)
{
	long n = (long)arg;

	fflush(stdout);
	if (n == 1000)
		execl("/bin/sh", "sh", "-c", "echo $#", "sh", A1000,
		      (char *)NULL);
	else
		execl("/bin/sh", "sh", "-c", "echo $#", "sh", A1000, A1000,
		      (char *)NULL);
	printf("execl: %s\n", ename(errno));
	fflush(stdout);
	_exit(1);
}

static int cmd_execl_many(long n)
{
	pthread_attr_t attr;
	pthread_t t;

	if (n != 1000 && n != 2000)
		usage();
	pthread_attr_init(&attr);
	if (pthread_attr_setstacksize(&attr, SMALL_STACK) != 0 ||
	    pthread_create(&t, &attr, execl_many, (void *)n) != 0) {
		printf("cannot start a thread\n");
		return 2;
	}
	pthread_join(t, NULL);
	return 1;
}

static int cmd_errno_keep(void)
{
	char *argv[] = { (char *)"true", NULL };
	pid_t pid;
	FILE *f;
	int r;

	errno = ERRNO_MARK;
	r = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);
	printf("posix_spawn=%d errno=%d\n", r, errno);
	if (r == 0)
		waitpid(pid, NULL, 0);
	errno = ERRNO_MARK;
	r = posix_spawnp(&pid, "true", NULL, NULL, argv, environ);
	printf("posix_spawnp=%d errno=%d\n", r, errno);
	if (r == 0)
		waitpid(pid, NULL, 0);
	errno = ERRNO_MARK;
	r = system("true");
	printf("system=%d errno=%d\n", r, errno);
	errno = ERRNO_MARK;
	f = popen("true", "r");
	printf("popen=%s errno=%d\n", f ? "stream" : "NULL", errno);
	if (f)
		pclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "matrix") == 0)
		return cmd_matrix(argc - 1, argv + 1);
	if (strcmp(argv[1], "vfork-env") == 0)
		return cmd_vfork_env();
	if (strcmp(argv[1], "vfork-stress") == 0 && argc == 4)
		return cmd_vfork_stress(strtol(argv[2], NULL, 10),
					strtod(argv[3], NULL));
	if (strcmp(argv[1], "execl-many") == 0 && argc == 3)
		return cmd_execl_many(strtol(argv[2], NULL, 10));
	if (strcmp(argv[1], "errno-keep") == 0)
		return cmd_errno_keep();
	usage();
	return 2;
}
