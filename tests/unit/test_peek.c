/*
 * Unit tests of what the transparent egress proxy reads from a captured
 * connection's first bytes (enforce/proxy/peek.c), TLS: the ClientHellos
 * of real clients (tests/unit/golden/peek/, read from the top of the
 * tree as `make unit` runs), every prefix of them, ClientHellos split
 * over records at every byte, a post-quantum-sized one, and the
 * malformed ones.  HTTP and the rest: test_peek_http.c.
 */
#include "peek_fixture.h"

#define GOLDEN_DIR  "tests/unit/golden/peek/"
#define REC_HDR_LEN 5

static size_t load(const char *file, uint8_t *buf, size_t cap)
{
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), GOLDEN_DIR "%s", file);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "no %s (run from the top of the tree)", path);
	n = fread(buf, 1, cap, f);
	fclose(f);
	cr_assert_gt(n, REC_HDR_LEN, "%s is too short", path);
	return n;
}

/* ---- building ClientHellos ---- */

static size_t put16(uint8_t *p, size_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return 2;
}

/* Records of type 22, version 0x0301, around the @n bytes at @hs, cut
 * before each of the @ncuts offsets at @cuts (ascending). */
static size_t frame(uint8_t *out, const uint8_t *hs, size_t n,
		    const size_t *cuts, size_t ncuts)
{
	size_t at = 0, from = 0;

	for (size_t i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : n;

		out[at++] = 22;
		out[at++] = 3;
		out[at++] = 1;
		at += put16(out + at, to - from);
		memcpy(out + at, hs + from, to - from);
		at += to - from;
		from = to;
	}
	return at;
}

/* Records of @chunk payload bytes each (the last shorter). */
static size_t frame_by(uint8_t *out, const uint8_t *hs, size_t n, size_t chunk)
{
	static size_t cuts[BIG];
	size_t ncuts = 0;

	for (size_t c = chunk; c < n; c += chunk)
		cuts[ncuts++] = c;
	return frame(out, hs, n, cuts, ncuts);
}

/* A ClientHello's handshake message: a TLS 1.3-like start, then the
 * @n bytes of extensions at @ext in their block (none: no block). */
static size_t hello_hs(uint8_t *out, const uint8_t *ext, size_t n)
{
	static const uint8_t suites[] = { 0, 4, 0x13, 0x01, 0x13, 0x02 };
	size_t at = 4;

	out[at++] = 3;
	out[at++] = 3;
	memset(out + at, 0xaa, 32);
	at += 32;
	out[at++] = 32;
	memset(out + at, 0xbb, 32);
	at += 32;
	memcpy(out + at, suites, sizeof(suites));
	at += sizeof(suites);
	out[at++] = 1;
	out[at++] = 0;
	if (ext) {
		at += put16(out + at, n);
		memcpy(out + at, ext, n);
		at += n;
	}
	out[0] = 1;
	out[1] = (uint8_t)((at - 4) >> 16);
	put16(out + 2, at - 4);
	return at;
}

/* One extension of @type around @n bytes at @data, at @out. */
static size_t ext(uint8_t *out, uint16_t type, const void *data, size_t n)
{
	put16(out, type);
	put16(out + 2, n);
	memcpy(out + 4, data, n);
	return 4 + n;
}

/* server_name with one host_name @name. */
static size_t ext_sni(uint8_t *out, const char *name)
{
	uint8_t data[512];
	size_t n = strlen(name);

	put16(data, n + 3);
	data[2] = 0;
	put16(data + 3, n);
	memcpy(data + 5, name, n);
	return ext(out, 0, data, n + 5);
}

/* A ClientHello in one record with the @n bytes of extensions at @e. */
static struct peek_result hello(const uint8_t *e, size_t n)
{
	static uint8_t hs[BIG], rec[BIG];
	size_t len = hello_hs(hs, e, n);

	return classify(rec, frame(rec, hs, len, NULL, 0));
}

/* ---- real ClientHellos ---- */

