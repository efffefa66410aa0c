/*
 * test_netclass.c - the special-purpose blocks (enforce/proxy/netclass.c):
 * the table against its own text, every entry's edges (its first and
 * last address in, the addresses on either side out), the IPv6 forms
 * that carry an IPv4 address, and the global neighbours of every block.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/proxy/netclass.h"

static size_t width(int family)
{
	return family == AF_INET ? 4 : 16;
}

static const struct netclass *classify(int family, const uint8_t *b)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	ss.ss_family = (sa_family_t)family;
	if (family == AF_INET)
		memcpy(&v4->sin_addr, b, 4);
	else
		memcpy(&v6->sin6_addr, b, 16);
	return netclass_special((struct sockaddr *)&ss);
}

static const struct netclass *of(const char *text)
{
	uint8_t b[16];

	if (inet_pton(AF_INET, text, b) == 1)
		return classify(AF_INET, b);
	cr_assert_eq(inet_pton(AF_INET6, text, b), 1, "%s", text);
	return classify(AF_INET6, b);
}

/* Is @in a block of @out (the same, or more specific inside it)? */
static bool within(const struct netclass *in, const struct netclass *out)
{
	unsigned int whole = out->len / 8, rest = out->len % 8;

	if (!in || in->family != out->family || in->len < out->len ||
	    memcmp(in->prefix, out->prefix, whole))
		return false;
	return !rest ||
	       !((in->prefix[whole] ^ out->prefix[whole]) & (0xff00 >> rest));
}

/* @b (@n bytes, big-endian) plus or minus one; false on wrapping. */
static bool step(uint8_t *b, size_t n, int dir)
{
	for (size_t i = n; i-- > 0;) {
		b[i] = (uint8_t)(b[i] + dir);
		if (b[i] != (dir > 0 ? 0 : 0xff))
			return true;
	}
	return false;
}

