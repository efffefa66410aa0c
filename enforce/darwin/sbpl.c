/*
 * sbpl.c - the policy as a Seatbelt profile (SBPL), for macOS.
 *
 * A pure function of the policy and of the host facts the caller hands
 * over (sbpl.h): nothing is looked up, nothing is global, so the same
 * profile comes out on any machine and the unit tests compare it byte
 * for byte with golden files.  It must never name a user path outside a
 * string literal (no comment, no regular expression is built from one).
 *
 * The rules follow the policy model as the Linux kernel layer does:
 * allows add up, so a path gets the union of the rights of the roots
 * above it; a protected path denies what it does not keep, after the
 * roots around it and before the roots nested in it (Seatbelt lets the
 * last matching rule decide; on Linux the mount namespace stacks its
 * mounts the same way, a directory before what lies in it).
 *
 * The writers (strings, filters, host paths) are sbpl_write.c's, the
 * rules every process needs sbpl_base.c's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/core/path.h"
#include "enforce/darwin/sbpl.h"
#include "enforce/darwin/sbpl_gen.h"

/* The rights as Seatbelt operations. */
static const char *const right_ops[] = {
	"file-read*",			    /* RIGHT_R */
	"file-write* file-ioctl",	    /* RIGHT_W: ioctl as Landlock's */
	"process-exec* file-map-executable" /* RIGHT_X: the loader maps */
};

struct pathset {
	char **v;
	size_t n, cap;
};

/* ---- sets of paths: sorted, without duplicates ---- */

