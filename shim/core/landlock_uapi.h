/*
 * landlock_uapi.h - our own copy of the Landlock kernel interface.
 *
 * Debian 12's <linux/landlock.h> stops at ABI 1 while the kernels we run
 * on offer ABI 7, so cordon carries the definitions it uses (from the
 * kernel's include/uapi/linux/landlock.h) and never includes the system
 * header.  Values are ABI: they never change once released.
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
};

#define LL_CREATE_RULESET_VERSION (1U << 0)

#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT     2

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

/* Filesystem rights, with the ABI that brought them. */
#define LL_FS_EXECUTE	  (1ULL << 0)
#define LL_FS_WRITE_FILE  (1ULL << 1)
#define LL_FS_READ_FILE	  (1ULL << 2)
#define LL_FS_READ_DIR	  (1ULL << 3)
#define LL_FS_REMOVE_DIR  (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR	  (1ULL << 6)
#define LL_FS_MAKE_DIR	  (1ULL << 7)
#define LL_FS_MAKE_REG	  (1ULL << 8)
#define LL_FS_MAKE_SOCK	  (1ULL << 9)
#define LL_FS_MAKE_FIFO	  (1ULL << 10)
#define LL_FS_MAKE_BLOCK  (1ULL << 11)
#define LL_FS_MAKE_SYM	  (1ULL << 12)
#define LL_FS_REFER	  (1ULL << 13) /* ABI 2 */
#define LL_FS_TRUNCATE	  (1ULL << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV	  (1ULL << 15) /* ABI 5 */

/* Network rights (ABI 4). */
#define LL_NET_BIND_TCP	   (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)

/* Scopes (ABI 6). */
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL		      (1ULL << 1)

/* landlock_restrict_self() flags (ABI 7). */
#define LL_RESTRICT_LOG_SAME_EXEC_OFF  (1U << 0)
#define LL_RESTRICT_LOG_NEW_EXEC_ON    (1U << 1)
#define LL_RESTRICT_LOG_SUBDOMAINS_OFF (1U << 2)

#endif