/* The first and last addresses of @e. */
static void bounds(const struct netclass *e, uint8_t *first, uint8_t *last)
{
	size_t n = width(e->family);

	memcpy(first, e->prefix, n);
	memcpy(last, e->prefix, n);
	for (size_t bit = e->len; bit < n * 8; bit++)
		last[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
}

Test(netclass, table_matches_its_text)
{
	unsigned int n;
	const struct netclass *t = netclass_table(&n);

	cr_assert_gt(n, 50);
	for (unsigned int i = 0; i < n; i++) {
		char text[64], *slash;
		uint8_t b[16], first[16], last[16];

		snprintf(text, sizeof(text), "%s", t[i].block);
		slash = strchr(text, '/');
		cr_assert(slash, "%s", t[i].block);
		*slash = '\0';
		cr_assert_eq(inet_pton(t[i].family, text, b), 1, "%s",
			     t[i].block);
		cr_assert_eq(strtoul(slash + 1, NULL, 10), t[i].len, "%s",
			     t[i].block);
		cr_assert_arr_eq(b, t[i].prefix, width(t[i].family), "%s",
				 t[i].block);
		bounds(&t[i], first, last);
		cr_assert_arr_eq(first, b, width(t[i].family),
				 "%s has bits past its length", t[i].block);
		cr_assert(!strncmp(t[i].rfc, "RFC ", 4), "%s", t[i].block);
		cr_assert(t[i].name[0], "%s", t[i].block);
	}
}

/* Every block: its first and last address are in it (or in a block
 * inside it), and the addresses either side are not. */
Test(netclass, every_entry_edges)
{
	unsigned int n;
	const struct netclass *t = netclass_table(&n);

	for (unsigned int i = 0; i < n; i++) {
		const struct netclass *e = &t[i], *r;
		size_t w = width(e->family);
		uint8_t first[16], last[16], out[16];

		bounds(e, first, last);
		for (int k = 0; k < 2; k++) {
			r = classify(e->family, k ? last : first);
			if (e->embed == NETCLASS_WHOLE)
				cr_assert(within(r, e), "%s: %s %s", e->block,
					  k ? "last" : "first",
					  r ? r->block : "global");
			else /* judged by the IPv4 address carried */
				cr_assert(r && r->family == AF_INET, "%s",
					  e->block);
		}
		memcpy(out, first, w);
		if (step(out, w, -1)) {
			r = classify(e->family, out);
			cr_assert(r != e && !within(r, e),
				  "%s: the address before it is %s", e->block,
				  r ? r->block : "global");
		}
		memcpy(out, last, w);
		if (step(out, w, 1)) {
			r = classify(e->family, out);
			cr_assert(r != e && !within(r, e),
				  "%s: the address after it is %s", e->block,
				  r ? r->block : "global");
		}
	}
}

Test(netclass, global_neighbours_are_not_special)
{
	static const char *const global[] = {
		"1.0.0.0",
		"8.8.8.8",
		"9.255.255.255",
		"11.0.0.0",
		"100.63.255.255",
		"100.128.0.0",
		"126.255.255.255",
		"128.0.0.0",
		"169.253.255.255",
		"169.255.0.0",
		"172.15.255.255",
		"172.32.0.0",
		"191.255.255.255",
		"192.0.1.0",
		"192.0.3.0",
		"192.31.195.255",
		"192.31.197.0",
		"192.52.192.255",
		"192.52.194.0",
		"192.88.98.255",
		"192.88.100.0",
		"192.167.255.255",
		"192.169.0.0",
		"192.175.47.255",
		"192.175.49.0",
		"198.17.255.255",
		"198.20.0.0",
		"198.51.99.255",
		"198.51.101.0",
		"203.0.112.255",
		"203.0.114.0",
		"223.255.255.255",
		"2000::",
		"2001:200::",
		"2001:db7:ffff:ffff:ffff:ffff:ffff:ffff",
		"2001:db9::",
		"2001:4860:4860::8888",
		"2003::",
		"2620:4f:7fff:ffff:ffff:ffff:ffff:ffff",
		"2620:4f:8001::",
		"3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		"3fff:1000::",
		"3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		"::ffff:8.8.8.8",
		"64:ff9b::8.8.8.8",
		"2002:808:808::1",
	};

	for (size_t i = 0; i < sizeof(global) / sizeof(global[0]); i++) {
		const struct netclass *r = of(global[i]);

		cr_assert_null(r, "%s is in %s", global[i], r ? r->block : "");
	}
}

Test(netclass, named_blocks)
{
	static const char *const cases[][2] = {
		{ "100.100.100.200", "100.64.0.0/10" },
		{ "::ffff:100.100.100.200", "100.64.0.0/10" },
		{ "64:ff9b::100.100.100.200", "100.64.0.0/10" },
		{ "2002:6464:64c8::1", "100.64.0.0/10" },
		{ "::ffff:127.0.0.1", "127.0.0.0/8" },
		{ "::ffff:169.254.169.254", "169.254.0.0/16" },
		{ "64:ff9b::10.0.0.1", "10.0.0.0/8" },
		{ "2002:c0a8:101::1", "192.168.0.0/16" },
		{ "64:ff9b:1::8.8.8.8", "64:ff9b:1::/48" },
		{ "::8.8.8.8", "::/96" },
		{ "::", "::/128" },
		{ "::1", "::1/128" },
		{ "0.0.0.0", "0.0.0.0/32" },
		{ "0.1.2.3", "0.0.0.0/8" },
		{ "127.0.0.1", "127.0.0.0/8" },
		{ "192.0.0.9", "192.0.0.9/32" },
		{ "192.0.0.7", "192.0.0.0/29" },
		{ "192.0.0.255", "192.0.0.0/24" },
		{ "192.88.99.2", "192.88.99.2/32" },
		{ "224.0.0.1", "224.0.0.0/4" },
		{ "240.0.0.1", "240.0.0.0/4" },
		{ "255.255.255.254", "240.0.0.0/4" },
		{ "255.255.255.255", "255.255.255.255/32" },
		{ "2001::1", "2001::/32" },
		{ "2001:1::1", "2001:1::1/128" },
		{ "2001:1::4", "2001::/23" },
		{ "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", "2001::/23" },
		{ "2001:db8::1", "2001:db8::/32" },
		{ "100::1", "100::/64" },
		{ "100:0:0:1::1", "::/3" },
		{ "4000::1", "4000::/2" },
		{ "5f00::1", "5f00::/16" },
		{ "3fff::1", "3fff::/20" },
		{ "fc00::1", "fc00::/7" },
		{ "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fc00::/7" },
		{ "fe80::1", "fe80::/10" },
		{ "fec0::1", "fec0::/10" },
		{ "ff02::1", "ff00::/8" },
		{ "fe00::1", "8000::/1" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct netclass *r = of(cases[i][0]);

		cr_assert(r, "%s is global", cases[i][0]);
		cr_assert_str_eq(r->block, cases[i][1], "%s", cases[i][0]);
	}
}

Test(netclass, other_families_are_special)
{
	struct sockaddr sa = { .sa_family = AF_UNIX };
	const struct netclass *r = netclass_special(&sa);

	cr_assert(r);
	cr_assert_eq(r->family, AF_UNSPEC);
}
