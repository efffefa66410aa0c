/*
 * policy.c - the policy decision, shared by the launcher and the shim.
 *
 * A path gets the union of the rights of every root containing it: the
 * rule Landlock applies to path_beneath rules, so the shim's verdict
 * predicts the kernel's.  policy_rights() and path_is_within() run on
 * every interposed call and in vfork children: they never allocate,
 * lock or touch errno.
 */
#include <errno.h>
#include <string.h>

#include "shim/core/policy.h"

bool path_is_within(const char *path, const char *root)
{
	size_t n;

	if (root[0] == '/' && root[1] == '\0')
		return path[0] == '/';
	/* most roots differ at once: no strlen for them (every hook asks
	 * this of every root) */
	if (path[0] != root[0] || path[1] != root[1])
		return false;
	n = strlen(root);
	if (strncmp(path, root, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/';
}

/*
 * Does @r cover @path?  With @child, @path is a directory and the
 * question is about any entry directly inside it, when no root lies
 * below @path: the directory roots at or above @path cover it.
 */
static bool covers(const struct root *r, const char *path, bool child)
{
	/* A file root covers that file only, as in Landlock. */
	if (!r->is_dir)
		return !child && strcmp(path, r->path) == 0;
	return path_is_within(path, r->path);
}

/*
 * Is the protection @prot lifted at @path?  As the mounts do it
 * (mounts.c): a root that grants write (the user's, or a default one
 * such as the ci mode's temp dir in cordon's state), at or below the
 * protected path and covering @path, is mounted writable again over the
 * read-only one.  A root above it does not (the protection is mounted
 * after it), nor one granting only read or execute (mounted read-only,
 * or not at all).  A protection that keeps nothing readable is covered
 * by an empty thing (covers_secret()), which hides whatever lies below:
 * only a root naming the path itself lifts it, and then protect.c adds
 * no protection at all.
 */
static bool lifted(const struct policy *p, const struct root *prot,
		   const char *path, bool child)
{
	if (!(prot->rights & RIGHT_R))
		return false;
	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		if (r->origin != ORIGIN_PROTECTED && (r->rights & RIGHT_W) &&
		    path_is_within(r->path, prot->path) &&
		    covers(r, path, child))
			return true;
	}
	return false;
}

static unsigned int rights_of(const struct policy *p, const char *path,
			      bool child)
{
	unsigned int rights = 0, kept = RIGHT_ALL | RIGHT_U;
	bool protected = false;

	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		if (covers(r, path, child)) {
			rights |= r->rights;
			protected |= r->origin == ORIGIN_PROTECTED;
		}
	}
	if (!protected)
		return rights;
	/* a protected root keeps only its own rights, unless lifted */
	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		/* a protection keeps files from changes (and a secret from
		 * reads): a socket granted in it by a root of its own (the
		 * report socket in cordon's state) stays reachable */
		if (r->origin == ORIGIN_PROTECTED && covers(r, path, child) &&
		    !lifted(p, r, path, child))
			kept &= r->rights | (r->rights & RIGHT_R ? RIGHT_U : 0);
	}
	return rights & kept;
}

unsigned int policy_rights(const struct policy *p, const char *path)
{
	return rights_of(p, path, false);
}

bool policy_child_rights(const struct policy *p, const char *dir,
			 unsigned int *rights)
{
	for (size_t i = 0; i < p->nroots; i++) {
		const char *r = p->roots[i].path;

		/* a root strictly below @dir: its entries differ */
		if (path_is_within(r, dir) && strcmp(r, dir) != 0)
			return false;
	}
	*rights = rights_of(p, dir, true);
	return true;
}

bool policy_is_visible(const struct policy *p, const char *path)
{
	/* most paths asked about lie inside a root: that answer first */
	if (policy_rights(p, path) != 0)
		return true;
	for (size_t i = 0; i < p->nroots; i++)
		if (path_is_within(p->roots[i].path, path))
			return true;
	return false;
}

bool policy_allows(const struct policy *p, unsigned int need, const char *path)
{
	if (need == 0)
		return policy_is_visible(p, path);
	if (need == RIGHT_U)
		return policy_unix_allowed(p, path);
	return (policy_rights(p, path) & need) == need;
}

const char *policy_rights_str(unsigned int rights, char buf[POLICY_RIGHTS_STR])
{
	size_t n = 0;

	if (rights & RIGHT_R)
		buf[n++] = 'r';
	if (rights & RIGHT_W)
		buf[n++] = 'w';
	if (rights & RIGHT_X)
		buf[n++] = 'x';
	if (rights & RIGHT_U)
		buf[n++] = 'c';
	if (n == 0)
		buf[n++] = '-';
	buf[n] = '\0';
	return buf;
}

const char *const policy_rw_devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty",  "/dev/ptmx", "/dev/pts",  NULL,
};

bool policy_unix_allowed(const struct policy *p, const char *path)
{
	return (policy_rights(p, path) & (RIGHT_W | RIGHT_U)) != 0;
}

