/*
 * llhave: which of Landlock's rights past ABI 7 this kernel takes, for
 * the integration tests to tell which mechanism holds a guarantee here
 * (the tests run on every kernel of the matrix, and say which they
 * proved).
 *
 *   llhave            prints the names of those it has, one line
 *   llhave NAME       exit 0 when it has NAME, 1 when not
 *
 * Names: landlock (any ABI), tcp (ABI 4), resolve_unix (ABI 9), udp
 * (ABI 10), quiet (ABI 10), tsync (ABI 8).  Each is tried, not read off the ABI
 * number: a ruleset handling the right is made (and closed); TSYNC is applied,
 * in a child thrown away, with a ruleset that denies nothing.
 *
 * Exit status: 2 on misuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim/core/landlock_uapi.h"

static int takes(const struct ll_ruleset_attr *a, size_t size)
{
	long fd = syscall(__NR_landlock_create_ruleset, a, size, 0);

	if (fd < 0)
		return 0;
	close((int)fd);
	return 1;
}

static int has_tsync(void)
{
	struct ll_ruleset_attr a = { .handled_access_fs = LL_FS_READ_FILE };
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		struct ll_path_beneath_attr all = {
			.allowed_access = LL_FS_READ_FILE,
			.parent_fd = open("/", O_PATH | O_CLOEXEC),
		};
		long fd = syscall(__NR_landlock_create_ruleset, &a,
				  LL_ATTR_SIZE_FS, 0);

		_exit(fd < 0 || all.parent_fd < 0 ||
				      syscall(__NR_landlock_add_rule, fd,
					      LL_RULE_PATH_BENEATH, &all, 0) ||
				      prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
				      syscall(__NR_landlock_restrict_self, fd,
					      LL_RESTRICT_TSYNC)
			      ? 1
			      : 0);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0;
}

static int has(const char *name)
{
	struct ll_ruleset_attr a = { 0 };

	if (strcmp(name, "landlock") == 0) {
		a.handled_access_fs = LL_FS_READ_FILE;
		return takes(&a, LL_ATTR_SIZE_FS);
	}
	if (strcmp(name, "tcp") == 0) {
		a.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		return takes(&a, LL_ATTR_SIZE_NET);
	}
	if (strcmp(name, "resolve_unix") == 0) {
		a.handled_access_fs = LL_FS_RESOLVE_UNIX;
		return takes(&a, LL_ATTR_SIZE_FS);
	}
	if (strcmp(name, "udp") == 0) {
		a.handled_access_net =
			LL_NET_BIND_UDP | LL_NET_CONNECT_SEND_UDP;
		return takes(&a, LL_ATTR_SIZE_NET);
	}
	if (strcmp(name, "quiet") == 0) {
		a.handled_access_fs = a.quiet_access_fs = LL_FS_READ_FILE;
		return takes(&a, LL_ATTR_SIZE_QUIET);
	}
	if (strcmp(name, "tsync") == 0)
		return has_tsync();
	return -1;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "landlock",     "tcp",
					     "resolve_unix", "udp",
					     "quiet",	     "tsync" };
	const char *sep = "";
	int r;

	if (argc == 2) {
		r = has(argv[1]);
		if (r < 0) {
			fprintf(stderr, "llhave: unknown right '%s'\n",
				argv[1]);
			return 2;
		}
		return r ? 0 : 1;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: llhave [NAME]\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (has(names[i]) > 0) {
			printf("%s%s", sep, names[i]);
			sep = " ";
		}
	printf("\n");
	return 0;
}
