/*
 * snapshot.c - encode the policy into one environment value and decode
 * it again (see snapshot.h for the format).
 *
 * snapshot_decode() runs in the shim's constructor: it allocates nothing,
 * uses no stdio and never changes errno; every string lands in the
 * caller's store, every count is checked against its cap.
 */
#include <errno.h>
#include <limits.h>
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

/* The TCP ports, then the UDP ones, each with a 'u' before it. */
static void put_ports(struct strbuf *o, const char *key, const uint16_t *tcp,
		      size_t n, const uint16_t *udp, size_t nudp)
{
	sb_puts(o, key);
	for (size_t i = 0; i < n + nudp; i++) {
		if (i)
			sb_puts(o, ",");
		if (i >= n)
			sb_puts(o, "u");
		sb_uint(o, i < n ? tcp[i] : udp[i - n]);
	}
}

static void put_root(struct strbuf *o, const struct root *r)
{
	char rights[POLICY_RIGHTS_STR];

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
	put_ports(&o, "|con=", p->connect_ports, p->nconnect, p->connect_udp,
		  p->nconnect_udp);
	put_ports(&o, "|bnd=", p->bind_ports, p->nbind, p->bind_udp,
		  p->nbind_udp);
	sb_puts(&o, "|env=");
	sb_uint(&o, p->env);
	sb_puts(&o, "|names=");
	for (size_t i = 0; i < p->nenv_names; i++) {
		if (i)
			sb_puts(&o, ",");
		put_escaped(&o, p->env_names[i]);
	}
	sb_puts(&o, p->quiet ? "|q=1" : "|q=0");
	if (p->home) {
		sb_puts(&o, "|home=");
		put_escaped(&o, p->home);
	}
	if (x && x->standalone)
		sb_puts(&o, "|sa=1");
	if (x && x->learn)
		sb_puts(&o, "|learn=1");
	if (x && x->udp)
		sb_puts(&o, "|udp=1");
	if (x && x->ll_unix)
		sb_puts(&o, "|ux=1");
	if (x && x->captured)
		sb_puts(&o, "|cap=1");
	if (x && x->gone) {
		sb_puts(&o, "|gone=");
		put_escaped(&o, x->gone);
	}
	if (x && x->log) {
		sb_puts(&o, "|log=");
		put_escaped(&o, x->log);
		if (x->log_ino) {
			sb_puts(&o, "|ldev=");
			sb_uint(&o, x->log_dev);
			sb_puts(&o, "|lino=");
			sb_uint(&o, x->log_ino);
		}
	}
	for (size_t i = 0; i < p->nroots; i++)
		put_root(&o, &p->roots[i]);
	return o.full ? -ENAMETOOLONG : (int)o.len;
}

/*
 * The decoder reads exactly what snapshot_encode() writes, and nothing
 * else: the fields in its order, each once; numbers in decimal without
 * a leading zero; rights as policy_rights_str() spells them; a byte
 * escaped exactly when must_escape() says so, in upper-case hex; no
 * NUL inside a string; no empty item in a list, nor a trailing comma.
 * So what decodes encodes back to the very same text (the fuzzer's
 * check), and a value made by hand fails closed unless it is one the
 * launcher could have sent.
 */

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
	return -1;
}

static bool at_end(const struct in *in)
{
	return !*in->s || *in->s == '|' || *in->s == ',';
}

/* One byte of a string: as it is, or "%XX" for a byte that must be
 * escaped (and only for one). */
static int take_byte(struct in *in, char *ch)
{
	int hi, lo;

	if (*in->s != '%') {
		*ch = *in->s++;
		return must_escape((unsigned char)*ch) ? -EINVAL : 0;
	}
	hi = hexval(in->s[1]);
	lo = hi < 0 ? -1 : hexval(in->s[2]);
	if (lo < 0)
		return -EINVAL;
	*ch = (char)(hi << 4 | lo);
	in->s += 3;
	return *ch && must_escape((unsigned char)*ch) ? 0 : -EINVAL;
}

