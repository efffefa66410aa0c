/*
 * broker_cmsg.c - the control data of a message the broker sends in the
 * command's place, checked on the broker's own copy before the send.
 *
 * Why: the kernel checks ancillary data against the credentials of the
 * task that sends, and the broker's task is the supervisor, outside,
 * with what the command lacks (root's capabilities; the supervisor's
 * real pid; a user's ownership of the command's user namespace, which
 * gives it every capability in the command's network namespace).
 * Passed on as written, SCM_CREDENTIALS naming pid 1 and uid 65534 went
 * through (root may name any), and SO_MARK or IP options would too.  So
 * the broker holds the command to the rule the kernel holds an
 * unprivileged sender to, itself, and lets through only what needs no
 * privilege; see broker_cmsg.h for the list.
 *
 * Credentials are checked against the caller as the kernel would see it
 * send (its pid in its own namespace, its uids and gids in its user
 * namespace), then rewritten to what the supervisor must say for the
 * receiver to see the same: the caller's pid in the supervisor's PID
 * namespace, its ids outside.  The kernel then vouches for them only
 * when the supervisor may name another pid (root): broker_msg.c raises
 * the capability for that one send; an unprivileged supervisor's send
 * fails EPERM (never the supervisor's pid in the caller's name).
 *
 * The walk is the kernel's (__scm_send, for_each_cmsghdr): a header is
 * read only when it fits whole, and one whose length runs past the end
 * fails the message.  Pure but for broker_ids_read(), which reads /proc.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/broker/broker_cmsg.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef SCM_TXTIME
#define SCM_TXTIME 61
#endif
#ifndef SO_TIMESTAMPING_OLD
#define SO_TIMESTAMPING_OLD 37
#endif

/* What needs no privilege at @level, @type (the kernel's ip_cmsg_send,
 * ip6_datagram_send_ctl, udp_cmsg_send, __sock_cmsg_send). */
static bool is_free(int level, int type)
{
	switch (level) {
	case SOL_SOCKET:
		return type == SO_TIMESTAMPING_OLD || type == SCM_TXTIME;
	case IPPROTO_IP:
		return type == IP_TOS || type == IP_TTL || type == IP_PKTINFO;
	case IPPROTO_IPV6:
		return type == IPV6_PKTINFO || type == IPV6_HOPLIMIT ||
		       type == IPV6_TCLASS || type == IPV6_DONTFRAG;
	case IPPROTO_UDP:
		return type == UDP_SEGMENT;
	default:
		return false;
	}
}

/* @id of the caller's user namespace, through @map, outside; false
 * when it has no mapping (the kernel: EINVAL). */
static bool map_out(const struct broker_idmap *map, size_t n, uint32_t id,
		    uint32_t *out)
{
	for (size_t i = 0; i < n; i++)
		if (id >= map[i].in && id - map[i].in < map[i].count) {
			*out = map[i].out + (id - map[i].in);
			return true;
		}
	return false;
}

static bool one_of(uint32_t id, const uint32_t ids[3])
{
	return id == ids[0] || id == ids[1] || id == ids[2];
}

/* SCM_CREDENTIALS of @len bytes at @at (its header first): the
 * caller's own, rewritten; see the top. */
static int vet_creds(unsigned char *at, size_t len,
		     const struct broker_ids *ids)
{
	struct ucred uc;
	uint32_t uid, gid, uids[3], gids[3];

	if (len != CMSG_LEN(sizeof(uc)))
		return -EINVAL;
	memcpy(&uc, at + CMSG_LEN(0), sizeof(uc));
	if (!map_out(ids->uidmap, ids->nuid, uc.uid, &uid) ||
	    !map_out(ids->gidmap, ids->ngid, uc.gid, &gid) ||
	    uid == (uint32_t)-1 || gid == (uint32_t)-1)
		return -EINVAL;
	for (size_t i = 0; i < 3; i++) {
		uids[i] = ids->uid[i];
		gids[i] = ids->gid[i];
	}
	if (uc.pid != ids->tgid_in || ids->tgid_out <= 0 ||
	    !one_of(uid, uids) || !one_of(gid, gids))
		return -EPERM;
	uc.pid = ids->tgid_out;
	uc.uid = uid;
	uc.gid = gid;
	memcpy(at + CMSG_LEN(0), &uc, sizeof(uc));
	return 0;
}

size_t broker_cmsg_next(const unsigned char *ctl, size_t len, size_t at,
			struct cmsghdr *h)
{
	if (at != BROKER_CMSG_FIRST) {
		/* past the header at @at, already checked whole */
		memcpy(h, ctl + at, sizeof(*h));
		if (CMSG_ALIGN(h->cmsg_len) > len - at)
			return BROKER_CMSG_END;
		at += CMSG_ALIGN(h->cmsg_len);
	} else {
		at = 0;
	}
	if (len - at < sizeof(*h))
		return BROKER_CMSG_END;
	memcpy(h, ctl + at, sizeof(*h));
	if (h->cmsg_len < sizeof(*h) || h->cmsg_len > len - at)
		return BROKER_CMSG_BAD;
	return at;
}

