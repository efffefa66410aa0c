/*
 * proxy_parse.c - the egress proxy's parsers and rules (proxy_parse.h):
 * pure functions over the caller's bytes, no I/O, no allocation, so that
 * they can be unit-tested and fuzzed alone.
 *
 * Everything here reads what a program inside the sandbox wrote: every
 * length is checked before the byte it covers is read, and anything not
 * in the narrow grammar below is refused rather than guessed at (no
 * obs-fold, no bare CR or LF, no control bytes, no userinfo, no host
 * name the resolver could read as a number in another base).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "enforce/proxy/proxy.h"

#define METHOD_MAX  32
#define HEADERS_MAX 128

static bool is_tchar(unsigned char c)
{
	return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool set_ip(const char *text, struct proxy_target *t)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)&t->addr;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&t->addr;

	memset(&t->addr, 0, sizeof(t->addr));
	if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1)
		v6->sin6_family = AF_INET6;
	else if (inet_aton(text, &v4->sin_addr)) /* 127.1, 0x7f.1 too */
		v4->sin_family = AF_INET;
	else
		return false;
	t->is_ip = true;
	/* one spelling of each address: the rules compare these */
	if (v4->sin_family == AF_INET)
		inet_ntop(AF_INET, &v4->sin_addr, t->host, sizeof(t->host));
	else
		inet_ntop(AF_INET6, &v6->sin6_addr, t->host, sizeof(t->host));
	return true;
}

static bool is_name(const char *s, size_t len)
{
	size_t label = 0;

	if (len == 0 || len > 253)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '.') {
			if (label == 0)
				return false;
			label = 0;
		} else if (isalnum(c) || c == '-' || c == '_') {
			if (++label > 63)
				return false;
		} else {
			return false;
		}
	}
	return label > 0;
}

int proxy_host_parse(const char *s, size_t len, bool brackets,
		     struct proxy_target *t)
{
	char text[PROXY_HOST_MAX];

	t->is_ip = false;
	if (brackets && len >= 2 && s[0] == '[') {
		if (s[len - 1] != ']' || len - 2 >= 46)
			return -EINVAL;
		memcpy(text, s + 1, len - 2);
		text[len - 2] = '\0';
		if (!strchr(text, ':') || !set_ip(text, t))
			return -EINVAL;
		return 0;
	}
	if (len > 1 && s[len - 1] == '.')
		len--;
	if (!is_name(s, len))
		return -EINVAL;
	memcpy(text, s, len);
	text[len] = '\0';
	if (set_ip(text, t))
		return 0;
	for (size_t i = 0; i <= len; i++)
		t->host[i] = (char)tolower((unsigned char)text[i]);
	return 0;
}

static int port_parse(const char *s, size_t len, uint16_t *port)
{
	unsigned long v = 0;

	if (len == 0 || len > 5)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

int proxy_hostport_parse(const char *s, size_t len, uint16_t default_port,
			 struct proxy_target *t)
{
	const char *colon = NULL;
	size_t hlen = len;

	if (len && s[0] == '[') {
		const char *end = memchr(s, ']', len);

		if (!end)
			return -EINVAL;
		hlen = (size_t)(end - s) + 1;
		if (hlen < len && s[hlen] != ':')
			return -EINVAL;
		if (hlen < len)
			colon = s + hlen;
	} else {
		colon = memchr(s, ':', len);
		if (colon &&
		    memchr(colon + 1, ':', len - (size_t)(colon - s) - 1))
			return -EINVAL;
		if (colon)
			hlen = (size_t)(colon - s);
	}
	if (proxy_host_parse(s, hlen, true, t))
		return -EINVAL;
	if (colon)
		return port_parse(colon + 1, len - hlen - 1, &t->port);
	if (!default_port)
		return -EINVAL;
	t->port = default_port;
	return 0;
}

static bool ieq(const char *a, size_t alen, const char *lit)
{
	return alen == strlen(lit) && strncasecmp(a, lit, alen) == 0;
}

/* Bytes that may appear in a head: no NUL, no control byte but HT, CR
 * only before LF, LF only after CR.  Return: the head's length, 0 when
 * its end is not here yet, -EINVAL. */
static long head_end(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\r') {
			if (i + 1 < len && buf[i + 1] != '\n')
				return -EINVAL;
		} else if (c == '\n') {
			if (i == 0 || buf[i - 1] != '\r')
				return -EINVAL;
			if (i >= 3 && buf[i - 2] == '\n')
				return (long)i + 1;
		} else if ((c < 0x20 && c != '\t') || c == 0x7f) {
			return -EINVAL;
		}
	}
	return 0;
}

