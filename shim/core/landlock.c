/*
 * landlock.c - install the Landlock boundary: probe the ABI, mask the
 * rights to it, create the ruleset, add rules, restrict.
 *
 * The ruleset handles every access right the running kernel offers, so
 * whatever no root grants is denied.  Nothing is applied unless every
 * rule could be added: a root that fails to open is an error, never a
 * silent skip.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/landlock.h"
#include "shim/core/landlock_uapi.h"

#define FS_READ (LL_FS_READ_FILE | LL_FS_READ_DIR)
#define FS_WRITE                                                               \
	(LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE |             \
	 LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | \
	 LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM | LL_FS_REFER |   \
	 LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)
#define FS_FILE                                                                \
	(LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | \
	 LL_FS_IOCTL_DEV)

static long ll_create(const struct ll_ruleset_attr *attr, size_t size,
		      uint32_t flags)
{
	return syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

int landlock_abi(void)
{
	long abi = ll_create(NULL, 0, LL_CREATE_RULESET_VERSION);

	return abi < 0 ? -errno : (int)abi;
}

/* Every filesystem right the kernel of ABI @abi handles. */
static uint64_t fs_handled(int abi)
{
	uint64_t all = (LL_FS_MAKE_SYM << 1) - 1; /* ABI 1 */

	if (abi >= 2)
		all |= LL_FS_REFER;
	if (abi >= 3)
		all |= LL_FS_TRUNCATE;
	if (abi >= 5)
		all |= LL_FS_IOCTL_DEV;
	return all;
}

uint64_t landlock_fs_access(unsigned int rights, int abi, bool is_dir)
{
	uint64_t a = 0;

	if (rights & RIGHT_R)
		a |= FS_READ;
	if (rights & RIGHT_W)
		a |= FS_WRITE;
	if (rights & RIGHT_X)
		a |= LL_FS_EXECUTE;
	if (!is_dir)
		a &= FS_FILE;
	return a & fs_handled(abi);
}

static void add(struct feature_set *s, const char *name, const char *needs,
		bool needed, bool available, bool advisory)
{
	feature_add(s, (struct feature){
			       .layer = "landlock",
			       .name = name,
			       .needs = needs,
			       .needed = needed,
			       .available = available,
			       .advisory = advisory,
		       });
}

/*
 * Each right is one mechanism of a guarantee (feature.h); where the
 * kernel lacks it, the other rows of the same guarantee may hold it
 * (enforce/linux/guarantees.c names them).  Every ABI also confines
 * ptrace: a sandboxed process cannot trace, or read the memory,
 * environment or descriptors of, a process outside its domain.
 */
void landlock_features(const struct policy *p, int abi, struct feature_set *s)
{
	/* with hosts allowed, the network namespace holds TCP (ns.c) */
	bool net = p->net != NET_ON && p->net != NET_HOSTS;

	add(s, FEATURE_FS_RULES, "Landlock ABI 1 (Linux 5.13)", true, abi >= 1,
	    false);
	add(s, FEATURE_PTRACE, "Landlock ABI 1 (Linux 5.13)", true, abi >= 1,
	    false);
	add(s, "rename and link across directories (REFER)",
	    "Landlock ABI 2 (Linux 5.19)", true, abi >= 2, true);
	add(s, FEATURE_TRUNCATE, "Landlock ABI 3 (Linux 6.2)", true, abi >= 3,
	    false);
	add(s, FEATURE_TCP, "Landlock ABI 4 (Linux 6.7)", net, abi >= 4, false);
	add(s, FEATURE_IOCTL, "Landlock ABI 5 (Linux 6.10)", true, abi >= 5,
	    false);
	add(s, FEATURE_ABSTRACT, "Landlock ABI 6 (Linux 6.12)", true, abi >= 6,
	    false);
	add(s, FEATURE_SIGNALS, "Landlock ABI 6 (Linux 6.12)", true, abi >= 6,
	    false);
	add(s, "kernel audit of the command's denials",
	    "Landlock ABI 7 (Linux 6.15)", true, abi >= 7, true);
}

