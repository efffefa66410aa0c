/*
 * snapshot.c - a policy snapshot (CORDON_POLICY) for the tests, made by
 * the real encoder (shim/core/snapshot.c), never written by hand.
 *
 *   snapshot [--log LOG] [--net] [--inherit-env] [--quiet] [RIGHTS PATH]...
 *
 * RIGHTS is r, rw, rx or rwx; each PATH (canonical) is a root, a
 * directory or a file as it is on disk.  The network is off and the
 * environment scrubbed unless --net (all of it) and --inherit-env say
 * otherwise.  LOG is "file:PATH" or "unix:PATH".  Prints the value;
 * exit 0, or 2 with a line on stderr.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "enforce/policy/policy.h"
#include "shim/core/snapshot.h"

static unsigned int rights_of(const char *s)
{
	unsigned int r = 0;

	for (; *s; s++)
		r |= *s == 'r'	 ? RIGHT_R
		     : *s == 'w' ? RIGHT_W
		     : *s == 'x' ? RIGHT_X
				 : 0x80;
	return r;
}

int main(int argc, char **argv)
{
	static struct policy p;
	static char out[SNAPSHOT_MAX];
	struct snapshot_extra x = { .log = NULL };
	int i = 1;

	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		if (strcmp(argv[i], "--log") == 0 && i + 1 < argc)
			x.log = argv[++i];
		else if (strcmp(argv[i], "--net") == 0)
			p.net = NET_ON;
		else if (strcmp(argv[i], "--inherit-env") == 0)
			p.env = ENV_INHERIT;
		else if (strcmp(argv[i], "--quiet") == 0)
			p.quiet = true;
		else
			break;
	}
	for (; i + 1 < argc; i += 2) {
		unsigned int r = rights_of(argv[i]);
		struct stat st;

		if (!r || (r & 0x80) || stat(argv[i + 1], &st) < 0 ||
		    policy_add_root(&p, argv[i + 1], r, ORIGIN_DEFAULT,
				    S_ISDIR(st.st_mode))) {
			fprintf(stderr, "snapshot: bad root '%s %s'\n", argv[i],
				argv[i + 1]);
			return 2;
		}
	}
	if (i != argc || snapshot_encode(&p, &x, out, sizeof(out)) < 0) {
		fprintf(stderr, "usage: snapshot [--log LOG] [--net] "
				"[--inherit-env] [--quiet] [RIGHTS PATH]...\n");
		return 2;
	}
	puts(out);
	return 0;
}