static int target_parse(const char *s, size_t len, struct proxy_request *r)
{
	size_t alen;

	if (r->kind == PROXY_CONNECT) {
		r->path_off = r->path_len = 0;
		return proxy_hostport_parse(s, len, 0, &r->target);
	}
	if (len >= 8 && strncasecmp(s, "https://", 8) == 0)
		return -EPROTONOSUPPORT;
	if (len < 7 || strncasecmp(s, "http://", 7) != 0)
		return len && s[0] == '/' ? -EINVAL : -EPROTONOSUPPORT;
	s += 7;
	len -= 7;
	alen = strcspn(s, "/?#");
	if (alen > len)
		alen = len;
	if (memchr(s, '@', alen) || len - alen > PROXY_PATH_MAX)
		return -EINVAL;
	r->path_len = len - alen;
	return proxy_hostport_parse(s, alen, 80, &r->target);
}

static int line_parse(const char *buf, size_t len, struct proxy_request *r)
{
	const char *sp1 = memchr(buf, ' ', len), *sp2, *ver;
	size_t vlen;
	int ret;

	if (!sp1 || sp1 == buf || (size_t)(sp1 - buf) > METHOD_MAX)
		return -EINVAL;
	r->method_len = (size_t)(sp1 - buf);
	for (size_t i = 0; i < r->method_len; i++)
		if (!is_tchar((unsigned char)buf[i]))
			return -EINVAL;
	sp2 = memchr(sp1 + 1, ' ', len - r->method_len - 1);
	if (!sp2 || sp2 == sp1 + 1)
		return -EINVAL;
	ver = sp2 + 1;
	vlen = len - (size_t)(ver - buf);
	if (!ieq(ver, vlen, "HTTP/1.1") && !ieq(ver, vlen, "HTTP/1.0"))
		return -EINVAL;
	r->kind =
		ieq(buf, r->method_len, "CONNECT") ? PROXY_CONNECT : PROXY_HTTP;
	ret = target_parse(sp1 + 1, (size_t)(sp2 - sp1 - 1), r);
	if (ret)
		return ret;
	r->path_off = (size_t)(sp2 - buf) - r->path_len;
	return 0;
}

static int header_check(const char *line, size_t len)
{
	const char *colon = memchr(line, ':', len);

	if (!colon || colon == line)
		return -EINVAL; /* obs-fold starts with a blank: no name */
	for (const char *p = line; p < colon; p++)
		if (!is_tchar((unsigned char)*p))
			return -EINVAL;
	return 0;
}

long proxy_request_parse(const char *buf, size_t len, struct proxy_request *r)
{
	size_t n = len < PROXY_HEADER_MAX ? len : PROXY_HEADER_MAX, off, eol;
	long end = head_end(buf, n);
	int ret, headers = 0;

	memset(r, 0, sizeof(*r));
	if (end == 0)
		return n >= PROXY_HEADER_MAX ? -E2BIG : 0;
	if (end < 0)
		return end;
	eol = (size_t)((const char *)memchr(buf, '\n', (size_t)end) - buf);
	ret = line_parse(buf, eol - 1, r);
	if (ret)
		return ret;
	r->head_len = (size_t)end;
	r->headers_off = off = eol + 1;
	while (off + 2 < (size_t)end) {
		eol = (size_t)((const char *)memchr(buf + off, '\n',
						    (size_t)end - off) -
			       buf);
		if (++headers > HEADERS_MAX ||
		    header_check(buf + off, eol - 1 - off))
			return -EINVAL;
		off = eol + 1;
	}
	return end;
}

static bool is_dropped(const char *line, size_t len)
{
	static const char *const names[] = {
		"connection", "keep-alive", "host",   "te",
		"upgrade",    "trailer",    "proxy-", NULL,
	};
	size_t nlen = (size_t)((const char *)memchr(line, ':', len) - line);

	for (int i = 0; names[i]; i++) {
		size_t l = strlen(names[i]);

		if (names[i][l - 1] == '-'
			    ? nlen >= l && !strncasecmp(line, names[i], l)
			    : ieq(line, nlen, names[i]))
			return true;
	}
	return false;
}