static const struct {
	const char *file, *name; /* NULL: no server_name */
} captures[] = {
	{ "curl-7.88.1.bin", "example.org" },
	{ "openssl-3.0-s_client.bin", "www.example.com" },
	{ "openssl-3.0-noservername.bin", NULL },
	{ "openssl-3.0-ffdhe8192.bin", "big.example.net" },
	{ "openssl-3.0-tls1_2.bin", "tls12.example.com" },
	{ "python-3.11-ssl.bin", "python.example.org" },
	{ "java-25.bin", "java.example.com" },
	{ "node-20.bin", "node.example.io" },
};

#define NCAPTURES (sizeof(captures) / sizeof(captures[0]))

Test(peek_tls, real_clients)
{
	static uint8_t buf[BIG];

	for (size_t i = 0; i < NCAPTURES; i++) {
		size_t n = load(captures[i].file, buf, sizeof(buf));
		struct peek_result r = classify(buf, n);

		if (captures[i].name)
			assert_name(r, PEEK_TLS, captures[i].name, 0);
		else
			assert_no_name(r, PEEK_TLS);
		cr_assert(!r.target.is_ip);
	}
}

Test(peek_tls, every_prefix_is_more)
{
	static uint8_t buf[BIG];

	for (size_t i = 0; i < NCAPTURES; i++) {
		size_t n = load(captures[i].file, buf, sizeof(buf));

		for (size_t k = 0; k < n; k++)
			cr_assert_eq(kind_of(buf, k), PEEK_MORE, "%s at %zu",
				     captures[i].file, k);
	}
}

Test(peek_tls, bytes_after_it_and_past_peek_max)
{
	static uint8_t buf[BIG];
	size_t n = load("curl-7.88.1.bin", buf, sizeof(buf));

	memset(buf + n, 0x17, sizeof(buf) - n); /* early data, say */
	assert_name(classify(buf, n + 100), PEEK_TLS, "example.org", 0);
	assert_name(classify(buf, sizeof(buf)), PEEK_TLS, "example.org", 0);
}

Test(peek_tls, split_in_two_at_every_byte)
{
	static uint8_t buf[BIG], rec[BIG];
	size_t n = load("curl-7.88.1.bin", buf, sizeof(buf));
	const uint8_t *hs = buf + REC_HDR_LEN;
	size_t hslen = n - REC_HDR_LEN;

	for (size_t cut = 1; cut < hslen; cut++) {
		size_t len = frame(rec, hs, hslen, &cut, 1);

		assert_name(classify(rec, len), PEEK_TLS, "example.org", 0);
		for (size_t k = 0; k < len; k++)
			cr_assert_eq(kind_of(rec, k), PEEK_MORE,
				     "cut at %zu, %zu bytes", cut, k);
	}
}

Test(peek_tls, split_in_many)
{
	static uint8_t buf[BIG], rec[BIG];
	size_t n = load("openssl-3.0-ffdhe8192.bin", buf, sizeof(buf));
	const uint8_t *hs = buf + REC_HDR_LEN;
	size_t hslen = n - REC_HDR_LEN;
	static const size_t chunks[] = { 1, 2, 3, 4, 5, 7, 100, 512, 1291 };

	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		size_t len = frame_by(rec, hs, hslen, chunks[i]);

		assert_name(classify(rec, len), PEEK_TLS, "big.example.net", 0);
		cr_assert_eq(kind_of(rec, len - 1), PEEK_MORE);
	}
}

/* The size of a ClientHello with an X25519MLKEM768 key share (1216
 * bytes), as some clients send it: split over records. */
Test(peek_tls, post_quantum_size)
{
	static uint8_t e[4096], share[1300], hs[BIG], rec[BIG];
	size_t n = 0, at = 0, hslen, len;

	n += ext_sni(e + n, "pq.example.com");
	put16(share, 2 + 2 + 1216 + 2 + 2 + 32); /* client_shares */
	at = 2;
	at += put16(share + at, 0x11ec);
	at += put16(share + at, 1216);
	memset(share + at, 0x5a, 1216);
	at += 1216;
	at += put16(share + at, 0x001d);
	at += put16(share + at, 32);
	memset(share + at, 0x6b, 32);
	at += 32;
	n += ext(e + n, 51, share, at);
	n += ext(e + n, 21, e + 2000, 400); /* padding */
	hslen = hello_hs(hs, e, n);
	cr_assert_gt(hslen, 1700);
	for (size_t chunk = 256; chunk <= 2048; chunk *= 2) {
		len = frame_by(rec, hs, hslen, chunk);
		assert_name(classify(rec, len), PEEK_TLS, "pq.example.com", 0);
		cr_assert_eq(kind_of(rec, len - 1), PEEK_MORE);
	}
}