static int pathset_add(struct pathset *s, const char *path)
{
	char *copy;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		char **v = cap <= SIZE_MAX / sizeof(*v)
				   ? realloc(s->v, cap * sizeof(*v))
				   : NULL;

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	s->v[s->n++] = copy;
	return 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void pathset_sort(struct pathset *s)
{
	size_t n = 0;

	if (s->n)
		qsort(s->v, s->n, sizeof(s->v[0]), by_string);
	for (size_t i = 0; i < s->n; i++) {
		if (n && strcmp(s->v[n - 1], s->v[i]) == 0)
			free(s->v[i]);
		else
			s->v[n++] = s->v[i];
	}
	s->n = n;
}

/* One rule on the literals of @s, after @comment; none for an empty
 * set: a rule without a filter would match every path. */
static void put_set(struct gen *g, const char *comment, const char *action,
		    const char *ops, const struct pathset *s)
{
	if (!s->n)
		return;
	sb_puts(g->out, comment);
	sbpl_open_rule(g, action, ops);
	for (size_t i = 0; i < s->n; i++)
		sbpl_next_filter(g, "literal", s->v[i]);
	sbpl_close_rule(g);
}

static void pathset_free(struct pathset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* The directories above @path, from its parent up to "/", into @s
 * unless @only_writable and the policy does not let them be written. */
static int add_parents(struct gen *g, struct pathset *s, const char *path,
		       bool only_writable)
{
	char buf[SBPL_PATH];
	char *slash;
	int ret = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	while (!ret && strcmp(buf, "/") != 0 && (slash = strrchr(buf, '/'))) {
		if (slash == buf)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (!only_writable || (policy_rights(&g->pol, buf) & RIGHT_W))
			ret = pathset_add(s, buf);
	}
	return ret;
}

/* ---- the policy, its paths mapped ---- */

static void add_root(struct gen *g, const char *path, unsigned int rights,
		     enum root_origin origin, bool is_dir)
{
	struct root *r;
	int ret;

	if (g->pol.nroots == POLICY_MAX_ROOTS) {
		sbpl_fail(g, -E2BIG, path, "too many roots");
		return;
	}
	r = &g->pol.roots[g->pol.nroots];
	ret = sbpl_map(g->h, path, g->paths[g->pol.nroots]);
	if (ret) {
		sbpl_fail(g, ret, path,
			  ret == -EINVAL ? "not absolute" : strerror(-ret));
		return;
	}
	*r = (struct root){ .path = g->paths[g->pol.nroots],
			    .rights = rights,
			    .origin = origin,
			    .is_dir = is_dir };
	g->pol.nroots++;
}

/*
 * The policy's roots, then the host's: the per-user temp and cache dirs
 * with the rights of /tmp (macOS programs use them whatever $TMPDIR
 * says) and the toolchain prefixes of the system defaults, read and
 * execute.
 */
static void build(struct gen *g)
{
	const struct policy *p = g->orig;
	const char *const user[] = { g->h->tmpdir, g->h->cachedir };
	char dir[SBPL_PATH];
	unsigned int rights;

	for (size_t i = 0; i < p->nroots; i++)
		add_root(g, p->roots[i].path, p->roots[i].rights,
			 p->roots[i].origin, p->roots[i].is_dir);
	rights = policy_rights(&g->pol, sbpl_tmp_of(g));
	for (size_t i = 0; rights && i < sizeof(user) / sizeof(user[0]); i++)
		if (user[i] && sbpl_map(g->h, user[i], dir) == 0 &&
		    (policy_rights(&g->pol, dir) & rights) != rights)
			add_root(g, dir, rights, ORIGIN_DEFAULT, true);
	for (size_t i = 0; g->h->system && g->h->system[i]; i++)
		add_root(g, g->h->system[i], RIGHT_R | RIGHT_X, ORIGIN_DEFAULT,
			 true);
}

/* ---- the profile, part by part ---- */

/* The directories above the roots and the base paths: their own
 * metadata (stat, getcwd, realpath), never their contents. */
static int put_parents(struct gen *g)
{
	static const char *const links[] = { "/tmp", "/var", "/etc" };
	const char *const targets[] = { g->h->tmp, g->h->var, g->h->etc };
	struct pathset s = { 0 };
	char buf[SBPL_PATH];
	size_t n = 0;
	int ret = 0;

	for (size_t i = 0; !ret && sbpl_base_path(i); i++)
		ret = add_parents(g, &s,
				  sbpl_host_path(g, sbpl_base_path(i), buf),
				  false);
	for (size_t i = 0; !ret && i < g->pol.nroots; i++)
		if (g->pol.roots[i].origin != ORIGIN_PROTECTED)
			ret = add_parents(g, &s, g->pol.roots[i].path, false);
	pathset_sort(&s);
	for (size_t i = 0; !ret && i < s.n; i++) {
		if (policy_rights(&g->pol, s.v[i]) & RIGHT_R)
			free(s.v[i]); /* read whole already */
		else
			s.v[n++] = s.v[i];
	}
	if (!ret) {
		s.n = n;
		put_set(g,
			"\n; The directories above the granted paths: their "
			"metadata (stat,\n; getcwd, realpath), not their "
			"contents.\n",
			"allow", "file-read-metadata", &s);
	}
	pathset_free(&s);
	if (ret || !(targets[0] || targets[1] || targets[2]))
		return ret;
	sb_puts(g->out, "; /tmp, /var and /etc: the symbolic links into "
			"/private themselves.\n");
	sbpl_open_rule(g, "allow", "file-read-metadata");
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (targets[i])
			sbpl_next_filter(g, "literal", links[i]);
	sbpl_close_rule(g);
	return 0;
}

/* Tree order: a directory before what lies in it; at the same path,
 * the protection before the root that lifts it; else the policy's. */
static int by_nesting(const void *a, const void *b)
{
	const struct root *x = *(const struct root *const *)a;
	const struct root *y = *(const struct root *const *)b;
	int cmp = strcmp(x->path, y->path);
	bool px = x->origin == ORIGIN_PROTECTED;
	bool py = y->origin == ORIGIN_PROTECTED;

	if (cmp)
		return cmp;
	if (px != py)
		return px ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void put_root(struct gen *g, const struct root *r)
{
	bool prot = r->origin == ORIGIN_PROTECTED;
	unsigned int ops = prot ? RIGHT_ALL & ~r->rights : r->rights;
	char list[128];
	struct strbuf sb = STRBUF(list, sizeof(list));

	for (size_t i = 0; i < sizeof(right_ops) / sizeof(right_ops[0]); i++) {
		if (!(ops & (1u << i)))
			continue;
		sb_puts(&sb, sb.len ? " " : "");
		sb_puts(&sb, right_ops[i]);
	}
	/* A root is visible whatever its rights (the shim's
	 * policy_is_visible(); Landlock does not restrict stat). */
	if (!prot && !(ops & RIGHT_R))
		sb_puts(&sb,
			sb.len ? " file-read-metadata" : "file-read-metadata");
	if (sb.len)
		sbpl_rule(g, prot ? "deny" : "allow", list,
			  r->is_dir ? "subpath" : "literal", r->path);
}

static int put_roots(struct gen *g)
{
	const struct root **order = calloc(g->pol.nroots + 1, sizeof(*order));

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < g->pol.nroots; i++)
		order[i] = &g->pol.roots[i];
	qsort(order, g->pol.nroots, sizeof(order[0]), by_nesting);
	sb_puts(g->out,
		"\n; The roots, in tree order.  R: file-read*; W: file-write*, "
		"file-ioctl;\n; X: process-exec*, file-map-executable.  A "
		"protected path denies what\n; it does not keep, after the "
		"roots around it; a root nested in it\n; gives rights back "
		"after it.\n");
	for (size_t i = 0; i < g->pol.nroots; i++)
		put_root(g, order[i]);
	free(order);
	return 0;
}

static bool is_temp(const struct gen *g, const char *path)
{
	char vartmp[SBPL_PATH];

	snprintf(vartmp, sizeof(vartmp), "%s/tmp",
		 g->h->var ? g->h->var : "/var");
	return path_is_within(path, sbpl_tmp_of(g)) ||
	       path_is_within(path, vartmp) ||
	       (g->h->tmpdir && path_is_within(path, g->h->tmpdir)) ||
	       (g->h->cachedir && path_is_within(path, g->h->cachedir));
}

/* May the command bind and reach UNIX sockets under @r?  In the
 * writable roots, but not in the shared temp dirs (ssh-agent, launchd's
 * listeners live there) unless a --write names them. */
static bool socket_root(const struct gen *g, const struct root *r)
{
	return r->is_dir && r->origin != ORIGIN_PROTECTED &&
	       (r->rights & RIGHT_W) &&
	       (r->origin == ORIGIN_USER || !is_temp(g, r->path));
}

/* A --connect-unix root: its sockets may be reached, not bound. */
static bool connect_root(const struct root *r)
{
	return r->origin == ORIGIN_USER && (r->rights & RIGHT_U);
}

static void put_connect_roots(struct gen *g)
{
	size_t n = 0;

	for (size_t i = 0; i < g->pol.nroots; i++)
		n += connect_root(&g->pol.roots[i]);
	if (!n)
		return;
	sb_puts(g->out, "; The --connect-unix roots: reached, not bound.\n");
	sbpl_open_rule(g, "allow", "network-outbound");
	for (size_t i = 0; i < g->pol.nroots; i++) {
		const struct root *r = &g->pol.roots[i];

		if (connect_root(r))
			sbpl_socket_filter(g, true, "remote",
					   r->is_dir ? "subpath" : "literal",
					   r->path);
	}
	sbpl_close_rule(g);
}

static void put_sockets(struct gen *g)
{
	size_t n = 0;

	put_connect_roots(g);
	for (size_t i = 0; i < g->pol.nroots; i++)
		n += socket_root(g, &g->pol.roots[i]);
	if (n || g->h->report)
		sb_puts(g->out,
			"\n; UNIX sockets: in the writable roots, not "
			"in the shared temp dirs\n; where other "
			"programs' sockets live (unless a --write names "
			"them).\n");
	if (n) {
		sbpl_open_rule(g, "allow", "network-bind network-inbound");
		for (size_t i = 0; i < g->pol.nroots; i++)
			if (socket_root(g, &g->pol.roots[i]))
				sbpl_socket_filter(g, true, "local", "subpath",
						   g->pol.roots[i].path);
		sbpl_close_rule(g);
		sbpl_open_rule(g, "allow", "network-outbound");
		for (size_t i = 0; i < g->pol.nroots; i++)
			if (socket_root(g, &g->pol.roots[i]))
				sbpl_socket_filter(g, true, "remote", "subpath",
						   g->pol.roots[i].path);
		sbpl_close_rule(g);
	}
	if (g->h->report) {
		char buf[SBPL_PATH];

		sb_puts(g->out, "; The launcher's report socket, where the "
				"shim's records go.\n");
		sbpl_open_rule(g, "allow", "network-outbound");
		sbpl_socket_filter(g, false, "remote", "literal",
				   sbpl_host_path(g, g->h->report, buf));
		sbpl_close_rule(g);
	}
}

static void put_ports(struct gen *g)
{
	const struct policy *p = g->orig;
	bool ephemeral = false;
	char spec[16];

	sb_puts(g->out, "\n; Network: TCP to and from the listed ports only; "
			"no UDP, no name\n; lookups (as on Linux).\n");
	if (p->nconnect) {
		sbpl_open_rule(g, "allow", "network-outbound");
		for (size_t i = 0; i < p->nconnect; i++) {
			snprintf(spec, sizeof(spec), "*:%u",
				 (unsigned int)p->connect_ports[i]);
			sbpl_next_filter(g, "remote tcp", spec);
		}
		sbpl_close_rule(g);
	}
	if (!p->nbind)
		return;
	sbpl_open_rule(g, "allow", "network-bind");
	for (size_t i = 0; i < p->nbind; i++) {
		snprintf(spec, sizeof(spec), "*:%u",
			 (unsigned int)p->bind_ports[i]);
		sbpl_next_filter(g, "local tcp", spec);
		ephemeral |= p->bind_ports[i] == 0;
	}
	sbpl_close_rule(g);
	/* Port 0 binds a port the kernel picks: connections come in on
	 * whichever it is, and binding stays limited to the list. */
	sbpl_open_rule(g, "allow", "network-inbound");
	for (size_t i = 0; i < p->nbind && !ephemeral; i++) {
		snprintf(spec, sizeof(spec), "*:%u",
			 (unsigned int)p->bind_ports[i]);
		sbpl_next_filter(g, "local tcp", spec);
	}
	if (ephemeral)
		sbpl_next_filter(g, "local tcp", "*:*");
	sbpl_close_rule(g);
}

static void put_net_on(struct gen *g)
{
	char buf[SBPL_PATH];

	sb_puts(g->out, "\n; Network: on.  Every IP socket; name lookups "
			"through mDNSResponder\n; and the DNS settings; "
			"certificate trust for TLS.\n"
			"(allow network-outbound (remote ip))\n"
			"(allow network-bind network-inbound (local ip))\n");
	sbpl_open_rule(g, "allow", "network-outbound");
	sbpl_socket_filter(g, false, "remote", "literal",
			   sbpl_host_path(g, "/var/run/mDNSResponder", buf));
	sbpl_close_rule(g);
	sbpl_rule(g, "allow", "file-read*", "literal",
		  sbpl_host_path(g, "/var/run/resolv.conf", buf));
	sbpl_open_rule(g, "allow", "mach-lookup");
	sbpl_next_filter(g, "global-name",
			 "com.apple.SystemConfiguration.DNSConfiguration");
	sbpl_next_filter(g, "global-name",
			 "com.apple.SystemConfiguration.configd");
	sbpl_next_filter(g, "global-name", "com.apple.trustd");
	sbpl_next_filter(g, "global-name", "com.apple.trustd.agent");
	sbpl_close_rule(g);
}

static void put_network(struct gen *g)
{
	switch (g->orig->net) {
	case NET_OFF:
	case NET_HOSTS: /* refused before (platform_darwin.c): no proxy */
		sb_puts(g->out, "\n; Network: off (no rule: no IP socket "
				"connects, binds or accepts).\n");
		break;
	case NET_PORTS:
		put_ports(g);
		break;
	case NET_ON:
		put_net_on(g);
		break;
	}
}

/* The directories above each protected path that a writable root would
 * let the command rename or remove: moving one would carry the
 * protected path away from its rules, and a fresh copy could take its
 * place.  Last, so that no allow comes after them. */
static int put_guards(struct gen *g)
{
	struct pathset s = { 0 };
	int ret = 0;

	for (size_t i = 0; !ret && i < g->pol.nroots; i++)
		if (g->pol.roots[i].origin == ORIGIN_PROTECTED)
			ret = add_parents(g, &s, g->pol.roots[i].path, true);
	if (!ret) {
		pathset_sort(&s);
		put_set(g,
			"\n; The directories above the protected paths, in "
			"writable roots: not\n; renamed or removed (the "
			"protection would move away with them), nor\n; made "
			"again.\n",
			"deny", "file-write-unlink file-write-create", &s);
	}
	pathset_free(&s);
	return ret;
}

static int render(struct gen *g)
{
	int ret;

	build(g);
	if (g->ret)
		return g->ret;
	sbpl_base_put(g);
	ret = put_parents(g);
	if (!ret)
		ret = put_roots(g);
	if (ret)
		return ret;
	put_sockets(g);
	put_network(g);
	return put_guards(g);
}

int sbpl_render(const struct policy *p, const struct sbpl_host *h,
		struct strbuf *out, char *err, size_t errlen)
{
	struct gen *g = calloc(1, sizeof(*g));
	int ret;

	if (g)
		g->paths = calloc(POLICY_MAX_ROOTS, sizeof(*g->paths));
	if (!g || !g->paths) {
		snprintf(err, errlen, "cannot write the Seatbelt profile: %s",
			 strerror(ENOMEM));
		if (g)
			free(g->paths);
		free(g);
		return -ENOMEM;
	}
	*g = (struct gen){ .h = h,
			   .orig = p,
			   .paths = g->paths,
			   .out = out,
			   .err = err,
			   .errlen = errlen };
	ret = render(g);
	if (!ret)
		ret = g->ret;
	if (ret == -ENOMEM && !g->ret)
		snprintf(err, errlen, "cannot write the Seatbelt profile: %s",
			 strerror(ENOMEM));
	if (!ret && out->full) {
		ret = -ENOSPC;
		snprintf(err, errlen,
			 "the Seatbelt profile is larger than %zu "
			 "bytes",
			 out->cap);
	}
	free(g->paths);
	free(g);
	return ret;
}
