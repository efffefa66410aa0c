/* Unit tests of the broker's check of a message's control data
 * (enforce/broker/broker_cmsg.c): credentials only the caller's own, nothing
 * that needs a privilege, and the walk the kernel makes. */
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "enforce/broker/broker_cmsg.h"

/* The caller of the fixture: pid 7 inside, 4242 outside; uid and gid
 * 1000 (saved 1001) in a user namespace mapping 0..65535 to
 * 100000..165535. */
static int calls;

static int fixture_ids(void *arg, struct broker_ids *out)
{
	(void)arg;
	calls++;
	out->tgid_in = 7;
	out->tgid_out = 4242;
	out->uid[0] = out->uid[1] = 101000;
	out->uid[2] = 101001;
	out->gid[0] = out->gid[1] = out->gid[2] = 101000;
	out->nuid = out->ngid = 1;
	out->uidmap[0] = (struct broker_idmap){ 0, 100000, 65536 };
	out->gidmap[0] = out->uidmap[0];
	return 0;
}

/* A control buffer, 8-byte aligned as the broker's calloc'd copy. */
struct ctl {
	union {
		struct cmsghdr align;
		unsigned char b[512];
	} u;
	size_t len;
};

static void put(struct ctl *c, int level, int type, const void *data, size_t n)
{
	struct cmsghdr h = { .cmsg_len = CMSG_LEN(n),
			     .cmsg_level = level,
			     .cmsg_type = type };

	memcpy(c->u.b + c->len, &h, sizeof(h));
	memcpy(c->u.b + c->len + CMSG_LEN(0), data, n);
	c->len += CMSG_SPACE(n);
}

static void put_creds(struct ctl *c, pid_t pid, uid_t uid, gid_t gid)
{
	struct ucred uc = { pid, uid, gid };

	put(c, SOL_SOCKET, SCM_CREDENTIALS, &uc, sizeof(uc));
}

static int vet(struct ctl *c, unsigned int *found)
{
	calls = 0;
	return broker_cmsg_vet(c->u.b, c->len, fixture_ids, NULL, found);
}

static struct ucred creds_at(const struct ctl *c, size_t at)
{
	struct ucred uc;

	memcpy(&uc, c->u.b + at + CMSG_LEN(0), sizeof(uc));
	return uc;
}

Test(broker_cmsg, own_credentials_rewritten_to_the_supervisors_view)
{
	struct ctl c = { .len = 0 };
	unsigned int found;
	struct ucred uc;

	put_creds(&c, 7, 1000, 1000);
	cr_assert_eq(vet(&c, &found), 0);
	cr_assert_eq(found, BROKER_CMSG_CREDS);
	uc = creds_at(&c, 0);
	cr_assert_eq(uc.pid, 4242);
	cr_assert_eq(uc.uid, 101000);
	cr_assert_eq(uc.gid, 101000);
	/* the saved uid is one the kernel lets an unprivileged sender name */
	c.len = 0;
	put_creds(&c, 7, 1001, 1000);
	cr_assert_eq(vet(&c, &found), 0);
	cr_assert_eq(creds_at(&c, 0).uid, 101001);
}

Test(broker_cmsg, forged_credentials_refused_as_the_kernel_refuses)
{
	static const struct ucred forged[] = {
		{ 1, 1000, 1000 },    /* pid 1 */
		{ 4242, 1000, 1000 }, /* its pid outside, not as it sees it */
		{ 7, 65534, 1000 },   /* another uid */
		{ 7, 0, 1000 },	      /* root inside its namespace */
		{ 7, 1000, 65534 },   /* another gid */
		{ 0, 1000, 1000 },    /* pid 0 */
	};
	unsigned int found;

	for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
		struct ctl c = { .len = 0 };

		put_creds(&c, forged[i].pid, forged[i].uid, forged[i].gid);
		cr_assert_eq(vet(&c, &found), -EPERM, "case %zu", i);
	}
}

