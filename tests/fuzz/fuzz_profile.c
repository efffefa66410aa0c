/*
 * fuzz_profile.c - libFuzzer target for profile_apply(): the input is a
 * profile file given with --profile.  A profile may come with a cloned
 * repository (named on the command line), so it is untrusted text.
 *
 * Invariants, abort() on violation: no crash or leak past the bounds
 * (ASan); on success the counts stay within the policy's arrays; on
 * failure the message is one line that names the profile.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enforce/policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct cli c;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[] = "/tmp/cordon-fuzz-profile.json";
	char err[512] = "";
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	memset(&c, 0, sizeof(c));
	c.profiles[0] = path;
	c.nprofiles = 1;
	ret = profile_apply(&c, err, sizeof(err));
	if (ret == 0 && (c.nreqs > POLICY_MAX_ROOTS ||
			 c.policy.nconnect > POLICY_MAX_PORTS ||
			 c.policy.nenv_names > POLICY_MAX_ENV))
		abort();
	if (ret != 0 && (!strstr(err, path) || strchr(err, '\n')))
		abort();
	/* what a profile copies lives for the run; here, free it */
	for (size_t i = 0; i < c.nreqs; i++)
		free((void *)c.reqs[i].path);
	policy_free(&c.policy);
	return 0;
}
