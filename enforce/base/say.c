/*
 * say.c - the one way cordon says an error: "cordon: <what>", one line
 * whatever it holds.  Only the top of the launcher (main, spawn, probe)
 * and pid 1 before the command runs print; modules return their errors
 * with a one-line message.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "enforce/base/base.h"
#include "shim/core/path.h"

void say_oneline(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

void say_error(const char *fmt, ...)
{
	char line[1024 + PATH_BUF];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	say_oneline(line);
	fprintf(stderr, "cordon: %s\n", line);
}