Test(broker_cmsg, unmapped_or_malformed_credentials_are_einval)
{
	struct ctl c = { .len = 0 };
	unsigned int found;
	struct ucred uc = { 7, 1000, 1000 };

	put_creds(&c, 7, 70000, 1000); /* no mapping: as make_kuid fails */
	cr_assert_eq(vet(&c, &found), -EINVAL);
	c.len = 0;
	put(&c, SOL_SOCKET, SCM_CREDENTIALS, &uc, sizeof(uc) - 1);
	cr_assert_eq(vet(&c, &found), -EINVAL);
}

Test(broker_cmsg, who_the_caller_is_asked_only_for_credentials_and_once)
{
	struct ctl c = { .len = 0 };
	unsigned int found;
	int fd = 0;

	put(&c, SOL_SOCKET, SCM_RIGHTS, &fd, sizeof(fd));
	cr_assert_eq(vet(&c, &found), 0);
	cr_assert_eq(found, BROKER_CMSG_RIGHTS);
	cr_assert_eq(calls, 0);
	put_creds(&c, 7, 1000, 1000);
	put_creds(&c, 1, 1000, 1000);
	cr_assert_eq(vet(&c, &found), -EPERM);
	cr_assert_eq(calls, 1);
}

Test(broker_cmsg, only_what_needs_no_privilege)
{
	unsigned int found, v = 7;
	static const int refused[][2] = {
		{ SOL_SOCKET, SO_MARK },
		{ SOL_SOCKET, SO_PRIORITY },
		{ IPPROTO_IP, IP_RETOPTS },
		{ IPPROTO_IPV6, IPV6_HOPOPTS },
		{ IPPROTO_IPV6, IPV6_RTHDR },
		{ SOL_SOCKET, 999 },
		{ 12345, 1 },
	};
	static const int free_[][2] = {
		{ IPPROTO_IP, IP_TOS },
		{ IPPROTO_IP, IP_TTL },
		{ IPPROTO_IPV6, IPV6_TCLASS },
		{ IPPROTO_UDP, 103 },
	};

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct ctl c = { .len = 0 };

		put(&c, refused[i][0], refused[i][1], &v, sizeof(v));
		cr_assert_eq(vet(&c, &found), -EPERM, "case %zu", i);
	}
	for (size_t i = 0; i < sizeof(free_) / sizeof(free_[0]); i++) {
		struct ctl c = { .len = 0 };

		put(&c, free_[i][0], free_[i][1], &v, sizeof(v));
		cr_assert_eq(vet(&c, &found), 0, "case %zu", i);
	}
}

/* A last header of 20 bytes (one descriptor, not padded): the kernel
 * reads it (glibc's CMSG_NXTHDR stopped before it until 2.36). */
Test(broker_cmsg, walk_sees_every_header_the_kernel_reads)
{
	struct ctl c = { .len = 0 };
	struct cmsghdr h = { .cmsg_len = CMSG_LEN(0),
			     .cmsg_level = SOL_SOCKET,
			     .cmsg_type = SCM_RIGHTS };
	size_t at = BROKER_CMSG_FIRST, seen = 0;
	int fd = 3;

	memcpy(c.u.b, &h, sizeof(h));
	h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(c.u.b + CMSG_LEN(0), &h, sizeof(h));
	memcpy(c.u.b + 2 * CMSG_LEN(0), &fd, sizeof(fd));
	c.len = CMSG_LEN(0) + CMSG_LEN(sizeof(int));
	while ((at = broker_cmsg_next(c.u.b, c.len, at, &h)) < c.len)
		seen++;
	cr_assert_eq(at, BROKER_CMSG_END);
	cr_assert_eq(seen, 2);
}

/* A last header whose length runs past the end: glibc's CMSG_NXTHDR
 * (2.36) returns it, and a walk that believed it read the descriptors
 * of SCM_RIGHTS past the broker's copy (and wrote its own numbers
 * there); the kernel fails the message, and so does the broker. */
