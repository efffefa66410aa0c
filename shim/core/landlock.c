/*
 * landlock.c - install the Landlock boundary: probe the ABI, mask the
 * rights to it, create the ruleset, add rules, restrict.
 *
 * The ruleset handles every access right the running kernel offers, so
 * whatever no root grants is denied.  Nothing is applied unless every
 * rule could be added: a root that fails to open is an error, never a
 * silent skip.  Past ABI 7: RESOLVE_UNIX (ABI 9) beneath every root that
 * grants write or --connect-unix, but the temp dirs shared with the
 * host (there the command reaches the sockets its own domain bound, no
 * one else's); UDP ports (ABI 10) as TCP's, with a bind of port 0 for a
 * first send's own port; TSYNC (ABI 8), every thread of the process;
 * the quiet flags (ABI 10) when asked (cordon probe's attempts): the
 * whole filesystem from "/" and the ports named, and every scope.
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
	 LL_FS_IOCTL_DEV | LL_FS_RESOLVE_UNIX)
#define NET_TCP (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP)
#define NET_UDP (LL_NET_BIND_UDP | LL_NET_CONNECT_SEND_UDP)

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
	if (abi >= 9)
		all |= LL_FS_RESOLVE_UNIX;
	return all;
}

/*
 * What a ruleset may handle here: the rights of the ABI the kernel
 * claims, less any it refuses.  A kernel may claim an ABI and lack one
 * of its rights (a distribution's kernel with a backport, without a
 * scope): each right past ABI 1 is tried alone, a ruleset handling it
 * made and closed, or refused (EINVAL).  TSYNC is tried where it is
 * used (landlock_restrict_self() refuses an unknown flag: EINVAL).
 */
struct ll_have {
	uint64_t fs, net, scoped;
	bool quiet, tsync;
};

static struct ll_have promised(int abi)
{
	return (struct ll_have){
		.fs = abi >= 1 ? fs_handled(abi) : 0,
		.net = abi >= 10  ? NET_TCP | NET_UDP
		       : abi >= 4 ? NET_TCP
				  : 0,
		.scoped = abi >= 6 ? LL_SCOPE_ABSTRACT_UNIX_SOCKET |
					     LL_SCOPE_SIGNAL
				   : 0,
		.quiet = abi >= 10,
		.tsync = abi >= 8,
	};
}

