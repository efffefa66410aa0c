/*
 * getenv - print what getenv(3) (or secure_getenv, with -s) answers for
 * each NAME, one line each: "NAME=VALUE" or "NAME unset".  A program
 * asking libc for a variable, as pkg-config and compilers do: what the
 * shim's getenv hook sees (a shell, Python or Go read the environment
 * without it).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int i = 1;
	int secure = argc > 1 && strcmp(argv[1], "-s") == 0;

	for (i += secure; i < argc; i++) {
		const char *v =
			secure ? secure_getenv(argv[i]) : getenv(argv[i]);

		if (v)
			printf("%s=%s\n", argv[i], v);
		else
			printf("%s unset\n", argv[i]);
	}
	return 0;
}