Test(broker_cmsg, walk_stops_at_a_header_running_past_the_end)
{
	struct ctl c = { .len = 0 };
	struct cmsghdr h = { .cmsg_len = CMSG_LEN(0),
			     .cmsg_level = SOL_SOCKET,
			     .cmsg_type = SCM_RIGHTS };
	size_t at = BROKER_CMSG_FIRST;
	unsigned int found;

	memcpy(c.u.b, &h, sizeof(h));
	h.cmsg_len = 4096;
	memcpy(c.u.b + CMSG_LEN(0), &h, sizeof(h));
	c.len = 2 * CMSG_LEN(0);
	at = broker_cmsg_next(c.u.b, c.len, at, &h);
	cr_assert_eq(at, 0);
	cr_assert_eq(broker_cmsg_next(c.u.b, c.len, at, &h), BROKER_CMSG_BAD);
	cr_assert_eq(vet(&c, &found), -EINVAL);
}

Test(broker_cmsg, walk_fails_as_the_kernel_on_a_header_past_the_end)
{
	struct ctl c = { .len = 0 };
	struct cmsghdr h = { .cmsg_len = 64,
			     .cmsg_level = SOL_SOCKET,
			     .cmsg_type = SCM_RIGHTS };
	unsigned int found;

	memcpy(c.u.b, &h, sizeof(h));
	c.len = 32;
	cr_assert_eq(vet(&c, &found), -EINVAL);
	h.cmsg_len = 8; /* shorter than its own header */
	memcpy(c.u.b, &h, sizeof(h));
	cr_assert_eq(vet(&c, &found), -EINVAL);
	/* a tail too short for a header is no header, for both */
	c.len = 0;
	put_creds(&c, 7, 1000, 1000);
	c.len += 8;
	cr_assert_eq(vet(&c, &found), 0);
	/* nothing at all */
	cr_assert_eq(broker_cmsg_vet(c.u.b, 0, fixture_ids, NULL, &found), 0);
	cr_assert_eq(found, 0);
}

Test(broker_cmsg, ids_of_this_process_read_from_proc)
{
	struct broker_ids ids;

	cr_assert_eq(broker_ids_read(getpid(), &ids), 0);
	cr_assert_eq(ids.tgid_out, getpid());
	cr_assert_eq(ids.uid[0], getuid());
	cr_assert_eq(ids.gid[1], getegid());
	/* its own user namespace: no mapping */
	cr_assert_eq(ids.nuid, 1);
	cr_assert_eq(ids.uidmap[0].count, UINT32_MAX);
	cr_assert_eq(broker_ids_read(0x3fffffff, &ids), -ESRCH);
}

/* The caller's credentials added after the last header, where the
 * kernel's walk reads them: after padding an unpadded last header. */
Test(broker_cmsg, credentials_added_where_the_kernel_reads_them)
{
	struct ctl c = { .len = 0 }, out = { .len = 0 };
	struct ucred uc = { 4242, 0, 0 }, got;
	struct cmsghdr h = { .cmsg_len = CMSG_LEN(sizeof(int)),
			     .cmsg_level = SOL_SOCKET,
			     .cmsg_type = SCM_RIGHTS };
	size_t at = BROKER_CMSG_FIRST, n = 0, len;
	int fd = 5;

	/* none before */
	len = broker_cmsg_add_creds(NULL, 0, &uc, out.u.b, sizeof(out.u.b));
	cr_assert_eq(len, CMSG_SPACE(sizeof(uc)));
	/* an SCM_RIGHTS of 20 bytes, unpadded */
	memcpy(c.u.b, &h, sizeof(h));
	memcpy(c.u.b + CMSG_LEN(0), &fd, sizeof(fd));
	c.len = CMSG_LEN(sizeof(int));
	len = broker_cmsg_add_creds(c.u.b, c.len, &uc, out.u.b,
				    sizeof(out.u.b));
	cr_assert_eq(len, CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(uc)));
	while ((at = broker_cmsg_next(out.u.b, len, at, &h)) < len) {
		if (n++ == 1) {
			cr_assert_eq(h.cmsg_type, SCM_CREDENTIALS);
			memcpy(&got, out.u.b + at + CMSG_LEN(0), sizeof(got));
			cr_assert_eq(got.pid, 4242);
		}
	}
	cr_assert_eq(n, 2);
	cr_assert_eq(at, BROKER_CMSG_END);
	/* no room: nothing */
	cr_assert_eq(broker_cmsg_add_creds(c.u.b, c.len, &uc, out.u.b, 40), 0);
}