static bool put(char *out, size_t outlen, size_t *at, const char *s, size_t len)
{
	if (len > outlen - *at)
		return false;
	memcpy(out + *at, s, len);
	*at += len;
	return true;
}

long proxy_request_rewrite(const char *buf, const struct proxy_request *r,
			   char *out, size_t outlen)
{
	const char *path = buf + r->path_off;
	char host[PROXY_HOST_MAX + 64];
	size_t at = 0, off = r->headers_off, eol;
	bool ok = put(out, outlen, &at, buf, r->method_len) &&
		  put(out, outlen, &at, " ", 1);

	if (r->path_len == 0 || path[0] != '/')
		ok = ok && put(out, outlen, &at, "/", 1);
	ok = ok && put(out, outlen, &at, path, r->path_len) &&
	     put(out, outlen, &at, " ", 1) &&
	     put(out, outlen, &at, path + r->path_len + 1, 8) &&
	     put(out, outlen, &at, "\r\n", 2);
	while (ok && off + 2 < r->head_len) {
		eol = (size_t)((const char *)memchr(buf + off, '\n',
						    r->head_len - off) -
			       buf);
		if (!is_dropped(buf + off, eol - off))
			ok = put(out, outlen, &at, buf + off, eol + 1 - off);
		off = eol + 1;
	}
	if (r->target.port == 80)
		snprintf(host, sizeof(host),
			 strchr(r->target.host, ':') ? "[%s]" : "%s",
			 r->target.host);
	else
		proxy_target_format(&r->target, host, sizeof(host));
	ok = ok && put(out, outlen, &at, "Host: ", 6) &&
	     put(out, outlen, &at, host, strlen(host)) &&
	     put(out, outlen, &at, "\r\nConnection: close\r\n\r\n", 23);
	return ok ? (long)at : -ENOSPC;
}

char *proxy_target_format(const struct proxy_target *t, char *out,
			  size_t outlen)
{
	snprintf(out, outlen, strchr(t->host, ':') ? "[%s]:%u" : "%s:%u",
		 t->host, t->port);
	return out;
}

long proxy_socks_greeting(const uint8_t *buf, size_t len, bool *noauth)
{
	size_t n;

	*noauth = false;
	if (len >= 1 && buf[0] != 5)
		return -EINVAL;
	if (len >= 2 && buf[1] == 0)
		return -EINVAL;
	if (len < 2 || len < 2 + (size_t)buf[1])
		return 0;
	n = buf[1];
	*noauth = memchr(buf + 2, 0, n) != NULL;
	return (long)(2 + n);
}

long proxy_socks_request(const uint8_t *buf, size_t len, struct proxy_target *t)
{
	char text[INET6_ADDRSTRLEN];
	size_t alen, need;

	memset(t, 0, sizeof(*t));
	if (len >= 1 && buf[0] != 5)
		return -PROXY_SOCKS_FAILURE;
	if (len >= 2 && buf[1] != 1)
		return -PROXY_SOCKS_BAD_COMMAND;
	if (len >= 3 && buf[2] != 0)
		return -PROXY_SOCKS_FAILURE;
	if (len < 5)
		return 0;
	switch (buf[3]) {
	case 1:
		alen = 4;
		break;
	case 3:
		alen = 1 + (size_t)buf[4];
		if (buf[4] == 0)
			return -PROXY_SOCKS_FAILURE;
		break;
	case 4:
		alen = 16;
		break;
	default:
		return -PROXY_SOCKS_BAD_ATYP;
	}
	need = 4 + alen + 2;
	if (len < need)
		return 0;
	if (buf[3] == 3) {
		if (proxy_host_parse((const char *)buf + 5, alen - 1, false, t))
			return -PROXY_SOCKS_FAILURE;
	} else {
		inet_ntop(buf[3] == 1 ? AF_INET : AF_INET6, buf + 4, text,
			  sizeof(text));
		if (!set_ip(text, t))
			return -PROXY_SOCKS_FAILURE;
	}
	t->port = (uint16_t)(buf[need - 2] << 8 | buf[need - 1]);
	if (t->port == 0)
		return -PROXY_SOCKS_FAILURE;
	return (long)need;
}
