/*
 * sysfilter.c - the socket filter that closes what Landlock leaves open.
 *
 * Landlock (up to ABI 7) controls TCP ports only: UDP, raw, SCTP and
 * MPTCP sockets pass it.  With network off, this filter refuses every
 * IPv4 and IPv6 socket; with only TCP ports allowed, it refuses every
 * such socket that is not plain TCP.  Denials return EACCES, as
 * Landlock's do.  The filter is built with libseccomp, for the native
 * architecture and the 32-bit ones a 64-bit kernel also runs.
 */
#include <errno.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "sysfilter.h"

#define SOCK_TYPE_MASK 0xf

static bool has_seccomp(void)
{
	return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

void sysfilter_features(const struct policy *p, struct feature_set *s)
{
	feature_add(s, (struct feature){
			       .layer = "seccomp",
			       .name = "UDP, raw and other non-TCP sockets",
			       .needs = "seccomp filters (Linux 3.5)",
			       .needed = p->net != NET_ON,
			       .available = has_seccomp(),
		       });
}

static int deny(scmp_filter_ctx ctx, unsigned int n,
		const struct scmp_arg_cmp *cmp)
{
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EACCES),
				      SCMP_SYS(socket), n, cmp);
}

/* Refuse every socket of @family but plain TCP (or all with @all). */
static int deny_family(scmp_filter_ctx ctx, int family, bool all)
{
	static const int types[] = { SOCK_DGRAM,     SOCK_RAW,	SOCK_RDM,
				     SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET };
	struct scmp_arg_cmp c[3] = { SCMP_A0(SCMP_CMP_EQ,
					     (scmp_datum_t)family) };
	int ret;

	if (all)
		return deny(ctx, 1, c);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		c[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, SOCK_TYPE_MASK,
			       (scmp_datum_t)types[i]);
		ret = deny(ctx, 2, c);
		if (ret)
			return ret;
	}
	/* A stream socket that is not TCP: SCTP, MPTCP. */
	c[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, SOCK_TYPE_MASK, SOCK_STREAM);
	c[2] = SCMP_A2(SCMP_CMP_GT, IPPROTO_TCP);
	return deny(ctx, 3, c);
}

static int build(scmp_filter_ctx ctx, const struct policy *p)
{
	bool all = p->net == NET_OFF;
	int ret;

	ret = seccomp_arch_add(ctx, SCMP_ARCH_X86);
	if (ret && ret != -EEXIST)
		return ret;
	ret = seccomp_arch_add(ctx, SCMP_ARCH_X32);
	if (ret && ret != -EEXIST)
		return ret;
	ret = deny_family(ctx, AF_INET, all);
	if (!ret)
		ret = deny_family(ctx, AF_INET6, all);
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
				       SCMP_SYS(socket), 1,
				       SCMP_A0(SCMP_CMP_EQ, AF_PACKET));
	return ret;
}

int sysfilter_apply(const struct policy *p, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	int ret;

	if (p->net == NET_ON)
		return 0;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		snprintf(err, errlen, "cannot create a seccomp filter");
		return -ENOMEM;
	}
	ret = build(ctx, p);
	if (!ret)
		ret = seccomp_load(ctx);
	if (ret)
		snprintf(err, errlen, "cannot install the seccomp filter: %s",
			 strerror(-ret));
	seccomp_release(ctx);
	return ret;
}
