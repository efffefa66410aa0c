/*
 * snapshot.c - encode the policy into one environment value and decode
 * it again (see snapshot.h for the format).
 *
 * snapshot_decode() runs in the shim's constructor: it allocates nothing,
 * uses no stdio and never changes errno; every string lands in the
 * caller's store, every count is checked against its cap.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "shim/core/snapshot.h"
#include "shim/core/strbuf.h"

static bool must_escape(unsigned char ch)
{
	return ch < 0x20 || ch == 0x7f || ch == '|' || ch == '%' || ch == ',';
}

static void put_escaped(struct strbuf *o, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		char e[3] = { '%', hex[ch >> 4], hex[ch & 15] };

		if (must_escape(ch))
			sb_put(o, e, 3);
		else
			sb_put(o, s, 1);
	}
}

static void put_ports(struct strbuf *o, const char *key, const uint16_t *ports,
		      size_t n)
{
	sb_puts(o, key);
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_puts(o, ",");
		sb_uint(o, ports[i]);
	}
}

static void put_root(struct strbuf *o, const struct root *r)
{
	char rights[4];

	sb_puts(o, "|root=");
	sb_puts(o, policy_rights_str(r->rights, rights));
	sb_puts(o, r->is_dir ? ",d," : ",f,");
	sb_puts(o, r->origin == ORIGIN_USER	   ? "u,"
		   : r->origin == ORIGIN_PROTECTED ? "p,"
						   : "d,");
	put_escaped(o, r->path);
}

int snapshot_encode(const struct policy *p, const struct snapshot_extra *x,
		    char *buf, size_t len)
{
	struct strbuf o = STRBUF(buf, len);

	if (len == 0)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	sb_puts(&o, "v=1|net=");
	sb_uint(&o, p->net);
	put_ports(&o, "|con=", p->connect_ports, p->nconnect);
	put_ports(&o, "|bnd=", p->bind_ports, p->nbind);
	sb_puts(&o, "|env=");
	sb_uint(&o, p->env);
	sb_puts(&o, "|names=");
	for (size_t i = 0; i < p->nenv_names; i++) {
		if (i)
			sb_puts(&o, ",");
		put_escaped(&o, p->env_names[i]);
	}
	sb_puts(&o, p->quiet ? "|q=1" : "|q=0");
	if (x && x->standalone)
		sb_puts(&o, "|sa=1");
	if (x && x->learn)
		sb_puts(&o, "|learn=1");
	if (x && x->log) {
		sb_puts(&o, "|log=");
		put_escaped(&o, x->log);
	}
	for (size_t i = 0; i < p->nroots; i++)
		put_root(&o, &p->roots[i]);
	return o.full ? -ENAMETOOLONG : (int)o.len;
}

/* The decoder's state: the input left and where decoded strings go. */
struct in {
	const char *s;
	char *store;
	size_t len, n;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode up to the next ',' or '|' (or the end) into the store. */
static int take_string(struct in *in, char **out)
{
	char *start = in->store + in->n;

	while (*in->s && *in->s != '|' && *in->s != ',') {
		char ch = *in->s++;

		if (ch == '%') {
			int hi = hexval(in->s[0]);
			int lo = hi < 0 ? -1 : hexval(in->s[1]);

			if (lo < 0)
				return -EINVAL;
			ch = (char)(hi << 4 | lo);
			in->s += 2;
		}
		if (in->n + 1 >= in->len)
			return -ENAMETOOLONG;
		in->store[in->n++] = ch;
	}
	if (in->n >= in->len)
		return -ENAMETOOLONG;
	in->store[in->n++] = '\0';
	*out = start;
	return 0;
}

static int take_uint(struct in *in, unsigned long max, unsigned long *v)
{
	const char *start = in->s;

	*v = 0;
	while (*in->s >= '0' && *in->s <= '9') {
		*v = *v * 10 + (unsigned long)(*in->s++ - '0');
		if (*v > max)
			return -EINVAL;
	}
	return in->s == start ? -EINVAL : 0;
}

static int take_ports(struct in *in, uint16_t *ports, size_t *n)
{
	unsigned long v;

	while (*in->s && *in->s != '|') {
		if (*n == POLICY_MAX_PORTS)
			return -E2BIG;
		if (take_uint(in, 65535, &v))
			return -EINVAL;
		ports[(*n)++] = (uint16_t)v;
		if (*in->s == ',')
			in->s++;
	}
	return 0;
}

static int take_names(struct in *in, struct policy *p)
{
	int ret;

	while (*in->s && *in->s != '|') {
		if (p->nenv_names == POLICY_MAX_ENV)
			return -E2BIG;
		ret = take_string(in, &p->env_names[p->nenv_names++]);
		if (ret)
			return ret;
		if (!p->env_names[p->nenv_names - 1][0])
			return -EINVAL; /* an empty name matches nothing */
		if (*in->s == ',')
			in->s++;
	}
	return 0;
}

static unsigned int take_rights(struct in *in)
{
	unsigned int r = 0;

	for (; *in->s && *in->s != ','; in->s++) {
		if (*in->s == 'r')
			r |= RIGHT_R;
		else if (*in->s == 'w')
			r |= RIGHT_W;
		else if (*in->s == 'x')
			r |= RIGHT_X;
	}
	return r;
}

/* "rwx,d,u,/path" */
static int take_root(struct in *in, struct policy *p)
{
	struct root *r;

	if (p->nroots == POLICY_MAX_ROOTS)
		return -E2BIG;
	r = &p->roots[p->nroots];
	r->rights = take_rights(in);
	if (in->s[0] != ',' || (in->s[1] != 'd' && in->s[1] != 'f') ||
	    in->s[2] != ',' || !strchr("udp", in->s[3]) || !in->s[3] ||
	    in->s[4] != ',')
		return -EINVAL;
	r->is_dir = in->s[1] == 'd';
	r->origin = in->s[3] == 'u'   ? ORIGIN_USER
		    : in->s[3] == 'p' ? ORIGIN_PROTECTED
				      : ORIGIN_DEFAULT;
	in->s += 5;
	if (take_string(in, &r->path) || r->path[0] != '/')
		return -EINVAL;
	p->nroots++;
	return 0;
}

static bool key(struct in *in, const char *k)
{
	size_t n = strlen(k);

	if (strncmp(in->s, k, n) != 0)
		return false;
	in->s += n;
	return true;
}

static int take_field(struct in *in, struct policy *p, struct snapshot_extra *x)
{
	unsigned long v = 0;
	int ret;

	if (key(in, "net=")) {
		ret = take_uint(in, NET_ON, &v);
		p->net = (enum net_mode)v;
	} else if (key(in, "env=")) {
		ret = take_uint(in, ENV_INHERIT, &v);
		p->env = (enum env_mode)v;
	} else if (key(in, "q=")) {
		ret = take_uint(in, 1, &v);
		p->quiet = v == 1;
	} else if (key(in, "learn=")) {
		ret = take_uint(in, 1, &v);
		x->learn = v == 1;
	} else if (key(in, "sa=")) {
		ret = take_uint(in, 1, &v);
		x->standalone = v == 1;
	} else if (key(in, "con=")) {
		ret = take_ports(in, p->connect_ports, &p->nconnect);
	} else if (key(in, "bnd=")) {
		ret = take_ports(in, p->bind_ports, &p->nbind);
	} else if (key(in, "names=")) {
		ret = take_names(in, p);
	} else if (key(in, "log=")) {
		ret = take_string(in, &x->log);
	} else if (key(in, "root=")) {
		ret = take_root(in, p);
	} else {
		ret = -EINVAL;
	}
	return ret;
}

int snapshot_decode(const char *value, struct policy *p,
		    struct snapshot_extra *x, char *store, size_t len)
{
	struct in in = { .s = value, .store = store, .len = len };
	int ret;

	/* all but the roots, which are written as they are added: a page
	 * of the shim's static policy is not touched for nothing */
	memset(p, 0, offsetof(struct policy, roots));
	memset(x, 0, sizeof(*x));
	if (strncmp(value, "v=1", 3) != 0 || (value[3] && value[3] != '|'))
		return -EINVAL;
	in.s += 3;
	while (*in.s == '|') {
		in.s++;
		ret = take_field(&in, p, x);
		if (ret)
			return ret;
	}
	return *in.s ? -EINVAL : 0;
}
