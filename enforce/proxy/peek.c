/*
 * peek.c - the name a captured connection asks for (peek.h), read from
 * the first bytes its client sent: a TLS ClientHello's server_name, an
 * HTTP/1.x request's absolute URI or Host.  Pure: no I/O, no allocation,
 * no state; a ClientHello split over records is gathered into a buffer
 * on the stack, of PEEK_MAX bytes.
 *
 * Every byte is the sandbox's and hostile.  Each length is checked
 * against what holds it before a byte it covers is read, and what leaves
 * the narrow grammar of peek.h is PEEK_OTHER rather than guessed at.  The
 * bytes are read in order and each step says what those it has read are
 * so far: PEEK_TLS or PEEK_HTTP (go on), PEEK_MORE (they end before the
 * step does) or PEEK_OTHER.  So a verdict rests only on the bytes before
 * it: a prefix of what is accepted is PEEK_MORE, and a protocol that is
 * neither is told PEEK_OTHER at the first byte that rules both out, not
 * kept waiting for a timeout.
 */
#include <string.h>

#include "enforce/proxy/peek.h"

#define REC_HDR		5     /* type, version, 2-byte length */
#define REC_MAX		16384 /* a record's payload (RFC 8446 5.1) */
#define REC_HANDSHAKE	22
#define HS_HDR		4 /* type, 3-byte length */
#define HS_CLIENT_HELLO 1
#define SESSION_ID_MAX	32
#define EXT_SERVER_NAME 0
#define NAME_HOST	0
#define METHOD_MAX	20

/* ---- TLS ---- */

/*
 * Bytes read in order: @limit of them declared by the lengths around,
 * @avail (at most @limit) of these received.  A read past @limit is
 * PEEK_OTHER, past @avail only PEEK_MORE.  All the readers of one walk
 * share *@st, PEEK_TLS until a read or a check fails and says why; then
 * every read fails, so that one stop is never overwritten by another.
 */
struct rd {
	const uint8_t *p;
	size_t avail, limit;
	enum peek_kind *st;
};

static bool stop(struct rd *r, enum peek_kind why)
{
	if (*r->st == PEEK_TLS)
		*r->st = why;
	return false;
}

static bool take(struct rd *r, size_t n, const uint8_t **at)
{
	if (*r->st != PEEK_TLS)
		return false;
	if (n > r->limit)
		return stop(r, PEEK_OTHER);
	if (n > r->avail)
		return stop(r, PEEK_MORE);
	*at = r->p;
	r->p += n;
	r->avail -= n;
	r->limit -= n;
	return true;
}

/* A big-endian number of @w (1 to 3) bytes. */
static bool get_num(struct rd *r, size_t w, size_t *v)
{
	const uint8_t *at;

	*v = 0;
	if (!take(r, w, &at))
		return false;
	for (size_t i = 0; i < w; i++)
		*v = *v << 8 | at[i];
	return true;
}

/* A vector of a @w-byte length, into @sub (empty when it fails). */
static bool get_vec(struct rd *r, size_t w, struct rd *sub)
{
	size_t len;

	*sub = (struct rd){ r->p, 0, 0, r->st };
	if (!get_num(r, w, &len))
		return false;
	if (len > r->limit)
		return stop(r, PEEK_OTHER);
	sub->p = r->p;
	sub->limit = len;
	sub->avail = len < r->avail ? len : r->avail;
	/* past avail nothing is read: r->p need not follow */
	r->p += sub->avail;
	r->avail -= sub->avail;
	r->limit -= len;
	return true;
}

static void host_name(struct rd *name, struct peek_result *res)
{
	struct proxy_target t;
	const uint8_t *at;
	size_t n = name->limit;

	if (!take(name, n, &at))
		return;
	if (proxy_host_parse((const char *)at, n, false, &t)) {
		stop(name, PEEK_OTHER);
		return;
	}
	if (t.is_ip)
		return; /* RFC 6066 3: no literal IP address: as no name */
	t.port = 0;
	res->target = t;
	res->has_name = true;
}

/* server_name (RFC 6066 3): a list that fills the extension, of entries
 * (type, 2-byte length, name), one host_name at most; no other type was
 * ever defined, and every server reads them so. */