int broker_cmsg_vet(unsigned char *ctl, size_t len,
		    int (*ids)(void *arg, struct broker_ids *out), void *arg,
		    unsigned int *found)
{
	struct broker_ids *who = NULL;
	size_t at = BROKER_CMSG_FIRST;
	struct cmsghdr h;
	int ret = 0;

	*found = 0;
	while (!ret && (at = broker_cmsg_next(ctl, len, at, &h)) < len) {
		if (h.cmsg_level == SOL_SOCKET && h.cmsg_type == SCM_RIGHTS) {
			*found |= BROKER_CMSG_RIGHTS;
		} else if (h.cmsg_level == SOL_SOCKET &&
			   h.cmsg_type == SCM_CREDENTIALS) {
			if (!who) {
				who = calloc(1, sizeof(*who));
				ret = !who ? -ENOMEM : ids(arg, who);
			}
			if (!ret)
				ret = vet_creds(ctl + at, h.cmsg_len, who);
			*found |= BROKER_CMSG_CREDS;
		} else if (!is_free(h.cmsg_level, h.cmsg_type)) {
			ret = -EPERM;
		}
	}
	free(who);
	return ret ? ret : at == BROKER_CMSG_BAD ? -EINVAL : 0;
}

size_t broker_cmsg_add_creds(const unsigned char *ctl, size_t len,
			     const struct ucred *uc, unsigned char *out,
			     size_t cap)
{
	struct cmsghdr h = { .cmsg_len = CMSG_LEN(sizeof(*uc)),
			     .cmsg_level = SOL_SOCKET,
			     .cmsg_type = SCM_CREDENTIALS };
	size_t at = BROKER_CMSG_FIRST, end = 0, keep;
	struct cmsghdr last;

	while ((at = broker_cmsg_next(ctl, len, at, &last)) < len)
		end = at + CMSG_ALIGN(last.cmsg_len);
	if (at == BROKER_CMSG_BAD || end > cap ||
	    CMSG_SPACE(sizeof(*uc)) > cap - end)
		return 0;
	keep = end < len ? end : len;
	if (keep)
		memcpy(out, ctl, keep);
	memset(out + keep, 0, end + CMSG_SPACE(sizeof(*uc)) - keep);
	memcpy(out + end, &h, sizeof(h));
	memcpy(out + end + CMSG_LEN(0), uc, sizeof(*uc));
	return end + CMSG_SPACE(sizeof(*uc));
}

/* The whole of the small /proc file @path into @buf (NUL-terminated). */
static int slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n = 0;

	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	while (got + 1 < cap && (n = read(fd, buf + got, cap - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	return n < 0 ? -EIO : 0;
}

/* The numbers after "@key:" in @text, at most @max into @out. */
static size_t field(const char *text, const char *key, long long *out,
		    size_t max)
{
	size_t klen = strlen(key), n = 0;
	const char *p = text;
	char *end;

	while (p && strncmp(p, key, klen))
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	if (!p)
		return 0;
	for (p += klen; n < max && *p != '\n' && *p; p = end) {
		out[n] = strtoll(p, &end, 10);
		if (end == p)
			break;
		n++;
	}
	return n;
}

static int read_map(pid_t tid, const char *which, struct broker_idmap *map,
		    size_t *n)
{
	static __thread char buf[BROKER_MAP_MAX * 36];
	char path[64];
	const char *p;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, which);
	ret = slurp(path, buf, sizeof(buf));
	*n = 0;
	for (p = buf; !ret && *p && *n < BROKER_MAP_MAX;) {
		unsigned long v[3];
		char *end;

		for (int i = 0; i < 3; i++) {
			v[i] = strtoul(p, &end, 10);
			if (end == p || v[i] > UINT32_MAX)
				return -EIO;
			p = end;
		}
		map[*n].in = (uint32_t)v[0];
		map[*n].out = (uint32_t)v[1];
		map[(*n)++].count = (uint32_t)v[2];
		while (*p == '\n' || *p == ' ')
			p++;
	}
	return ret;
}

/* Is thread @tid in the supervisor's own user namespace?  Its maps
 * then show the namespace above (the kernel's rule for the reader in
 * the same namespace), and its ids need no mapping. */
static bool same_userns(pid_t tid)
{
	struct stat mine, its;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)tid);
	return !stat("/proc/self/ns/user", &mine) && !stat(path, &its) &&
	       mine.st_ino == its.st_ino && mine.st_dev == its.st_dev;
}

int broker_ids_read(pid_t tid, struct broker_ids *out)
{
	static const struct broker_idmap all = { 0, 0, UINT32_MAX };
	char path[64], buf[4096];
	long long v[32];
	size_t n;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	ret = slurp(path, buf, sizeof(buf));
	if (ret)
		return ret;
	if (field(buf, "Tgid:", v, 1) != 1)
		return -EIO;
	out->tgid_out = (pid_t)v[0];
	/* NStgid: from the supervisor's namespace to the caller's own */
	n = field(buf, "NStgid:", v, 32);
	out->tgid_in = n ? (pid_t)v[n - 1] : out->tgid_out;
	if (field(buf, "Uid:", v, 4) != 4)
		return -EIO;
	for (int i = 0; i < 3; i++)
		out->uid[i] = (uid_t)v[i];
	if (field(buf, "Gid:", v, 4) != 4)
		return -EIO;
	for (int i = 0; i < 3; i++)
		out->gid[i] = (gid_t)v[i];
	if (same_userns(tid)) {
		out->uidmap[0] = out->gidmap[0] = all;
		out->nuid = out->ngid = 1;
		return 0;
	}
	ret = read_map(tid, "uid_map", out->uidmap, &out->nuid);
	return ret ? ret : read_map(tid, "gid_map", out->gidmap, &out->ngid);
}
