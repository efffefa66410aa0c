/*
 * shebang.c - the interpreter named on a script's "#!" line.
 *
 * Async-signal-safe: it runs in the shim's exec hooks, between vfork and
 * exec, as well as in the launcher.  Raw system calls only: in the shim
 * a libc open() would be the shim's own hook.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/shebang.h"

bool shebang_parse(char *buf, long n)
{
	char *p, *end;

	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return false;
	buf[n] = '\0';
	for (p = buf + 2; *p == ' ' || *p == '\t';)
		p++;
	end = p + strcspn(p, " \t\n");
	if (end == p)
		return false;
	*end = '\0';
	memmove(buf, p, (size_t)(end - p) + 1);
	return true;
}

bool shebang_read(int dirfd, const char *path, int flags, char buf[SHEBANG_BUF])
{
	long fd, n;

	if (!path[0])
		return false;
	fd = syscall(SYS_openat, dirfd, path,
		     O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | flags, 0);
	if (fd < 0)
		return false;
	n = syscall(SYS_pread64, fd, buf, (size_t)SHEBANG_BUF - 1, (off_t)0);
	syscall(SYS_close, fd);
	return shebang_parse(buf, n);
}