/* ---- ClientHellos built to be wrong ---- */

Test(peek_tls, record_header)
{
	static const uint8_t v0300[] = { 22, 3, 0, 0, 1 };
	static const uint8_t v0305[] = { 22, 3, 5 };
	static const uint8_t v0203[] = { 22, 2 };
	static const uint8_t empty[] = { 22, 3, 1, 0, 0 };
	static const uint8_t over[] = { 22, 3, 1, 0x40, 0x01 };
	static const uint8_t huge[] = { 22, 3, 1, 0x41 };
	static const uint8_t alert[] = { 21, 3, 1, 0, 2, 2, 40 };
	static const uint8_t server_hello[] = { 22, 3, 3, 0, 4, 2, 0, 0, 0 };

	cr_assert_eq(kind_of(v0300, sizeof(v0300)), PEEK_MORE);
	cr_assert_eq(kind_of(v0305, sizeof(v0305)), PEEK_OTHER);
	cr_assert_eq(kind_of(v0203, sizeof(v0203)), PEEK_OTHER);
	cr_assert_eq(kind_of(empty, sizeof(empty)), PEEK_OTHER);
	cr_assert_eq(kind_of(over, sizeof(over)), PEEK_OTHER);
	cr_assert_eq(kind_of(huge, sizeof(huge)), PEEK_OTHER);
	cr_assert_eq(kind_of(alert, 1), PEEK_OTHER);
	cr_assert_eq(kind_of(server_hello, sizeof(server_hello)), PEEK_OTHER);
}

Test(peek_tls, handshake_too_long_for_peek_max)
{
	/* 16376 + 4 + 5 > PEEK_MAX: told at its ninth byte */
	static const uint8_t h[] = { 22, 3, 1, 0x40, 0, 1, 0, 0x3f, 0xf8 };
	static const uint8_t fits[] = { 22, 3, 1, 0x40, 0, 1, 0, 0x3f, 0xf7 };

	cr_assert_eq(kind_of(h, sizeof(h)), PEEK_OTHER);
	cr_assert_eq(kind_of(fits, sizeof(fits)), PEEK_MORE);
}

Test(peek_tls, not_whole_within_peek_max)
{
	static uint8_t e[PEEK_MAX], hs[BIG], rec[BIG];
	size_t n = ext(e, 21, e + 8000, 4000), hslen, len;

	hslen = hello_hs(hs, e, n);
	len = frame_by(rec, hs, hslen, 1); /* 6 bytes a byte */
	cr_assert_gt(len, PEEK_MAX);
	cr_assert_eq(kind_of(rec, PEEK_MAX - 1), PEEK_MORE);
	cr_assert_eq(kind_of(rec, PEEK_MAX), PEEK_OTHER);
	cr_assert_eq(kind_of(rec, len), PEEK_OTHER);
}

Test(peek_tls, another_record_in_the_middle)
{
	static uint8_t buf[BIG], rec[BIG];
	size_t n = load("curl-7.88.1.bin", buf, sizeof(buf)), len;
	size_t cut = 100;

	len = frame(rec, buf + REC_HDR_LEN, n - REC_HDR_LEN, &cut, 1);
	rec[REC_HDR_LEN + cut] = 20; /* change_cipher_spec */
	cr_assert_eq(kind_of(rec, REC_HDR_LEN + cut + 1), PEEK_OTHER);
	cr_assert_eq(kind_of(rec, len), PEEK_OTHER);
}

Test(peek_tls, no_server_name)
{
	uint8_t e[64];
	size_t n = ext(e, 43, "\x02\x03\x04", 3);

	assert_no_name(hello(e, n), PEEK_TLS);
	assert_no_name(hello(NULL, 0), PEEK_TLS); /* no extensions block */
	assert_no_name(hello(e, 0), PEEK_TLS);	  /* an empty one */
}

