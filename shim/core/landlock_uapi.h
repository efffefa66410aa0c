/*
 * landlock_uapi.h - our own copy of the Landlock kernel interface.
 *
 * Debian 12's <linux/landlock.h> stops at ABI 1 while the kernels we run
 * on offer up to ABI 10 (Debian's 7.2), so cordon carries the definitions
 * it uses (checked against include/uapi/linux/landlock.h of Debian's
 * linux-libc-dev 7.2.13-1) and never includes the system header.  Values
 * are ABI: they never change once released.
 */
#ifndef CORDON_LANDLOCK_UAPI_H
#define CORDON_LANDLOCK_UAPI_H

#include <stdint.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule	     445
#define __NR_landlock_restrict_self  446
#endif

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;	     /* ABI 6 */
	/* ABI 10: denials not logged, each a subset of the handled set
	 * above; for fs and net only on objects a rule marks quiet */
	uint64_t quiet_access_fs;
	uint64_t quiet_access_net;
	uint64_t quiet_scoped;
};

/* The sizes an older kernel takes (it refuses a larger one, E2BIG,
 * unless the fields beyond what it knows are zero). */
#define LL_ATTR_SIZE_FS	    (1 * sizeof(uint64_t))
#define LL_ATTR_SIZE_NET    (2 * sizeof(uint64_t))
#define LL_ATTR_SIZE_SCOPED (3 * sizeof(uint64_t))
#define LL_ATTR_SIZE_QUIET  (6 * sizeof(uint64_t))

#define LL_CREATE_RULESET_VERSION (1U << 0)

#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT     2

/* landlock_add_rule() flags (ABI 10): the rule's object is quiet. */
#define LL_ADD_RULE_QUIET (1U << 0)

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

/* Filesystem rights, with the ABI that brought them. */
#define LL_FS_EXECUTE	   (1ULL << 0)
#define LL_FS_WRITE_FILE   (1ULL << 1)
#define LL_FS_READ_FILE	   (1ULL << 2)
#define LL_FS_READ_DIR	   (1ULL << 3)
#define LL_FS_REMOVE_DIR   (1ULL << 4)
#define LL_FS_REMOVE_FILE  (1ULL << 5)
#define LL_FS_MAKE_CHAR	   (1ULL << 6)
#define LL_FS_MAKE_DIR	   (1ULL << 7)
#define LL_FS_MAKE_REG	   (1ULL << 8)
#define LL_FS_MAKE_SOCK	   (1ULL << 9)
#define LL_FS_MAKE_FIFO	   (1ULL << 10)
#define LL_FS_MAKE_BLOCK   (1ULL << 11)
#define LL_FS_MAKE_SYM	   (1ULL << 12)
#define LL_FS_REFER	   (1ULL << 13) /* ABI 2 */
#define LL_FS_TRUNCATE	   (1ULL << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV	   (1ULL << 15) /* ABI 5 */
#define LL_FS_RESOLVE_UNIX (1ULL << 16) /* ABI 9: connect, send to a path */

/* Network rights (ABI 4; UDP: ABI 10, checked at bind, connect and a
 * send that names its destination; a first send or connect binds an
 * ephemeral port, checked as a bind of port 0). */
#define LL_NET_BIND_TCP		(1ULL << 0)
#define LL_NET_CONNECT_TCP	(1ULL << 1)
#define LL_NET_BIND_UDP		(1ULL << 2)
#define LL_NET_CONNECT_SEND_UDP (1ULL << 3)

/* Scopes (ABI 6). */
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL		      (1ULL << 1)

/* landlock_restrict_self() flags (ABI 7). */
#define LL_RESTRICT_LOG_SAME_EXEC_OFF  (1U << 0)
#define LL_RESTRICT_LOG_NEW_EXEC_ON    (1U << 1)
#define LL_RESTRICT_LOG_SUBDOMAINS_OFF (1U << 2)
/* ABI 8: the domain for every thread of the process, not the caller's
 * alone (no_new_privs too, when the caller has it). */
#define LL_RESTRICT_TSYNC (1U << 3)

#endif