static bool takes(const struct ll_ruleset_attr *a)
{
	/* as small as the rights ask: an older kernel takes no more */
	size_t size = a->quiet_access_fs      ? LL_ATTR_SIZE_QUIET
		      : a->scoped	      ? LL_ATTR_SIZE_SCOPED
		      : a->handled_access_net ? LL_ATTR_SIZE_NET
					      : LL_ATTR_SIZE_FS;
	long fd = ll_create(a, size, 0);

	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

/* Keep in @set the bits that takes() takes, each alone. */
static uint64_t tried(uint64_t set, uint64_t skip, int which)
{
	for (uint64_t bit = 1; bit && bit <= set; bit <<= 1) {
		struct ll_ruleset_attr a = {
			.handled_access_fs = which == 0 ? bit : 0,
			.handled_access_net = which == 1 ? bit : 0,
			.scoped = which == 2 ? bit : 0,
		};

		if ((set & bit) && !(skip & bit) && !takes(&a))
			set &= ~bit;
	}
	return set;
}

static struct ll_have tested(int abi)
{
	struct ll_have h = promised(abi);
	struct ll_ruleset_attr quiet = {
		.handled_access_fs = LL_FS_READ_FILE,
		.quiet_access_fs = LL_FS_READ_FILE,
	};

	h.fs = tried(h.fs, fs_handled(1), 0);
	h.net = tried(h.net, 0, 1);
	h.scoped = tried(h.scoped, 0, 2);
	h.quiet = h.quiet && takes(&quiet);
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
	if (rights & (RIGHT_W | RIGHT_U))
		a |= LL_FS_RESOLVE_UNIX;
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
	add(s, FEATURE_TCP, NEEDS(4, "6.7", (h.net & NET_TCP) == NET_TCP), net,
	    (h.net & NET_TCP) == NET_TCP, false);
	add(s, FEATURE_IOCTL, NEEDS(5, "6.10", h.fs & LL_FS_IOCTL_DEV), true,
	    (h.fs & LL_FS_IOCTL_DEV) != 0, false);
	add(s, FEATURE_ABSTRACT,
	    NEEDS(6, "6.12", h.scoped & LL_SCOPE_ABSTRACT_UNIX_SOCKET), true,
	    (h.scoped & LL_SCOPE_ABSTRACT_UNIX_SOCKET) != 0, false);
	add(s, FEATURE_SIGNALS, NEEDS(6, "6.12", h.scoped & LL_SCOPE_SIGNAL),
	    true, (h.scoped & LL_SCOPE_SIGNAL) != 0, false);
	add(s, "kernel audit of the command's denials",
	    "Landlock ABI 7 (Linux 6.15)", true, abi >= 7, true);
	/* the standalone shim's (the launcher restricts a process of one
	 * thread) and the probe's: never noted before a run */
	add(s, FEATURE_TSYNC, "Landlock ABI 8 (Linux 7.0)", false, h.tsync,
	    true);
	add(s, FEATURE_RESOLVE_UNIX, NEEDS(9, "7.1", h.fs & LL_FS_RESOLVE_UNIX),
	    true, (h.fs & LL_FS_RESOLVE_UNIX) != 0, false);
	add(s, FEATURE_UDP, NEEDS(10, "7.2", (h.net & NET_UDP) == NET_UDP), net,
	    (h.net & NET_UDP) == NET_UDP, false);
	add(s, FEATURE_QUIET, NEEDS(10, "7.2", h.quiet), false, h.quiet, true);
#undef NEEDS
#undef LACKS
}

static int add_rule(int ruleset, int type, void *attr, bool quiet)
{
	return (int)syscall(__NR_landlock_add_rule, ruleset, type, attr,
			    quiet ? LL_ADD_RULE_QUIET : 0);
}

/* The rights of root @r here: a socket in a temp dir shared with the
 * host's processes is reached only when the command bound it (the same
 * Landlock domain), unless a root of the user's grants it. */
static uint64_t root_access(const struct policy *p, const struct root *r,
			    uint64_t fs, bool is_dir)
{
	uint64_t a = fs_access(r->rights, fs, is_dir);

	if (policy_unix_shared(p, r->path))
		a &= ~LL_FS_RESOLVE_UNIX;
	return a;
}

static int add_path_rule(int ruleset, const struct policy *p,
			 const struct root *r, uint64_t fs, char *err,
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
	attr.allowed_access = root_access(p, r, fs, S_ISDIR(st.st_mode));
	if (!attr.allowed_access)
		goto out;
	if (add_rule(ruleset, LL_RULE_PATH_BENEATH, &attr, false) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot add a rule for '%s': %s", r->path,
			 strerror(errno));
	}
out:
	close(fd);
	return ret;
}

static int add_port_rules(int ruleset, const uint16_t *ports, size_t n,
			  uint64_t access, bool quiet, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		struct ll_net_port_attr attr = {
			.allowed_access = quiet ? 0 : access,
			.port = ports[i],
		};

		if (add_rule(ruleset, LL_RULE_NET_PORT, &attr, quiet) < 0) {
			int ret = -errno;

			snprintf(err, errlen,
				 "cannot add a rule for port %u: %s", ports[i],
				 strerror(errno));
			return ret;
		}
	}
	return 0;
}

static int add_net_rules(int ruleset, const struct policy *p, uint64_t net,
			 char *err, size_t errlen)
{
	static const uint16_t any = 0;
	int ret;

	ret = add_port_rules(ruleset, p->connect_ports, p->nconnect,
			     LL_NET_CONNECT_TCP, false, err, errlen);
	if (!ret)
		ret = add_port_rules(ruleset, p->bind_ports, p->nbind,
				     LL_NET_BIND_TCP, false, err, errlen);
	if (ret || !(net & NET_UDP))
		return ret;
	ret = add_port_rules(ruleset, p->connect_udp, p->nconnect_udp,
			     LL_NET_CONNECT_SEND_UDP, false, err, errlen);
	if (!ret)
		ret = add_port_rules(ruleset, p->bind_udp, p->nbind_udp,
				     LL_NET_BIND_UDP, false, err, errlen);
	/* a first send (or connect) binds the socket to an ephemeral port:
	 * a bind of port 0 to Landlock (policy_udp_allowed()) */
	if (!ret && p->nconnect_udp)
		ret = add_port_rules(ruleset, &any, 1, LL_NET_BIND_UDP, false,
				     err, errlen);
	return ret;
}

/* Every denial of the domain kept out of the kernel's audit: the
 * filesystem from the root down, and the ports @q names (where the
 * ruleset handles the network: @net). */
