/*
 * holdnotify: run a command under another supervisor's seccomp
 * listener, as a container runtime or a sandbox outside might hold one.
 *
 *   holdnotify COMMAND ARGS...
 *
 * The child installs a filter that hands getpgid(2) to a listener, gives
 * the listener to this process and executes COMMAND; this process holds
 * it (answering nothing: nothing calls getpgid) until COMMAND ends.  The
 * kernel takes one listener per chain of filters, so COMMAND cannot make
 * one of its own.  Exit: COMMAND's status (128+N for signal N), 2 on a
 * failure of its own.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpgid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	int sv[2], st, fd;
	pid_t pid;
	char c;

	if (argc < 2 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		close(sv[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(2);
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				  SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		/* the number: the parent takes it with pidfd_getfd() */
		if (fd < 0 || write(sv[1], &fd, sizeof(fd)) != sizeof(fd) ||
		    read(sv[1], &c, 1) != 1)
			_exit(2);
		close(fd);
		close(sv[1]);
		execvp(argv[1], argv + 1);
		fprintf(stderr, "holdnotify: %s: %s\n", argv[1],
			strerror(errno));
		_exit(127);
	}
	close(sv[1]);
	if (read(sv[0], &fd, sizeof(fd)) != sizeof(fd))
		return 2;
	st = (int)syscall(SYS_pidfd_open, pid, 0);
	fd = st < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, st, fd, 0);
	if (fd < 0 || write(sv[0], "", 1) != 1)
		return 2;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 2;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}
