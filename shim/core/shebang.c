/*
 * shebang.c - the interpreter named on a script's "#!" line.
 *
 * Pure and async-signal-safe: it runs in the shim's exec hooks, between
 * vfork and exec, as well as in the launcher.
 */
#include <string.h>

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