static int add_path_rule(int ruleset, const struct root *r, int abi, char *err,
			 size_t errlen)
{
	struct ll_path_beneath_attr attr;
	struct stat st;
	int fd, ret = 0;

	fd = open(r->path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open root '%s': %s", r->path,
			 strerror(errno));
		return ret;
	}
	if (syscall(SYS_fstat, fd, &st) < 0) { /* no fstat@GLIBC_2.33 */
		ret = -errno;
		snprintf(err, errlen, "cannot stat root '%s': %s", r->path,
			 strerror(errno));
		goto out;
	}
	attr.parent_fd = fd;
	attr.allowed_access =
		landlock_fs_access(r->rights, abi, S_ISDIR(st.st_mode));
	if (!attr.allowed_access)
		goto out;
	if (syscall(__NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH,
		    &attr, 0) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot add a rule for '%s': %s", r->path,
			 strerror(errno));
	}
out:
	close(fd);
	return ret;
}

static int add_port_rules(int ruleset, const uint16_t *ports, size_t n,
			  uint64_t access, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		struct ll_net_port_attr attr = {
			.allowed_access = access,
			.port = ports[i],
		};

		if (syscall(__NR_landlock_add_rule, ruleset, LL_RULE_NET_PORT,
			    &attr, 0) < 0) {
			int ret = -errno;

			snprintf(err, errlen,
				 "cannot add a rule for port %u: %s", ports[i],
				 strerror(errno));
			return ret;
		}
	}
	return 0;
}

static int add_rules(int ruleset, const struct policy *p, int abi, char *err,
		     size_t errlen)
{
	int ret;

	for (size_t i = 0; i < p->nroots; i++) {
		/* Landlock rights only add up: a protected root, which keeps
		 * less than what contains it (and may not exist yet), is the
		 * mounts' and the shim's to enforce; a root that grants
		 * nothing (a link on the way to one, roots.c) adds nothing */
		if (p->roots[i].origin == ORIGIN_PROTECTED ||
		    !p->roots[i].rights)
			continue;
		ret = add_path_rule(ruleset, &p->roots[i], abi, err, errlen);
		if (ret)
			return ret;
	}
	if (p->net != NET_PORTS || abi < 4)
		return 0;
	ret = add_port_rules(ruleset, p->connect_ports, p->nconnect,
			     LL_NET_CONNECT_TCP, err, errlen);
	if (ret)
		return ret;
	return add_port_rules(ruleset, p->bind_ports, p->nbind, LL_NET_BIND_TCP,
			      err, errlen);
}

static struct ll_ruleset_attr ruleset_attr(const struct policy *p, int abi,
					   size_t *size)
{
	struct ll_ruleset_attr attr = { .handled_access_fs = fs_handled(abi) };

	*size = sizeof(uint64_t);
	if (abi >= 4) {
		*size = 2 * sizeof(uint64_t);
		if (p->net != NET_ON && p->net != NET_HOSTS)
			attr.handled_access_net =
				LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	}
	if (abi >= 6) {
		*size = sizeof(attr);
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
	}
	return attr;
}

int landlock_apply(const struct policy *p, int abi, char *err, size_t errlen)
{
	struct ll_ruleset_attr attr;
	uint32_t flags = abi >= 7 ? LL_RESTRICT_LOG_NEW_EXEC_ON : 0;
	size_t size;
	int ruleset, ret;

	attr = ruleset_attr(p, abi, &size);
	ruleset = (int)ll_create(&attr, size, 0);
	if (ruleset < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot create a Landlock ruleset: %s",
			 strerror(errno));
		return ret;
	}
	ret = add_rules(ruleset, p, abi, err, errlen);
	if (ret)
		goto out;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot set no_new_privs: %s",
			 strerror(errno));
		goto out;
	}
	if (syscall(__NR_landlock_restrict_self, ruleset, flags) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot enforce the Landlock ruleset: %s",
			 strerror(errno));
	}
out:
	close(ruleset);
	return ret;
}