static void server_name(struct rd *ext, struct peek_result *res)
{
	struct rd list, name;
	size_t type;
	bool found = false;

	if (get_vec(ext, 2, &list) && (ext->limit || !list.limit))
		stop(ext, PEEK_OTHER);
	while (*list.st == PEEK_TLS && list.limit) {
		if (!get_num(&list, 1, &type) || !get_vec(&list, 2, &name))
			return;
		if (type != NAME_HOST)
			continue;
		if (found) {
			stop(&list, PEEK_OTHER);
			return;
		}
		found = true;
		host_name(&name, res);
	}
}

/* The extensions block, which must fill the rest of the ClientHello. */
static void extensions(struct rd *r, struct peek_result *res)
{
	struct rd exts, data;
	size_t type;
	bool seen = false;

	if (get_vec(r, 2, &exts) && r->limit)
		stop(r, PEEK_OTHER);
	while (*exts.st == PEEK_TLS && exts.limit) {
		if (!get_num(&exts, 2, &type) || !get_vec(&exts, 2, &data))
			return;
		if (type != EXT_SERVER_NAME)
			continue;
		if (seen) /* RFC 8446 4.2: one of each type */
			stop(&exts, PEEK_OTHER);
		seen = true;
		server_name(&data, res);
	}
}

/* A ClientHello's body (RFC 8446 4.1.2; TLS 1.0 to 1.2 the same, the
 * extensions optional): its declared @limit bytes, @avail at @p. */
static enum peek_kind hello_parse(const uint8_t *p, size_t avail, size_t limit,
				  struct peek_result *res)
{
	enum peek_kind st = PEEK_TLS;
	struct rd r = { p, avail, limit, &st }, v;
	const uint8_t *at;
	size_t version;

	if (get_num(&r, 2, &version) && (version < 0x0300 || version > 0x0304))
		stop(&r, PEEK_OTHER);
	take(&r, 32, &at); /* random */
	if (get_vec(&r, 1, &v) && v.limit > SESSION_ID_MAX)
		stop(&r, PEEK_OTHER);
	if (get_vec(&r, 2, &v) && (v.limit == 0 || v.limit % 2))
		stop(&r, PEEK_OTHER); /* cipher suites */
	if (get_vec(&r, 1, &v) && v.limit == 0)
		stop(&r, PEEK_OTHER); /* compression methods */
	if (st == PEEK_TLS && r.limit)
		extensions(&r, res);
	/* vectors are passed over before their bytes come: whole or MORE */
	return st == PEEK_TLS && avail < limit ? PEEK_MORE : st;
}

/* Could the @n (at most REC_HDR) bytes at @h begin a handshake record's
 * header: version 0x0300 to 0x0304, length 1 to REC_MAX? */
static bool is_record_start(const uint8_t *h, size_t n)
{
	size_t len;

	if ((n >= 1 && h[0] != REC_HANDSHAKE) || (n >= 2 && h[1] != 3) ||
	    (n >= 3 && h[2] > 4) || (n >= 4 && h[3] > REC_MAX >> 8))
		return false;
	if (n < REC_HDR)
		return true;
	len = (size_t)h[3] << 8 | h[4];
	return len >= 1 && len <= REC_MAX;
}

/*
 * The handshake message the records at @buf begin with, gathered into
 * @hs (PEEK_MAX bytes: @len is at most that, and has a header before
 * any payload): *@have bytes of it, of *@need (0: not known yet).
 * Return: PEEK_TLS when whole, PEEK_MORE, or PEEK_OTHER.
 */
static enum peek_kind gather(const uint8_t *buf, size_t len, uint8_t *hs,
			     size_t *have, size_t *need)
{
	size_t off = 0, rlen, n;

	*have = *need = 0;
	for (;;) {
		if (len - off < REC_HDR)
			return is_record_start(buf + off, len - off)
				       ? PEEK_MORE
				       : PEEK_OTHER;
		if (!is_record_start(buf + off, REC_HDR))
			return PEEK_OTHER;
		rlen = (size_t)buf[off + 3] << 8 | buf[off + 4];
		off += REC_HDR;
		n = rlen < len - off ? rlen : len - off;
		if (n > PEEK_MAX - *have)
			return PEEK_OTHER;
		memcpy(hs + *have, buf + off, n);
		*have += n;
		if (*have && hs[0] != HS_CLIENT_HELLO)
			return PEEK_OTHER;
		if (!*need && *have >= HS_HDR) {
			*need = HS_HDR + ((size_t)hs[1] << 16 |
					  (size_t)hs[2] << 8 | hs[3]);
			/* it could never arrive, even in one record */
			if (*need > PEEK_MAX - REC_HDR)
				return PEEK_OTHER;
		}
		if (*need && *have >= *need)
			return PEEK_TLS;
		if (n < rlen)
			return PEEK_MORE;
		off += rlen;
	}
}