Test(peek_tls, names)
{
	uint8_t e[600];

	assert_name(hello(e, ext_sni(e, "Mixed.Case.Example")), PEEK_TLS,
		    "mixed.case.example", 0);
	assert_name(hello(e, ext_sni(e, "dot.example.")), PEEK_TLS,
		    "dot.example", 0);
	assert_name(hello(e, ext_sni(e, "under_score.example")), PEEK_TLS,
		    "under_score.example", 0);
	/* an IP literal is no name (RFC 6066): TLS all the same */
	assert_no_name(hello(e, ext_sni(e, "192.0.2.1")), PEEK_TLS);
	assert_no_name(hello(e, ext_sni(e, "127.1")), PEEK_TLS);
	/* a name that is none */
	cr_assert_eq(hello(e, ext_sni(e, "exa mple.com")).kind, PEEK_OTHER);
	cr_assert_eq(hello(e, ext_sni(e, "a..b")).kind, PEEK_OTHER);
	cr_assert_eq(hello(e, ext_sni(e, "[::1]")).kind, PEEK_OTHER);
	cr_assert_eq(hello(e, ext_sni(e, "a:443")).kind, PEEK_OTHER);
	cr_assert_eq(hello(e, ext_sni(e, "")).kind, PEEK_OTHER);
	cr_assert_eq(hello(e, ext_sni(e, "nul\x01.example")).kind, PEEK_OTHER);
}

Test(peek_tls, long_names)
{
	char name[300];
	uint8_t e[600];

	memset(name, 'a', 63);
	name[63] = '\0';
	assert_name(hello(e, ext_sni(e, name)), PEEK_TLS, name, 0);
	memset(name, 'a', 64);
	name[64] = '\0';
	cr_assert_eq(hello(e, ext_sni(e, name)).kind, PEEK_OTHER);
	for (size_t i = 0; i < 254; i++)
		name[i] = i % 2 ? '.' : 'b';
	name[253] = '\0'; /* 253 bytes: the most */
	cr_assert_eq(hello(e, ext_sni(e, name)).kind, PEEK_TLS);
	name[253] = 'c';
	name[254] = '\0';
	cr_assert_eq(hello(e, ext_sni(e, name)).kind, PEEK_OTHER);
}

Test(peek_tls, ech_outer_name)
{
	uint8_t e[600], ech[200];
	size_t n = 0;

	memset(ech, 0x42, sizeof(ech));
	ech[0] = 0;			/* outer */
	n += ext(e + n, 0x0a0a, "", 0); /* GREASE */
	n += ext_sni(e + n, "public.example.net");
	n += ext(e + n, 0xfe0d, ech, sizeof(ech));
	assert_name(hello(e, n), PEEK_TLS, "public.example.net", 0);
}

Test(peek_tls, other_name_types)
{
	static const uint8_t only_other[] = { 0, 0, 0, 6, 0, 4, 1, 0, 1, 'x' };
	static const uint8_t then_host[] = {
		0, 0, 0, 10, 0, 8, 1, 0, 1, 'x', 0, 0, 1, 'h',
	};
	static const uint8_t two_hosts[] = {
		0, 0, 0, 10, 0, 8, 0, 0, 1, 'a', 0, 0, 1, 'b',
	};

	assert_no_name(hello(only_other, sizeof(only_other)), PEEK_TLS);
	assert_name(hello(then_host, sizeof(then_host)), PEEK_TLS, "h", 0);
	cr_assert_eq(hello(two_hosts, sizeof(two_hosts)).kind, PEEK_OTHER);
}

