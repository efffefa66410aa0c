/*
 * spawn.c - exec the command and turn an exec failure into one line
 * that says why, and the exit status env(1) would use.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"
#include "spawn.h"

/* Find @cmd the way execvp(3) would, for the message only. */
static bool locate(const char *cmd, char out[PATH_BUF])
{
	const char *path = getenv("PATH");
	char buf[PATH_BUF];

	if (strchr(cmd, '/'))
		return path_resolve(AT_FDCWD, cmd, 0, out) == 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		int len = snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path,
				   cmd);

		if (len > 0 && len < (int)sizeof(buf) &&
		    faccessat(AT_FDCWD, buf, F_OK, 0) == 0)
			return path_resolve(AT_FDCWD, buf, 0, out) == 0;
		path += n + (path[n] == ':');
	}
	return false;
}

static void explain_denied(const char *cmd, const struct policy *p)
{
	char where[PATH_BUF], *slash;

	if (!locate(cmd, where) || (policy_rights(p, where) & RIGHT_X)) {
		fprintf(stderr,
			"cordon: cannot execute '%s': Permission denied\n",
			cmd);
		return;
	}
	fprintf(stderr,
		"cordon: cannot execute '%s': Permission denied (%s is "
		"outside the exec roots)",
		cmd, where);
	slash = strrchr(where, '/');
	if (slash && slash != where)
		*slash = '\0';
	fprintf(stderr, "; allow with --exec %s\n", where);
}

int spawn_exec(char **argv, char **envp, const struct policy *p)
{
	int err;

	environ = envp; /* execvp searches the PATH the command will see */
	execvp(argv[0], argv);
	err = errno;
	if (err == ENOENT) {
		fprintf(stderr, "cordon: '%s': %s\n", argv[0],
			strchr(argv[0], '/') ? "No such file or directory"
					     : "command not found");
		return EXIT_NOT_FOUND;
	}
	if (err == EACCES)
		explain_denied(argv[0], p);
	else
		fprintf(stderr, "cordon: cannot execute '%s': %s\n", argv[0],
			strerror(err));
	return EXIT_CANNOT_RUN;
}
