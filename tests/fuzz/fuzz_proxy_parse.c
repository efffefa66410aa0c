/*
 * fuzz_proxy_parse.c - libFuzzer target for the egress proxy's parsers
 * (enforce/proxy/proxy_parse.c, enforce/proxy/proxy_rules.c).
 *
 * The first byte picks the parser, the rest is its input.  Whatever it
 * is, a parser returns one of its documented values, a head's offsets
 * lie inside the input, a rewritten head fits its buffer and ends with
 * the empty line, a target's host is a NUL-ended name of the allowed
 * bytes, and matching it against rules never fails.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/proxy/proxy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct proxy_rule rules[4];
static size_t nrules;

static void check_target(const struct proxy_target *t)
{
	size_t len = strnlen(t->host, sizeof(t->host));

	if (len == 0 || len >= sizeof(t->host))
		abort();
	if (strspn(t->host, "abcdefghijklmnopqrstuvwxyz0123456789-_.:") != len)
		abort();
	proxy_match(rules, nrules, t);
}

static void request(const char *buf, size_t len)
{
	static char out[PROXY_HEADER_MAX + PROXY_HOST_MAX + 64];
	struct proxy_request r;
	long n = proxy_request_parse(buf, len, &r), w;

	if (n == 0 || n == -E2BIG || n == -EINVAL || n == -EPROTONOSUPPORT)
		return;
	if (n < 0 || (size_t)n > len || (size_t)n > PROXY_HEADER_MAX ||
	    r.head_len != (size_t)n || r.headers_off > r.head_len ||
	    r.path_off + r.path_len > r.head_len)
		abort();
	check_target(&r.target);
	w = proxy_request_rewrite(buf, &r, out, sizeof(out));
	if (w == -ENOSPC)
		abort(); /* the buffer is sized for the largest head */
	if (w < 4 || (size_t)w > sizeof(out) ||
	    memcmp(out + w - 4, "\r\n\r\n", 4))
		abort();
}

static void socks(const uint8_t *buf, size_t len)
{
	struct proxy_target t;
	bool noauth;
	long n = proxy_socks_greeting(buf, len, &noauth);

	if (n < -EINVAL || (n > 0 && (size_t)n > len))
		abort();
	n = proxy_socks_request(buf, len, &t);
	if (n < -PROXY_SOCKS_BAD_ATYP || (n > 0 && (size_t)n > len))
		abort();
	if (n > 0) {
		check_target(&t);
		if (t.port == 0)
			abort();
	}
}

static void rule(const char *buf, size_t len)
{
	struct proxy_rule r;
	char spec[512];

	if (len >= sizeof(spec))
		return;
	memcpy(spec, buf, len);
	spec[len] = '\0';
	if (proxy_rule_parse(spec, &r) == 0 &&
	    (r.host[0] == '\0' || (r.wildcard && r.is_ip)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proxy_target t;

	if (!nrules) {
		proxy_rule_parse("example.com", &rules[nrules++]);
		proxy_rule_parse("*.example.org:8080", &rules[nrules++]);
		proxy_rule_parse("10.0.0.1", &rules[nrules++]);
		proxy_rule_parse("[::1]:22", &rules[nrules++]);
	}
	if (size < 1)
		return 0;
	switch (data[0] % 4) {
	case 0:
		request((const char *)data + 1, size - 1);
		break;
	case 1:
		socks(data + 1, size - 1);
		break;
	case 2:
		rule((const char *)data + 1, size - 1);
		break;
	default:
		if (proxy_hostport_parse((const char *)data + 1, size - 1, 80,
					 &t) == 0)
			check_target(&t);
	}
	return 0;
}