/* Decode up to the next ',' or '|' (or the end) into the store. */
static int take_string(struct in *in, char **out)
{
	char *start = in->store + in->n;
	char ch;
	int ret;

	while (!at_end(in)) {
		ret = take_byte(in, &ch);
		if (ret)
			return ret;
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

/* A number as sb_uint() writes it, at most @max. */
static int take_uint(struct in *in, unsigned long max, unsigned long *v)
{
	const char *start = in->s;

	*v = 0;
	while (*in->s >= '0' && *in->s <= '9') {
		*v = *v * 10 + (unsigned long)(*in->s++ - '0');
		if (*v > max)
			return -EINVAL;
	}
	if (in->s == start || (*start == '0' && in->s - start > 1))
		return -EINVAL;
	return 0;
}

/* A list: nothing, or items separated by single commas. */
static bool next_item(struct in *in, size_t i)
{
	if (*in->s == '|' || !*in->s)
		return false;
	if (i > 0 && *in->s == ',')
		in->s++;
	return true;
}

/* The TCP ports, then the UDP ones ('u' before each: put_ports()). */
static int take_ports(struct in *in, uint16_t *tcp, size_t *n, uint16_t *udp,
		      size_t *nudp)
{
	unsigned long v;

	for (size_t i = 0; next_item(in, i); i++) {
		bool u = *in->s == 'u';

		in->s += u;
		if (!u && *nudp)
			return -EINVAL; /* a TCP port after a UDP one */
		if ((u ? *nudp : *n) == POLICY_MAX_PORTS)
			return -E2BIG;
		if (take_uint(in, 65535, &v))
			return -EINVAL;
		if (u)
			udp[(*nudp)++] = (uint16_t)v;
		else
			tcp[(*n)++] = (uint16_t)v;
	}
	return 0;
}

static int take_names(struct in *in, struct policy *p)
{
	int ret;

	for (size_t i = 0; next_item(in, i); i++) {
		if (p->nenv_names == POLICY_MAX_ENV)
			return -E2BIG;
		ret = take_string(in, &p->env_names[p->nenv_names++]);
		if (ret)
			return ret;
		if (!p->env_names[p->nenv_names - 1][0])
			return -EINVAL; /* an empty name matches nothing */
	}
	return 0;
}

/* As policy_rights_str() writes them: "-", or "r", "w", "x", "c" in
 * order. */
static int take_rights(struct in *in, unsigned int *r)
{
	static const char letter[] = "rwxc"; /* RIGHT_R, _W, _X, _U: 1-8 */

	*r = 0;
	if (*in->s == '-') {
		in->s++;
		return 0;
	}
	for (unsigned int i = 0; i < 4; i++) {
		if (*in->s == letter[i]) {
			*r |= 1u << i;
			in->s++;
		}
	}
	return *r ? 0 : -EINVAL;
}

/* "rwx,d,u,/path" */
static int take_root(struct in *in, struct policy *p)
{
	struct root *r;
	int ret;

	if (p->nroots == POLICY_MAX_ROOTS)
		return -E2BIG;
	r = &p->roots[p->nroots];
	if (take_rights(in, &r->rights))
		return -EINVAL;
	if (in->s[0] != ',' || (in->s[1] != 'd' && in->s[1] != 'f') ||
	    in->s[2] != ',' || !in->s[3] || !strchr("udp", in->s[3]) ||
	    in->s[4] != ',')
		return -EINVAL;
	r->is_dir = in->s[1] == 'd';
	r->origin = in->s[3] == 'u'   ? ORIGIN_USER
		    : in->s[3] == 'p' ? ORIGIN_PROTECTED
				      : ORIGIN_DEFAULT;
	in->s += 5;
	if (*in->s != '/')
		return -EINVAL;
	ret = take_string(in, &r->path);
	if (ret)
		return ret;
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

/* "@k" and a number up to @max. */
static int take_number(struct in *in, const char *k, unsigned long max,
		       unsigned long *v)
{
	return key(in, k) ? take_uint(in, max, v) : -EINVAL;
}

/* The fields every snapshot has, in the encoder's order. */
static int take_fixed(struct in *in, struct policy *p)
{
	unsigned long net, env, quiet;
	int ret;

	if (take_number(in, "|net=", NET_HOSTS, &net) || !key(in, "|con="))
		return -EINVAL;
	p->net = (enum net_mode)net;
	ret = take_ports(in, p->connect_ports, &p->nconnect, p->connect_udp,
			 &p->nconnect_udp);
	if (ret)
		return ret;
	if (!key(in, "|bnd="))
		return -EINVAL;
	ret = take_ports(in, p->bind_ports, &p->nbind, p->bind_udp,
			 &p->nbind_udp);
	if (ret)
		return ret;
	if (take_number(in, "|env=", ENV_INHERIT, &env) || !key(in, "|names="))
		return -EINVAL;
	p->env = (enum env_mode)env;
	ret = take_names(in, p);
	if (ret)
		return ret;
	if (take_number(in, "|q=", 1, &quiet))
		return -EINVAL;
	p->quiet = quiet == 1;
	return key(in, "|home=") ? take_string(in, &p->home) : 0;
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
	if (!key(&in, "v=1"))
		return -EINVAL;
	ret = take_fixed(&in, p);
	if (ret)
		return ret;
	x->standalone = key(&in, "|sa=1");
	x->learn = key(&in, "|learn=1");
	x->udp = key(&in, "|udp=1");
	x->ll_unix = key(&in, "|ux=1");
	x->captured = key(&in, "|cap=1");
	if (key(&in, "|gone=")) {
		ret = take_string(&in, &x->gone);
		if (ret)
			return ret;
	}
	if (key(&in, "|log=")) {
		ret = take_string(&in, &x->log);
		if (ret)
			return ret;
		if (*in.s == '|' && in.s[1] == 'l' &&
		    (take_number(&in, "|ldev=", ULONG_MAX / 10 - 1,
				 &x->log_dev) ||
		     take_number(&in, "|lino=", ULONG_MAX / 10 - 1,
				 &x->log_ino) ||
		     !x->log_ino))
			return -EINVAL;
	}
	while (key(&in, "|root=")) {
		ret = take_root(&in, p);
		if (ret)
			return ret;
	}
	return *in.s ? -EINVAL : 0;
}
