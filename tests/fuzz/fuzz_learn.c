/*
 * fuzz_learn.c - libFuzzer target for what `cordon learn` takes from
 * the records of a run (enforce/learn/learn_check.c): every byte of it is the
 * command's to choose.
 *
 * Whatever the bytes: a path kept is absolute, normal (normalising it
 * again changes nothing), shorter than PATH_BUF and free of control
 * bytes, and a grant of "/" or of the home is never let through; a port
 * kept is in range; a host kept is no wildcard.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/learn/learn_check.h"
#include "shim/core/path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct learn_guard guard;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[PATH_BUF + 64], out[PATH_BUF], again[PATH_BUF];
	unsigned int port = 70000;

	if (!guard.home[0]) {
		setenv("HOME", "/home/u", 1);
		learn_guard_init(&guard, "/home/u", "/home/u/p.json");
	}
	if (size >= sizeof(in))
		size = sizeof(in) - 1;
	memcpy(in, data, size);
	in[size] = '\0';
	if (learn_path_clean(in, out)) {
		if (out[0] != '/' || strlen(out) >= PATH_BUF ||
		    path_normalize(out, again) != 0 || strcmp(out, again) != 0)
			abort();
		for (const char *c = out; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				abort();
		if ((strcmp(out, "/") == 0 || strcmp(out, "/home/u") == 0 ||
		     strcmp(out, "/home") == 0) &&
		    !learn_grant_risk(&guard, out, size & 1))
			abort();
		learn_grant_risk(&guard, out, true);
	}
	if (learn_port_parse(in, size & 1, &port) &&
	    (port > 65535 || (port == 0 && !(size & 1))))
		abort();
	if (learn_host_ok(in) && strchr(in, '*'))
		abort();
	return 0;
}
