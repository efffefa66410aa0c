/*
 * broker_cmsg.h - the control data of a message the broker sends for the
 * command, checked so that it carries no more authority than the
 * command's own send would (broker_cmsg.c).
 */
#ifndef CORDON_BROKER_CMSG_H
#define CORDON_BROKER_CMSG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Ranges of a user namespace's uid_map or gid_map, at most (the kernel
 * takes 340). */
#define BROKER_MAP_MAX 340

struct broker_idmap {
	uint32_t in, out, count;
};

/* The calling process, as the kernel sees it.  Read from /proc by the
 * broker (broker_ids_read()), filled by hand in the unit tests. */
struct broker_ids {
	pid_t tgid_in;	/* its pid, in its own PID namespace */
	pid_t tgid_out; /* its pid, in the supervisor's */
	uid_t uid[3];	/* real, effective, saved: the supervisor's view */
	gid_t gid[3];
	/* its user namespace's maps, the outside seen from the supervisor */
	size_t nuid, ngid;
	struct broker_idmap uidmap[BROKER_MAP_MAX];
	struct broker_idmap gidmap[BROKER_MAP_MAX];
};

/* What broker_cmsg_vet() found. */
#define BROKER_CMSG_RIGHTS 1u /* SCM_RIGHTS: descriptors to take */
#define BROKER_CMSG_CREDS  2u /* SCM_CREDENTIALS: the caller's own */

/* Flags of a send the broker never makes: MSG_ZEROCOPY would have the
 * kernel transmit from the broker's buffer after it was freed (and
 * reused for anything of the supervisor's); the send is made copying. */
#define BROKER_MSG_STRIP 0x4000000 /* MSG_ZEROCOPY */

/* broker_cmsg_next()'s positions: before the first header, past the
 * last, at a header that does not fit (the kernel: EINVAL). */
#define BROKER_CMSG_FIRST ((size_t)-1)
#define BROKER_CMSG_END	  ((size_t)-2)
#define BROKER_CMSG_BAD	  ((size_t)-3)

/**
 * broker_cmsg_next - the header after the one at @at (BROKER_CMSG_FIRST:
 * the first) of the control data @ctl (@len bytes), walked exactly as
 * the kernel walks it (for_each_cmsghdr, CMSG_OK): the next header is
 * read when it fits whole, and must not run past the end.  glibc's
 * CMSG_NXTHDR differs by version: before 2.36 it stops before a last
 * header whose length is no multiple of 8, which the kernel reads; from
 * 2.36 it returns a header whose length runs past the end (a walk that
 * believes it reads past its buffer).  A walk that must see exactly the
 * headers the kernel will act on uses this one.
 * Return: its offset, with a copy in *@h; BROKER_CMSG_END; or
 * BROKER_CMSG_BAD.
 */
size_t broker_cmsg_next(const unsigned char *ctl, size_t len, size_t at,
			struct cmsghdr *h);

/**
 * broker_cmsg_vet - check the control data @ctl (@len bytes, the
 * broker's copy) of a message the command asked to send, walking it as
 * the kernel does (a header that does not fit: -EINVAL).  Allowed:
 *  - SCM_RIGHTS (the descriptors are then taken from the command by
 *    number: take_fds() in broker_msg.c);
 *  - SCM_CREDENTIALS naming exactly the caller: its own pid, one of its
 *    real, effective or saved uids, and gids (the rule the kernel holds
 *    an unprivileged sender to), rewritten in place into the
 *    supervisor's view (its pid there, its ids outside its user
 *    namespace); @ids (asked once, only then) says who the caller is;
 *    other ones -EPERM, a malformed one -EINVAL, as the kernel answers;
 *  - the IP, IPv6 and UDP options that need no privilege (IP_TOS,
 *    IP_TTL, IP_PKTINFO, IPV6_PKTINFO, IPV6_HOPLIMIT, IPV6_TCLASS,
 *    IPV6_DONTFRAG, UDP_SEGMENT), and SO_TIMESTAMPING, SCM_TXTIME.
 * Anything else (SO_MARK, SO_PRIORITY, IP and IPv6 options, types
 * unknown here): -EPERM, as the kernel answers a sender without the
 * capability the broker holds.
 *
 * Return: 0 with *@found (BROKER_CMSG_*), or -errno.
 */
int broker_cmsg_vet(unsigned char *ctl, size_t len,
		    int (*ids)(void *arg, struct broker_ids *out), void *arg,
		    unsigned int *found);

/**
 * broker_cmsg_add_creds - the control data @ctl (@len bytes, checked by
 * broker_cmsg_vet()) with SCM_CREDENTIALS @uc after its last header,
 * where the kernel's walk reads it, into @out (@cap bytes).
 * Return: the new length, or 0 when it does not fit.
 */
size_t broker_cmsg_add_creds(const unsigned char *ctl, size_t len,
			     const struct ucred *uc, unsigned char *out,
			     size_t cap);

/**
 * broker_ids_read - who thread @tid (a pid in the supervisor's PID
 * namespace) is: /proc/TID/status and its uid_map and gid_map.
 * Return: 0, or -errno (-ESRCH: gone).
 */
int broker_ids_read(pid_t tid, struct broker_ids *out);

#endif