Test(peek_tls, server_name_lengths)
{
	/* list 9 in an extension of 7; name 9 in a list of 4; list 4 in an
	 * extension of 7 (underfilled); an empty list; an empty extension */
	static const uint8_t list_over[] = {
		0, 0, 0, 7, 0, 9, 0, 0, 4, 'a', 'b'
	};
	static const uint8_t name_over[] = {
		0, 0, 0, 7, 0, 4, 0, 0, 9, 'a', 'b'
	};
	static const uint8_t list_under[] = { 0, 0, 0, 7,   0,	4,
					      0, 0, 1, 'a', 'b' };
	static const uint8_t list_empty[] = { 0, 0, 0, 2, 0, 0 };
	static const uint8_t ext_empty[] = { 0, 0, 0, 0 };
	static const uint8_t list_short[] = { 0, 0, 0, 1, 0 };
	uint8_t e[600];
	size_t n = ext_sni(e, "a.example");

	cr_assert_eq(hello(list_over, sizeof(list_over)).kind, PEEK_OTHER);
	cr_assert_eq(hello(name_over, sizeof(name_over)).kind, PEEK_OTHER);
	cr_assert_eq(hello(list_under, sizeof(list_under)).kind, PEEK_OTHER);
	cr_assert_eq(hello(list_empty, sizeof(list_empty)).kind, PEEK_OTHER);
	cr_assert_eq(hello(ext_empty, sizeof(ext_empty)).kind, PEEK_OTHER);
	cr_assert_eq(hello(list_short, sizeof(list_short)).kind, PEEK_OTHER);
	/* two server_name extensions, even the same */
	memcpy(e + n, e, n);
	cr_assert_eq(hello(e, 2 * n).kind, PEEK_OTHER);
}

Test(peek_tls, extension_lengths)
{
	uint8_t e[600];
	size_t n = ext_sni(e, "a.example");

	cr_assert_eq(hello(e, n).kind, PEEK_TLS);
	e[n] = 0x33; /* a trailing byte: no whole extension */
	assert_no_name(hello(e, n + 1), PEEK_OTHER); /* the name read, gone */
	e[3]++; /* server_name overruns the block */
	cr_assert_eq(hello(e, n).kind, PEEK_OTHER);
}

Test(peek_tls, bytes_after_the_extensions)
{
	static uint8_t hs[BIG], rec[BIG];
	uint8_t e[600];
	size_t n = hello_hs(hs, e, ext_sni(e, "a.example"));

	hs[n++] = 0;
	put16(hs + 2, n - 4);
	cr_assert_eq(kind_of(rec, frame(rec, hs, n, NULL, 0)), PEEK_OTHER);
}

/* Patch the byte at @off of the curl ClientHello to @v. */
static enum peek_kind curl_with(size_t off, uint8_t v, size_t *len)
{
	static uint8_t buf[BIG];
	size_t n = load("curl-7.88.1.bin", buf, sizeof(buf));

	buf[off] = v;
	*len = n;
	return kind_of(buf, n);
}

Test(peek_tls, hello_body_lengths)
{
	/* record 5, handshake 4, version 2, random 32: session_id at 43 */
	size_t n;

	cr_assert_eq(curl_with(5, 2, &n), PEEK_OTHER);	   /* type */
	cr_assert_eq(curl_with(9, 2, &n), PEEK_OTHER);	   /* version 2.3 */
	cr_assert_eq(curl_with(10, 5, &n), PEEK_OTHER);	   /* 3.5 */
	cr_assert_eq(curl_with(43, 33, &n), PEEK_OTHER);   /* session_id */
	cr_assert_eq(curl_with(43, 0xff, &n), PEEK_OTHER); /* session_id */
	cr_assert_eq(curl_with(43 + 1 + 32 + 1, 0x3f, &n), /* odd suites */
		     PEEK_OTHER);
	cr_assert_eq(curl_with(43 + 1 + 32, 0xff, &n), /* suites overrun */
		     PEEK_OTHER);
	cr_assert_eq(curl_with(140, 0, &n), PEEK_OTHER);  /* no compression */
	cr_assert_eq(curl_with(8, 0xfb, &n), PEEK_OTHER); /* hello underrun */
}

Test(peek_tls, malformed_start_told_before_the_end)
{
	static uint8_t buf[BIG];
	size_t n = load("curl-7.88.1.bin", buf, sizeof(buf));

	buf[43] = 200; /* a session_id longer than 32: OTHER at once */
	cr_assert_eq(kind_of(buf, 44), PEEK_OTHER);
	cr_assert_eq(kind_of(buf, n), PEEK_OTHER);
}

Test(peek_tls, truncated_hello_in_whole_records)
{
	static uint8_t buf[BIG];
	size_t n = load("curl-7.88.1.bin", buf, sizeof(buf));

	/* the record ends before the ClientHello: the next is no record */
	put16(buf + 3, n - REC_HDR_LEN - 10);
	memset(buf + n - 10, 'A', 10);
	cr_assert_eq(kind_of(buf, n), PEEK_OTHER);
}
