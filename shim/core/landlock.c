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

/*
 * What a ruleset may handle here: the rights of the ABI the kernel
 * claims, less any it refuses.  A kernel may claim an ABI and lack one
 * of its rights (a distribution's kernel with a backport, without a
 * scope): each right past ABI 1 is tried alone, a ruleset handling it
 * made and closed, or refused (EINVAL).
 */
struct ll_have {
	uint64_t fs, net, scoped;
};

static struct ll_have promised(int abi)
{
	return (struct ll_have){
		.fs = abi >= 1 ? fs_handled(abi) : 0,
		.net = abi >= 4 ? LL_NET_BIND_TCP | LL_NET_CONNECT_TCP : 0,
		.scoped = abi >= 6 ? LL_SCOPE_ABSTRACT_UNIX_SOCKET |
					     LL_SCOPE_SIGNAL
				   : 0,
	};
}

static bool takes(uint64_t fs, uint64_t net, uint64_t scoped)
{
	struct ll_ruleset_attr a = {
		.handled_access_fs = fs,
		.handled_access_net = net,
		.scoped = scoped,
	};
	/* as small as the right asks: an older kernel takes no more */
	size_t size = scoped ? sizeof(a)
		      : net  ? 2 * sizeof(uint64_t)
			     : sizeof(uint64_t);
	long fd = ll_create(&a, size, 0);

	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

/* Keep in @set the bits that takes() takes, each alone. */
static uint64_t tried(uint64_t set, uint64_t skip, int which)
{
	for (uint64_t bit = 1; bit && bit <= set; bit <<= 1)
		if ((set & bit) && !(skip & bit) &&
		    !takes(which == 0 ? bit : 0, which == 1 ? bit : 0,
			   which == 2 ? bit : 0))
			set &= ~bit;
	return set;
}

static struct ll_have tested(int abi)
{
	struct ll_have h = promised(abi);

	h.fs = tried(h.fs, fs_handled(1), 0);
	h.net = tried(h.net, 0, 1);
	h.scoped = tried(h.scoped, 0, 2);
	return h;
}

static uint64_t fs_access(unsigned int rights, uint64_t handled, bool is_dir)
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
	return a & handled;
}

uint64_t landlock_fs_access(unsigned int rights, int abi, bool is_dir)
{
	return fs_access(rights, fs_handled(abi), is_dir);
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
	const uint64_t tcp = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	struct ll_have h = tested(abi);

#define LACKS " (this kernel claims its ABI without it)"
#define NEEDS(n, linux, have)                                                  \
	(abi >= (n) && !(have) ? "Landlock ABI " #n " (Linux " linux ")" LACKS \
			       : "Landlock ABI " #n " (Linux " linux ")")
	add(s, FEATURE_FS_RULES, "Landlock ABI 1 (Linux 5.13)", true, abi >= 1,
	    false);
	add(s, FEATURE_PTRACE, "Landlock ABI 1 (Linux 5.13)", true, abi >= 1,
	    false);
	add(s, "rename and link across directories (REFER)",
	    NEEDS(2, "5.19", h.fs & LL_FS_REFER), true,
	    (h.fs & LL_FS_REFER) != 0, true);
	add(s, FEATURE_TRUNCATE, NEEDS(3, "6.2", h.fs & LL_FS_TRUNCATE), true,
	    (h.fs & LL_FS_TRUNCATE) != 0, false);
	add(s, FEATURE_TCP, NEEDS(4, "6.7", (h.net & tcp) == tcp), net,
	    (h.net & tcp) == tcp, false);
	add(s, FEATURE_IOCTL, NEEDS(5, "6.10", h.fs & LL_FS_IOCTL_DEV), true,
	    (h.fs & LL_FS_IOCTL_DEV) != 0, false);
	add(s, FEATURE_ABSTRACT,
	    NEEDS(6, "6.12", h.scoped & LL_SCOPE_ABSTRACT_UNIX_SOCKET), true,
	    (h.scoped & LL_SCOPE_ABSTRACT_UNIX_SOCKET) != 0, false);
	add(s, FEATURE_SIGNALS, NEEDS(6, "6.12", h.scoped & LL_SCOPE_SIGNAL),
	    true, (h.scoped & LL_SCOPE_SIGNAL) != 0, false);
#undef NEEDS
#undef LACKS
	add(s, "kernel audit of the command's denials",
	    "Landlock ABI 7 (Linux 6.15)", true, abi >= 7, true);
}

static int add_path_rule(int ruleset, const struct root *r, uint64_t fs,
			 char *err, size_t errlen)
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
	attr.allowed_access = fs_access(r->rights, fs, S_ISDIR(st.st_mode));
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

static int add_rules(int ruleset, const struct policy *p,
		     const struct ll_have *h, char *err, size_t errlen)
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
		ret = add_path_rule(ruleset, &p->roots[i], h->fs, err, errlen);
		if (ret)
			return ret;
	}
	if (p->net != NET_PORTS || !h->net)
		return 0;
	ret = add_port_rules(ruleset, p->connect_ports, p->nconnect,
			     LL_NET_CONNECT_TCP, err, errlen);
	if (ret)
		return ret;
	return add_port_rules(ruleset, p->bind_ports, p->nbind, LL_NET_BIND_TCP,
			      err, errlen);
}

static struct ll_ruleset_attr
ruleset_attr(const struct policy *p, const struct ll_have *h, size_t *size)
{
	struct ll_ruleset_attr attr = { .handled_access_fs = h->fs };

	*size = sizeof(uint64_t);
	if (h->net) {
		*size = 2 * sizeof(uint64_t);
		if (p->net != NET_ON && p->net != NET_HOSTS)
			attr.handled_access_net = h->net;
	}
	if (h->scoped) {
		*size = sizeof(attr);
		attr.scoped = h->scoped;
	}
	return attr;
}

int landlock_apply(const struct policy *p, int abi, char *err, size_t errlen)
{
	struct ll_have h = promised(abi);
	struct ll_ruleset_attr attr;
	uint32_t flags = abi >= 7 ? LL_RESTRICT_LOG_NEW_EXEC_ON : 0;
	size_t size;
	int ruleset, ret;

	attr = ruleset_attr(p, &h, &size);
	ruleset = (int)ll_create(&attr, size, 0);
	if (ruleset < 0 && (errno == EINVAL || errno == E2BIG)) {
		/* a right the ABI promises and the kernel lacks: the
		 * rights it takes (its rows said what holds the rest) */
		h = tested(abi);
		attr = ruleset_attr(p, &h, &size);
		ruleset = (int)ll_create(&attr, size, 0);
	}
	if (ruleset < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot create a Landlock ruleset: %s",
			 strerror(errno));
		return ret;
	}
	ret = add_rules(ruleset, p, &h, err, errlen);
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
