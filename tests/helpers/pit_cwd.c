/*
 * pit_cwd.c - relative paths after the working directory changed, each
 * way it can change: the steps on the command line, in order.
 *
 *   cd DIR        chdir() through libc (the hook)
 *   fcd DIR       fchdir() (the hook) on DIR, opened O_PATH by the system
 *                 call (the shim may hide DIR from open itself)
 *   rawcd DIR     the chdir system call itself, which no hook sees
 *   stat PATH     stat(); prints "stat PATH ok" or "stat PATH ENAME"
 *   open PATH     open(O_RDONLY), closed; "open PATH ok|ENAME"
 *   vfork DIR PATH
 *                 a vfork child chdir()s to DIR, stats PATH and exits
 *                 with the errno it met; "vfork PATH ok|ENAME"
 *   thread DIR    another thread chdir()s to DIR (the working directory
 *                 is the process's), joined before the next step
 *   tstat PATH    another thread stats PATH; "tstat PATH ok|ENAME"
 *   nftw DIR      nftw(FTW_CHDIR) over DIR, following links: each file
 *                 stated by its name alone, from the directory libc
 *                 changed to; "nftw PATH ok|ENAME"
 *
 * Exit status 0 when every step ran (whatever it answered), 2 on usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ename(int err)
{
	switch (err) {
	case 0:
		return "ok";
	case EACCES:
		return "EACCES";
	case ENOENT:
		return "ENOENT";
	case EPERM:
		return "EPERM";
	default:
		return "EOTHER";
	}
}

static int stat_err(const char *path)
{
	struct stat st;

	return stat(path, &st) ? errno : 0;
}

static void *thread_cd(void *dir)
{
	if (chdir(dir))
		perror("pit_cwd: chdir");
	return NULL;
}

static void *thread_stat(void *path)
{
	printf("tstat %s %s\n", (char *)path, ename(stat_err(path)));
	return NULL;
}

static int walk_stat(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	(void)st;
	if (flag == FTW_F)
		printf("nftw %s %s\n", path, ename(stat_err(path + ftw->base)));
	return 0;
}

static int in_thread(void *(*fn)(void *), char *arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, arg))
		return -1;
	return pthread_join(t, NULL);
}

static int fcd(const char *dir)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, dir,
			      O_PATH | O_DIRECTORY | O_CLOEXEC);
	int ret = fd < 0 ? -1 : fchdir(fd);

	if (fd >= 0)
		close(fd);
	return ret;
}

static void vfork_stat(const char *dir, const char *path)
{
	int status = 0;
	pid_t pid = vfork();

	if (pid == 0) {
		if (chdir(dir))
			_exit(127);
		_exit(stat_err(path));
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = 127 << 8;
	printf("vfork %s %s\n", path, ename(WEXITSTATUS(status)));
}

static int step(char **argv, int *used)
{
	const char *op = argv[0], *arg = argv[1];
	int fd;

	*used = 2;
	if (!arg)
		return -1;
	if (!strcmp(op, "cd"))
		return chdir(arg);
	if (!strcmp(op, "fcd"))
		return fcd(arg);
	if (!strcmp(op, "rawcd"))
		return (int)syscall(SYS_chdir, arg);
	if (!strcmp(op, "stat")) {
		printf("stat %s %s\n", arg, ename(stat_err(arg)));
		return 0;
	}
	if (!strcmp(op, "open")) {
		fd = open(arg, O_RDONLY | O_CLOEXEC);
		printf("open %s %s\n", arg, ename(fd < 0 ? errno : 0));
		return fd < 0 ? 0 : close(fd);
	}
	if (!strcmp(op, "thread"))
		return in_thread(thread_cd, argv[1]);
	if (!strcmp(op, "nftw"))
		return nftw(arg, walk_stat, 16, FTW_CHDIR);
	if (!strcmp(op, "tstat"))
		return in_thread(thread_stat, argv[1]);
	if (!strcmp(op, "vfork") && argv[2]) {
		*used = 3;
		vfork_stat(arg, argv[2]);
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	int used;

	for (int i = 1; i < argc; i += used) {
		if (step(argv + i, &used)) {
			fprintf(stderr, "pit_cwd: step %s failed\n", argv[i]);
			return 2;
		}
		fflush(stdout);
	}
	return 0;
}
