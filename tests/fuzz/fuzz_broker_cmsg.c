/*
 * fuzz_broker_cmsg.c - libFuzzer target for the control data the broker
 * sends for the command (enforce/broker/broker_cmsg.c): bytes from inside the
 * sandbox, walked and checked in the supervisor.
 *
 * Whatever the bytes (copied to a buffer of exactly their size, so that
 * ASan sees any read past it): broker_cmsg_vet() answers 0, -EINVAL or
 * -EPERM; when it answers 0, every header the kernel's walk reads lies
 * whole inside the buffer, credentials left in it are the fixture
 * caller's, rewritten; and the caller's credentials added after them
 * are the last header of a walk that ends cleanly.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/broker/broker_cmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int ids(void *arg, struct broker_ids *out)
{
	(void)arg;
	out->tgid_in = 7;
	out->tgid_out = 4242;
	out->uid[0] = out->uid[1] = out->uid[2] = 101000;
	out->gid[0] = out->gid[1] = out->gid[2] = 101000;
	out->nuid = out->ngid = 1;
	out->uidmap[0] = (struct broker_idmap){ 0, 100000, 65536 };
	out->gidmap[0] = out->uidmap[0];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *ctl = malloc(size ? size : 1), *out;
	size_t at = BROKER_CMSG_FIRST, n, cap;
	struct ucred uc = { 4242, 101000, 101000 };
	unsigned int found;
	struct cmsghdr h;
	int ret;

	if (!ctl)
		return 0;
	memcpy(ctl, data, size);
	ret = broker_cmsg_vet(ctl, size, ids, NULL, &found);
	if (ret != 0 && ret != -EINVAL && ret != -EPERM)
		abort();
	if (ret) {
		free(ctl);
		return 0;
	}
	while ((at = broker_cmsg_next(ctl, size, at, &h)) < size) {
		if (h.cmsg_len > size - at)
			abort();
		if (h.cmsg_level == SOL_SOCKET &&
		    h.cmsg_type == SCM_CREDENTIALS) {
			struct ucred got;

			memcpy(&got, ctl + at + CMSG_LEN(0), sizeof(got));
			if (got.pid != 4242 || got.uid != 101000 ||
			    got.gid != 101000)
				abort();
		}
	}
	if (at != BROKER_CMSG_END)
		abort();
	cap = CMSG_ALIGN(size) + CMSG_SPACE(sizeof(uc));
	out = malloc(cap);
	n = out ? broker_cmsg_add_creds(ctl, size, &uc, out, cap) : 0;
	if (out && !n)
		abort();
	for (at = BROKER_CMSG_FIRST;
	     out && (at = broker_cmsg_next(out, n, at, &h)) < n;)
		if (at + CMSG_SPACE(sizeof(uc)) == n &&
		    h.cmsg_type != SCM_CREDENTIALS)
			abort();
	if (out && at != BROKER_CMSG_END)
		abort();
	free(out);
	free(ctl);
	return 0;
}