static enum peek_kind tls_classify(const uint8_t *buf, size_t len,
				   struct peek_result *res)
{
	uint8_t hs[PEEK_MAX];
	size_t have, need;
	enum peek_kind k = gather(buf, len, hs, &have, &need);

	if (k == PEEK_OTHER || need == 0)
		return k;
	/* a part of it is read too: a malformed start is told at once */
	return hello_parse(hs + HS_HDR, (have < need ? have : need) - HS_HDR,
			   need - HS_HDR, res);
}

/* ---- HTTP ---- */

/* The names a head gives: its absolute URI's, its Host's. */
struct http_names {
	struct proxy_target uri, host;
	bool has_uri, has_host;
};

static bool is_upper(uint8_t c)
{
	return c >= 'A' && c <= 'Z';
}

static uint8_t lower(uint8_t c)
{
	return is_upper(c) ? (uint8_t)(c + 'a' - 'A') : c;
}

/* RFC 9110 5.6.2 */
static bool is_tchar(uint8_t c)
{
	return (c >= '0' && c <= '9') || is_upper(c) ||
	       (c >= 'a' && c <= 'z') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool is_vchar(uint8_t c)
{
	return c > 0x20 && c < 0x7f;
}

/* A field value's byte: VCHAR, SP, HTAB, obs-text. */
static bool is_field(uint8_t c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* host[:port] of a Host or an absolute URI (RFC 9110 4.2.1, 7.2): IPv6
 * in brackets; without a port, port 0. */
static int authority_parse(const uint8_t *s, size_t n, struct proxy_target *t)
{
	const char *c = (const char *)s;
	bool has_port = s[0] == '[' ? s[n - 1] != ']' : !!memchr(s, ':', n);

	memset(t, 0, sizeof(*t));
	if (has_port)
		return proxy_hostport_parse(c, n, 0, t);
	return proxy_host_parse(c, n, true, t);
}

static bool is_same(const struct proxy_target *a, const struct proxy_target *b)
{
	return !strcmp(a->host, b->host) &&
	       (a->port ? a->port : 80) == (b->port ? b->port : 80);
}

/* "METHOD SP" at *@off (0). */
static enum peek_kind method(const uint8_t *b, size_t len, size_t *off)
{
	size_t i;

	for (i = 0; i < len && b[i] != ' '; i++)
		if (!is_upper(b[i]) || i == METHOD_MAX)
			return PEEK_OTHER;
	if (i == len)
		return PEEK_MORE;
	*off = i + 1;
	return i ? PEEK_HTTP : PEEK_OTHER;
}

/* An absolute URI's authority, after "http://" (no userinfo). */
static enum peek_kind uri_parse(const uint8_t *s, size_t n,
				struct http_names *h)
{
	size_t alen = 0;

	while (alen < n && !memchr("/?#", s[alen], 3))
		alen++;
	if (!alen || memchr(s, '@', alen) || authority_parse(s, alen, &h->uri))
		return PEEK_OTHER;
	h->has_uri = true;
	return PEEK_HTTP;
}

/* "target SP": "/...", "*", "http://authority[/...]"; its form told
 * from its first bytes, its authority at its end. */
static enum peek_kind target(const uint8_t *b, size_t len, size_t *off,
			     struct http_names *h)
{
	static const char scheme[] = "http://";
	const size_t slen = sizeof(scheme) - 1;
	const uint8_t *t = b + *off;
	size_t n;

	for (n = 0; *off + n < len && t[n] != ' '; n++) {
		if (!is_vchar(t[n]) || (t[0] == '*' && n > 0))
			return PEEK_OTHER;
		if (t[0] != '/' && t[0] != '*' && n < slen &&
		    lower(t[n]) != (uint8_t)scheme[n])
			return PEEK_OTHER;
	}
	if (*off + n == len)
		return PEEK_MORE;
	*off += n + 1;
	if (n == 0)
		return PEEK_OTHER;
	if (t[0] == '/' || t[0] == '*')
		return PEEK_HTTP;
	if (n <= slen)
		return PEEK_OTHER;
	return uri_parse(t + slen, n - slen, h);
}

/* "HTTP/1.0" or "HTTP/1.1", CRLF. */
static enum peek_kind version(const uint8_t *b, size_t len, size_t *off)
{
	static const char want[] = "HTTP/1.?\r\n";

	for (size_t i = 0; i < sizeof(want) - 1; i++, (*off)++) {
		if (*off == len)
			return PEEK_MORE;
		if (want[i] == '?' ? b[*off] != '0' && b[*off] != '1'
				   : b[*off] != (uint8_t)want[i])
			return PEEK_OTHER;
	}
	return PEEK_HTTP;
}

/* "name:value CRLF" at *@off: a token, its colon right after it (RFC
 * 9112 5.1: no blank before), field bytes; its value at @v, @vlen. */
static enum peek_kind header(const uint8_t *b, size_t len, size_t *off,
			     const uint8_t **v, size_t *vlen)
{
	size_t i = *off;

	while (i < len && b[i] != ':')
		if (!is_tchar(b[i++]))
			return PEEK_OTHER;
	if (i == len)
		return PEEK_MORE;
	if (i == *off)
		return PEEK_OTHER; /* obs-fold too: it starts with a blank */
	*v = b + ++i;
	while (i < len && b[i] != '\r')
		if (!is_field(b[i++]))
			return PEEK_OTHER;
	if (i + 1 >= len)
		return PEEK_MORE;
	if (b[i + 1] != '\n')
		return PEEK_OTHER;
	*vlen = (size_t)(b + i - *v);
	*off = i + 2;
	return PEEK_HTTP;
}

static bool is_host(const uint8_t *line, size_t n)
{
	static const char name[] = "host";

	if (n != sizeof(name) - 1)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower(line[i]) != (uint8_t)name[i])
			return false;
	return true;
}

/* A Host's value, blanks around it dropped; a second must agree. */
static enum peek_kind host_take(const uint8_t *v, size_t n,
				struct http_names *h)
{
	struct proxy_target t;

	while (n && (v[0] == ' ' || v[0] == '\t')) {
		v++;
		n--;
	}
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if (!n || authority_parse(v, n, &t))
		return PEEK_OTHER;
	if (h->has_host && !is_same(&h->host, &t))
		return PEEK_OTHER;
	h->host = t;
	h->has_host = true;
	return PEEK_HTTP;
}

/* The head is whole: its name, unless its names disagree. */
static enum peek_kind names_done(const struct http_names *h,
				 struct peek_result *res)
{
	if (h->has_uri && h->has_host && !is_same(&h->uri, &h->host))
		return PEEK_OTHER;
	if (h->has_uri || h->has_host) {
		res->target = h->has_uri ? h->uri : h->host;
		res->has_name = true;
	}
	return PEEK_HTTP;
}

static enum peek_kind http_classify(const uint8_t *b, size_t len,
				    struct peek_result *res)
{
	struct http_names h = { .has_uri = false };
	const uint8_t *v, *line;
	size_t off = 0, vlen;
	enum peek_kind k = method(b, len, &off);

	if (k == PEEK_HTTP)
		k = target(b, len, &off, &h);
	if (k == PEEK_HTTP)
		k = version(b, len, &off);
	while (k == PEEK_HTTP) {
		if (off < len && b[off] == '\r') {
			if (off + 1 == len)
				return PEEK_MORE;
			if (b[off + 1] != '\n')
				return PEEK_OTHER;
			return names_done(&h, res);
		}
		line = b + off;
		k = header(b, len, &off, &v, &vlen);
		if (k == PEEK_HTTP && is_host(line, (size_t)(v - 1 - line)))
			k = host_take(v, vlen, &h);
	}
	return k;
}

void peek_classify(const uint8_t *buf, size_t len, struct peek_result *r)
{
	memset(r, 0, sizeof(*r));
	if (len > PEEK_MAX)
		len = PEEK_MAX;
	if (len == 0)
		r->kind = PEEK_MORE;
	else if (buf[0] == REC_HANDSHAKE)
		r->kind = tls_classify(buf, len, r);
	else if (is_upper(buf[0]))
		r->kind = http_classify(buf, len, r);
	else
		r->kind = PEEK_OTHER;
	if (r->kind == PEEK_MORE && len == PEEK_MAX)
		r->kind = PEEK_OTHER; /* it will not fit */
	if (r->kind != PEEK_TLS && r->kind != PEEK_HTTP)
		r->has_name = false;
	if (!r->has_name)
		memset(&r->target, 0, sizeof(r->target));
}