static int add_quiet_rules(int ruleset, const struct landlock_opts *q,
			   uint64_t net, char *err, size_t errlen)
{
	struct ll_path_beneath_attr attr = { .allowed_access = 0 };
	int ret = 0;

	attr.parent_fd = open("/", O_PATH | O_CLOEXEC);
	if (attr.parent_fd < 0 ||
	    add_rule(ruleset, LL_RULE_PATH_BENEATH, &attr, true) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot mark '/' quiet: %s",
			 strerror(errno));
	}
	if (attr.parent_fd >= 0)
		close(attr.parent_fd);
	if (!ret && net)
		ret = add_port_rules(ruleset, q->quiet_ports, q->nquiet_ports,
				     0, true, err, errlen);
	return ret;
}

static int add_rules(int ruleset, const struct policy *p,
		     const struct ll_have *h, uint64_t net, char *err,
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
		ret = add_path_rule(ruleset, p, &p->roots[i], h->fs, err,
				    errlen);
		if (ret)
			return ret;
	}
	if (p->net != NET_PORTS || !net)
		return 0;
	return add_net_rules(ruleset, p, net, err, errlen);
}

static struct ll_ruleset_attr ruleset_attr(const struct policy *p,
					   const struct ll_have *h, bool quiet,
					   size_t *size)
{
	struct ll_ruleset_attr attr = { .handled_access_fs = h->fs };

	*size = LL_ATTR_SIZE_FS;
	if (h->net) {
		*size = LL_ATTR_SIZE_NET;
		if (p->net != NET_ON && p->net != NET_HOSTS)
			attr.handled_access_net = h->net;
	}
	if (h->scoped) {
		*size = LL_ATTR_SIZE_SCOPED;
		attr.scoped = h->scoped;
	}
	if (quiet && h->quiet) {
		*size = LL_ATTR_SIZE_QUIET;
		attr.quiet_access_fs = attr.handled_access_fs;
		attr.quiet_access_net = attr.handled_access_net;
		attr.quiet_scoped = attr.scoped;
	}
	return attr;
}

/* restrict_self, for every thread where the kernel can (TSYNC): a
 * kernel that claims ABI 8 without it refuses the flag (EINVAL), and
 * the caller alone is restricted. */
static int restrict_self(int ruleset, const struct ll_have *h, int abi,
			 bool *all_threads)
{
	uint32_t flags = abi >= 7 ? LL_RESTRICT_LOG_NEW_EXEC_ON : 0;

	*all_threads = false;
	if (h->tsync && syscall(__NR_landlock_restrict_self, ruleset,
				flags | LL_RESTRICT_TSYNC) == 0) {
		*all_threads = true;
		return 0;
	}
	if (h->tsync && errno != EINVAL)
		return -errno;
	return syscall(__NR_landlock_restrict_self, ruleset, flags) < 0 ? -errno
									: 0;
}

int landlock_apply(const struct policy *p, int abi, struct landlock_opts *o,
		   char *err, size_t errlen)
{
	struct landlock_opts none = { .quiet = false };
	struct ll_have h = promised(abi);
	struct ll_ruleset_attr attr;
	size_t size;
	int ruleset, ret;

	if (!o)
		o = &none;
	attr = ruleset_attr(p, &h, o->quiet, &size);
	ruleset = (int)ll_create(&attr, size, 0);
	if (ruleset < 0 && (errno == EINVAL || errno == E2BIG)) {
		/* a right the ABI promises and the kernel lacks: the
		 * rights it takes (its rows said what holds the rest) */
		h = tested(abi);
		attr = ruleset_attr(p, &h, o->quiet, &size);
		ruleset = (int)ll_create(&attr, size, 0);
	}
	if (ruleset < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot create a Landlock ruleset: %s",
			 strerror(errno));
		return ret;
	}
	ret = add_rules(ruleset, p, &h, attr.handled_access_net, err, errlen);
	if (!ret && attr.quiet_access_fs)
		ret = add_quiet_rules(ruleset, o, attr.handled_access_net, err,
				      errlen);
	if (ret)
		goto out;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot set no_new_privs: %s",
			 strerror(errno));
		goto out;
	}
	ret = restrict_self(ruleset, &h, abi, &o->all_threads);
	o->unix_sockets = !ret && (h.fs & LL_FS_RESOLVE_UNIX);
	if (ret)
		snprintf(err, errlen, "cannot enforce the Landlock ruleset: %s",
			 strerror(-ret));
out:
	close(ruleset);
	return ret;
}
