/*
 * hook_env.c - getenv and secure_getenv: a program asking for a
 * variable that the launcher's scrub removed (PKG_CONFIG_PATH set
 * outside, `cordon -- make`) is told so, once per name in each process,
 * with the option that passes it (-e NAME), and the launcher keeps a
 * record (`cordon learn` writes it as an "env" entry).  The answer is
 * the one libc gives: NULL.
 *
 * Neither calls the real function: both read environ themselves, as
 * glibc does, so a hook reached before the shim resolved anything (an
 * allocator's initialisation asking for its options, catalog D-6) needs
 * no dlsym.  What the scrub removed the snapshot names (snapshot.h:
 * "gone"); a variable the program unset itself, or one cordon never
 * saw, says nothing.  Allocates nothing, takes no lock, keeps errno.
 * Python and Go read the environment without getenv: their programs
 * are not told.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/shim.h"

extern char **environ;

/* Is @name (@n bytes) in the ':'-separated @list? */
static bool listed(const char *list, const char *name, size_t n)
{
	while (*list) {
		size_t len = strcspn(list, ":");

		if (len == n && strncmp(list, name, n) == 0)
			return true;
		list += len;
		list += *list == ':';
	}
	return false;
}

static char *lookup(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || strchr(name, '='))
		return NULL;
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

SHIM_API char *getenv(const char *name)
{
	char *v = lookup(name);

	if (!v && !shim_is_ready())
		shim_init();
	if (!v && shim_is_ready() && shim.extra.gone &&
	    listed(shim.extra.gone, name, strlen(name)))
		report_variable(name);
	return v;
}

/* glibc's answer is NULL in a set-user-ID or set-group-ID program
 * (AT_SECURE); under cordon's no_new_privs neither bit takes effect,
 * so the ids tell it (getauxval is above the shim's glibc baseline). */
SHIM_API char *secure_getenv(const char *name)
{
	bool secure = syscall(SYS_getuid) != syscall(SYS_geteuid) ||
		      syscall(SYS_getgid) != syscall(SYS_getegid);

	return secure ? NULL : getenv(name);
}