bool policy_unix_shared(const struct policy *p, const char *path)
{
	static const char *const shared[] = { "/tmp", "/var/tmp", "/dev/shm",
					      NULL };
	size_t i = 0;

	while (shared[i] && !path_is_within(path, shared[i]))
		i++;
	if (!shared[i])
		return false;
	for (i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		if (r->origin == ORIGIN_USER &&
		    (r->rights & (RIGHT_W | RIGHT_U)) &&
		    path_is_within(path, r->path))
			return false;
		/* a socket granted by name, whoever bound it: cordon's own
		 * report socket, in /tmp/cordon-UID when the state
		 * directory's path is too long for a socket's */
		if (!r->is_dir && (r->rights & RIGHT_U) &&
		    strcmp(path, r->path) == 0)
			return false;
	}
	return true;
}

static bool has_port(const uint16_t *ports, size_t n, unsigned int port)
{
	for (size_t i = 0; i < n; i++)
		if (ports[i] == port)
			return true;
	return false;
}

bool policy_tcp_allowed(const struct policy *p, bool bind, unsigned int port)
{
	if (p->net == NET_ON || p->net == NET_HOSTS)
		return true;
	if (p->net == NET_OFF)
		return false;
	return bind ? has_port(p->bind_ports, p->nbind, port)
		    : has_port(p->connect_ports, p->nconnect, port);
}

bool policy_udp_allowed(const struct policy *p, bool bind, unsigned int port)
{
	if (p->net == NET_ON)
		return true;
	if (!policy_has_udp(p))
		return false;
	if (bind && port == 0 && p->nconnect_udp)
		return true; /* the first send's own port */
	return bind ? has_port(p->bind_udp, p->nbind_udp, port)
		    : has_port(p->connect_udp, p->nconnect_udp, port);
}

/* One port, "0" to "65535", at @s; its end in *@end. */
static int port_at(const char *s, const char **end, unsigned long *port)
{
	const char *at = s;

	*port = 0;
	while (*at >= '0' && *at <= '9' && *port <= 65535)
		*port = *port * 10 + (unsigned long)(*at++ - '0');
	*end = at;
	return at == s || *port > 65535 ? -EINVAL : 0;
}

static int put_port(uint16_t *ports, size_t *n, unsigned long port)
{
	for (size_t i = 0; i < *n; i++)
		if (ports[i] == port)
			return 0;
	if (*n == POLICY_MAX_PORTS)
		return -E2BIG;
	ports[(*n)++] = (uint16_t)port;
	return 0;
}

/* A protocol's name at @s, "tcp" or "udp": what follows it, or NULL. */
static const char *proto_at(const char *s, bool *udp)
{
	if (strncmp(s, "udp", 3) != 0 && strncmp(s, "tcp", 3) != 0)
		return NULL;
	*udp = s[0] == 'u';
	return s + 3;
}

/* One item: [tcp:|udp:]PORT[-PORT][/tcp|/udp], into the list *@udp
 * says (a prefix sets it for the items after, a suffix for this one). */
static int add_item(struct policy *p, const char **s, bool bind, bool *udp)
{
	const char *at = *s, *after;
	unsigned long lo, hi;
	bool one;
	int ret = 0;

	after = proto_at(at, udp);
	if (after && *after == ':')
		at = after + 1;
	else if (after)
		return -EINVAL;
	one = *udp;
	if (port_at(at, &at, &lo))
		return -EINVAL;
	hi = lo;
	if (*at == '-' && port_at(at + 1, &at, &hi))
		return -EINVAL;
	if (*at == '/' && !(at = proto_at(at + 1, &one)))
		return -EINVAL;
	if (hi < lo || (*at && *at != ','))
		return -EINVAL;
	for (unsigned long port = lo; !ret && port <= hi; port++)
		ret = one ? put_port(bind ? p->bind_udp : p->connect_udp,
				     bind ? &p->nbind_udp : &p->nconnect_udp,
				     port)
			  : put_port(bind ? p->bind_ports : p->connect_ports,
				     bind ? &p->nbind : &p->nconnect, port);
	*s = at;
	return ret;
}

int policy_add_ports(struct policy *p, const char *s, bool bind)
{
	bool udp = false;
	int ret;

	for (;;) {
		ret = add_item(p, &s, bind, &udp);
		if (ret)
			return ret;
		if (*s == '\0')
			return 0;
		s++; /* the ',' */
	}
}

bool policy_listen_allowed(const struct policy *p, unsigned int port,
			   bool listening)
{
	return p->net != NET_PORTS || listening ||
	       policy_tcp_allowed(p, true, port) ||
	       policy_tcp_allowed(p, true, 0);
}

const char *const policy_git_files[POLICY_NGIT_FILES + 1] = {
	"config", "config.worktree", "commondir", "hooks", NULL
};

bool policy_root_is_mount(const struct root *r)
{
	return !path_is_within(r->path, "/proc") &&
	       (r->origin == ORIGIN_PROTECTED ||
		(r->rights & (RIGHT_W | RIGHT_X)));
}

bool policy_git_pin(const char *path, char *pin)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash || slash == path)
		return false;
	n = (size_t)(slash - path);
	for (size_t i = 0; policy_git_files[i]; i++) {
		if (strcmp(slash + 1, policy_git_files[i]) != 0)
			continue;
		memcpy(pin, path, n);
		pin[n] = '\0';
		return true;
	}
	return false;
}
