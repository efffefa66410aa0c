/*
 * test_dnsmsg.c - the resolver's queries read (enforce/proxy/dnsmsg.c):
 * queries made by glibc's res_mkquery() (A, AAAA, MX, SRV, PTR, with and
 * without an OPT added by hand) parsed; the malformed ones (truncated at
 * each byte, compression loops, a 300-byte name, a response) and the
 * refused ones (QDCOUNT 2, other opcodes, odd names, CHAOS, two OPTs,
 * EDNS version 1), each with its documented error; the reverse names.
 * The answers are test_dnsmsg_answer.c's.
 */
#include "tests/unit/dnsmsg_fixture.h"

Test(dnsmsg, parse_a)
{
	uint8_t buf[512];
	size_t n = mkquery("Example.COM", ns_t_a, buf, sizeof(buf));
	struct dns_query q;

	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	cr_assert_eq(q.id, get16(buf, 0));
	cr_assert_eq(q.qtype, ns_t_a);
	cr_assert_eq(q.qclass, ns_c_in);
	cr_assert(q.rd);
	cr_assert(!q.edns);
	cr_assert_eq(q.edns_size, 512);
	cr_assert_eq(q.opcode, ns_o_query);
	cr_assert_str_eq(q.name, "example.com");
	cr_assert_eq(q.qname_len, 13);
	cr_assert(memcmp(q.qname, "\7Example\3COM", 13) == 0);
	cr_assert_eq(dnsmsg_limit(&q, false), 512);
	cr_assert_eq(dnsmsg_limit(&q, true), 65535);
}

Test(dnsmsg, parse_aaaa_mx_underscore)
{
	uint8_t buf[512];
	size_t n = mkquery("host.example.", ns_t_aaaa, buf, sizeof(buf));
	struct dns_query q;

	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	cr_assert_eq(q.qtype, ns_t_aaaa);
	cr_assert_str_eq(q.name, "host.example");
	n = mkquery("mail.example", ns_t_mx, buf, sizeof(buf));
	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	cr_assert_eq(q.qtype, ns_t_mx);
	n = mkquery("_HTTP._tcp.a-b.example", ns_t_srv, buf, sizeof(buf));
	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	cr_assert_str_eq(q.name, "_http._tcp.a-b.example");
}

Test(dnsmsg, parse_root)
{
	uint8_t buf[512];
	size_t n = mkquery(".", ns_t_ns, buf, sizeof(buf));
	struct dns_query q;

	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	cr_assert_str_eq(q.name, "");
	cr_assert_eq(q.qname_len, 1);
}

Test(dnsmsg, parse_edns)
{
	uint8_t buf[512];
	size_t n = mkquery("example.com", ns_t_a, buf, sizeof(buf));
	struct dns_query q;

	n = add_opt(buf, n, 1232, NS_OPT_DNSSEC_OK);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	cr_assert(q.edns);
	cr_assert(q.edns_do);
	cr_assert_eq(q.edns_size, 1232);
	cr_assert_eq(dnsmsg_limit(&q, false), 1232);
	cr_assert_str_eq(q.name, "example.com");
}

Test(dnsmsg, edns_size_clamped)
{
	uint8_t buf[512];
	size_t n = mkquery("example.com", ns_t_a, buf, sizeof(buf)), m;
	struct dns_query q;

	m = add_opt(buf, n, 100, 0);
	cr_assert_eq(dnsmsg_parse(buf, m, &q), 0);
	cr_assert_eq(q.edns_size, 512);
	cr_assert(!q.edns_do);
	buf[11] = 0;
	m = add_opt(buf, n, 65000, 0);
	cr_assert_eq(dnsmsg_parse(buf, m, &q), 0);
	cr_assert_eq(q.edns_size, 4096);
}

Test(dnsmsg, edns_two_opts_formerr)
{
	uint8_t buf[512];
	size_t n = mkquery("example.com", ns_t_a, buf, sizeof(buf));
	struct dns_query q;
	uint8_t out[512];
	long w;

	n = add_opt(buf, n, 1232, 0);
	n = add_opt(buf, n, 1232, 0);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), -EOPNOTSUPP);
	cr_assert_eq(q.rcode, ns_r_formerr);
	cr_assert(!q.edns);
	w = dnsmsg_answer(&q, q.rcode, NULL, 0, 0, out, sizeof(out));
	cr_assert_eq(w, 12);
	cr_assert_eq(get16(out, 0), get16(buf, 0));
	cr_assert_eq(out[3] & 0xf, ns_r_formerr);
}

Test(dnsmsg, edns_opt_not_root_formerr)
{
	uint8_t buf[512];
	size_t n = mkquery("example.com", ns_t_a, buf, sizeof(buf));
	struct dns_query q;

	/* "\1a" then OPT: the owner is not the root */
	buf[n++] = 1;
	buf[n++] = 'a';
	n = add_opt(buf, n, 1232, 0);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), -EOPNOTSUPP);
	cr_assert_eq(q.rcode, ns_r_formerr);
}

Test(dnsmsg, additional_records_capped)
{
	uint8_t buf[512];
	size_t n = mkquery("example.com", ns_t_a, buf, sizeof(buf));
	struct dns_query q;

	/* records of the root, A, IN, TTL 0, no RDATA: four are read,
	 * a fifth is more than a query needs */
	for (unsigned int ar = 1; ar <= 5; ar++) {
		memcpy(buf + n, "\0\0\1\0\1\0\0\0\0\0\0", 11);
		n += 11;
		set16(buf, 10, ar);
		cr_assert_eq(dnsmsg_parse(buf, n, &q),
			     ar <= 4 ? 0 : -EOPNOTSUPP, "ARCOUNT %u", ar);
	}
	cr_assert_eq(q.rcode, ns_r_formerr);
	cr_assert_eq(q.id, get16(buf, 0));
}

Test(dnsmsg, edns_version_badvers)
{
	uint8_t buf[512], out[512];
	size_t n = mkquery("example.com", ns_t_a, buf, sizeof(buf));
	struct dns_query q;
	ns_msg h;
	ns_rr rr;
	long w;

	n = add_opt(buf, n, 1232, 1U << 16);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), -EOPNOTSUPP);
	cr_assert_eq(q.rcode, ns_r_badvers);
	cr_assert(q.edns);
	w = dnsmsg_answer(&q, q.rcode, NULL, 0, 0, out, sizeof(out));
	h = parse_back(out, w);
	cr_assert_eq(ns_msg_getflag(h, ns_f_rcode), 0);
	cr_assert_eq(ns_msg_count(h, ns_s_ar), 1);
	cr_assert_eq(ns_parserr(&h, ns_s_ar, 0, &rr), 0);
	cr_assert_eq(ns_rr_type(rr), ns_t_opt);
	cr_assert_eq(ns_rr_ttl(rr) >> 24, 1); /* 16 >> 4 */
	cr_assert_eq(ns_rr_ttl(rr) >> 16 & 0xff, 0);
}

Test(dnsmsg, longest_name)
{
	char name[300];
	uint8_t buf[512];
	struct dns_query q;
	size_t n;

	/* 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 */
	memset(name, 'a', sizeof(name));
	name[63] = name[127] = name[191] = '.';
	name[253] = '\0';
	n = mkquery(name, ns_t_a, buf, sizeof(buf));
	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	cr_assert_str_eq(q.name, name);
	cr_assert_eq(q.qname_len, 255);
}

Test(dnsmsg, name_of_300_bytes)
{
	uint8_t wire[400], buf[512];
	struct dns_query q;
	size_t at = 0, n;

	/* five labels of 59: 300 bytes, over the 255 a name may have */
	for (int i = 0; i < 5; i++) {
		wire[at++] = 59;
		memset(wire + at, 'x', 59);
		at += 59;
	}
	wire[at++] = 0;
	n = raw_query(wire, at, buf);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), -EINVAL);
	/* a label of 64 is no label (its type bits are 01) */
	wire[0] = 64;
	n = raw_query(wire, 66, buf);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), -EINVAL);
}

Test(dnsmsg, compression_loops)
{
	static const uint8_t self[] = { 0xc0, 12 };
	static const uint8_t two[] = { 1, 'a', 0xc0, 12 };
	static const uint8_t past_end[] = { 0xc0, 0xff };
	static const uint8_t into_header[] = { 0xc0, 2 };
	uint8_t buf[512];
	struct dns_query q;
	size_t n;

	n = raw_query(self, sizeof(self), buf);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), -EINVAL);
	n = raw_query(two, sizeof(two), buf);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), -EINVAL);
	n = raw_query(past_end, sizeof(past_end), buf);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), -EINVAL);
	/* into the header: bytes 2.. read as labels, no loop, but bytes
	 * no host name has */
	n = raw_query(into_header, sizeof(into_header), buf);
	cr_assert_lt(dnsmsg_parse(buf, n, &q), 0);
}

Test(dnsmsg, truncated_at_each_byte)
{
	uint8_t buf[512];
	size_t n = mkquery("www.example.com", ns_t_a, buf, sizeof(buf));
	struct dns_query q;

	n = add_opt(buf, n, 1232, 0);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(dnsmsg_parse(buf, i, &q), -EINVAL, "at %zu", i);
	/* and a byte over */
	buf[n] = 0;
	cr_assert_eq(dnsmsg_parse(buf, n + 1, &q), -EINVAL);
}

Test(dnsmsg, qdcount_two_and_zero)
{
	uint8_t buf[512], out[512];
	size_t n = mkquery("example.com", ns_t_a, buf, sizeof(buf));
	struct dns_query q;
	ns_msg h;
	long w;

	/* the same question twice */
	memcpy(buf + n, buf + 12, n - 12);
	set16(buf, 4, 2);
	cr_assert_eq(dnsmsg_parse(buf, 2 * n - 12, &q), -EOPNOTSUPP);
	cr_assert_eq(q.rcode, ns_r_formerr);
	cr_assert_eq(q.qname_len, 0);
	cr_assert_eq(q.id, get16(buf, 0));
	w = dnsmsg_answer(&q, q.rcode, NULL, 0, 0, out, sizeof(out));
	h = parse_back(out, w);
	cr_assert_eq(w, 12);
	cr_assert_eq(ns_msg_id(h), q.id);
	cr_assert_eq(ns_msg_count(h, ns_s_qd), 0);
	cr_assert_eq(ns_msg_getflag(h, ns_f_rcode), ns_r_formerr);
	cr_assert(ns_msg_getflag(h, ns_f_rd));
	set16(buf, 4, 0);
	cr_assert_eq(dnsmsg_parse(buf, 12, &q), -EOPNOTSUPP);
	cr_assert_eq(q.rcode, ns_r_formerr);
}

Test(dnsmsg, response_is_not_answered)
{
	uint8_t buf[512], out[512];
	size_t n = mkquery("example.com", ns_t_a, buf, sizeof(buf));
	struct dns_query q;

	buf[2] |= 0x80;
	cr_assert_eq(dnsmsg_parse(buf, n, &q), -EINVAL);
	cr_assert_eq(dnsmsg_error(buf, n, ns_r_formerr, out, sizeof(out)),
		     -EINVAL);
}

Test(dnsmsg, other_opcodes_notimp)
{
	uint8_t buf[512], out[512];
	size_t n = mkquery("example.com", ns_t_a, buf, sizeof(buf));
	struct dns_query q;
	int opcodes[] = { ns_o_iquery, ns_o_status, ns_o_notify, ns_o_update,
			  15 };
	ns_msg h;
	long w;

	for (size_t i = 0; i < sizeof(opcodes) / sizeof(opcodes[0]); i++) {
		buf[2] = (uint8_t)((buf[2] & 0x87) | opcodes[i] << 3);
		cr_assert_eq(dnsmsg_parse(buf, n, &q), -EOPNOTSUPP);
		cr_assert_eq(q.rcode, ns_r_notimpl);
		w = dnsmsg_answer(&q, q.rcode, NULL, 0, 0, out, sizeof(out));
		h = parse_back(out, w);
		cr_assert_eq(ns_msg_getflag(h, ns_f_opcode), opcodes[i]);
		cr_assert_eq(ns_msg_getflag(h, ns_f_rcode), ns_r_notimpl);
		cr_assert_eq(ns_msg_count(h, ns_s_qd), 0);
	}
}

Test(dnsmsg, odd_names_nxdomain)
{
	const char *names[] = { "a*b.example",		 "*.example",
				"a\\.b.example",	 "a\\032b",
				"caf\\195\\169.example", "a\\000b" };
	uint8_t buf[512], out[512];
	struct dns_query q;
	ns_msg h;
	ns_rr rr;
	long w;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = mkquery(names[i], ns_t_a, buf, sizeof(buf));

		cr_assert_eq(dnsmsg_parse(buf, n, &q), -EOPNOTSUPP, "%s",
			     names[i]);
		cr_assert_eq(q.rcode, ns_r_nxdomain);
		cr_assert_str_eq(q.name, "");
		cr_assert_eq(q.qname_len, n - 16);
		w = dnsmsg_answer(&q, q.rcode, NULL, 0, 0, out, sizeof(out));
		h = parse_back(out, w);
		cr_assert_eq(ns_msg_getflag(h, ns_f_rcode), ns_r_nxdomain);
		cr_assert_eq(ns_parserr(&h, ns_s_qd, 0, &rr), 0);
		cr_assert(memcmp(out + 12, buf + 12, n - 12) == 0);
	}
}

Test(dnsmsg, other_class_refused)
{
	uint8_t buf[512], out[512];
	size_t n = mkquery_class("version.bind", ns_c_chaos, ns_t_txt, buf,
				 sizeof(buf));
	struct dns_query q;
	ns_msg h;
	ns_rr rr;
	long w;

	cr_assert_eq(dnsmsg_parse(buf, n, &q), -EOPNOTSUPP);
	cr_assert_eq(q.rcode, ns_r_refused);
	cr_assert_eq(q.qclass, ns_c_chaos);
	w = dnsmsg_answer(&q, q.rcode, NULL, 0, 0, out, sizeof(out));
	h = parse_back(out, w);
	cr_assert_eq(ns_msg_getflag(h, ns_f_rcode), ns_r_refused);
	cr_assert_eq(ns_parserr(&h, ns_s_qd, 0, &rr), 0);
	cr_assert_str_eq(ns_rr_name(rr), "version.bind");
	cr_assert_eq(ns_rr_class(rr), ns_c_chaos);
}

static bool reverse(const char *name, struct sockaddr_storage *ss)
{
	uint8_t buf[512];
	size_t n = mkquery(name, ns_t_ptr, buf, sizeof(buf));
	struct dns_query q;

	if (dnsmsg_parse(buf, n, &q) != 0)
		return false;
	return dnsmsg_is_reverse(&q, ss);
}

Test(dnsmsg, reverse_v4)
{
	const char *bad[] = {
		"3.2.1.in-addr.arpa",	     "5.4.3.2.1.in-addr.arpa",
		"04.3.2.1.in-addr.arpa",     "256.3.2.1.in-addr.arpa",
		"a.3.2.1.in-addr.arpa",	     "in-addr.arpa",
		"4.3.2.1.in-addr.arpa.evil", "4.3.2.1.xin-addr.arpa",
		"1234.3.2.1.in-addr.arpa",   "4.3.2.1.in-addr",
	};
	struct sockaddr_storage ss;
	char text[INET_ADDRSTRLEN];

	cr_assert(reverse("1.0.0.127.in-addr.arpa", &ss));
	inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, text,
		  sizeof(text));
	cr_assert_str_eq(text, "127.0.0.1");
	cr_assert_eq(((struct sockaddr_in *)&ss)->sin_port, 0);
	cr_assert(reverse("255.0.0.0.in-addr.arpa.", &ss));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert(!reverse(bad[i], &ss), "%s", bad[i]);
		cr_assert_eq(ss.ss_family, AF_UNSPEC);
	}
}

/* @text's ip6.arpa name: its 32 nibbles, lowest first. */
static void v6_name(const char *text, char *name)
{
	uint8_t a[16];

	cr_assert_eq(inet_pton(AF_INET6, text, a), 1);
	for (int i = 0; i < 32; i++) {
		int b = a[15 - i / 2], nib = i % 2 ? b >> 4 : b & 0xf;

		name[2 * i] = "0123456789abcdef"[nib];
		name[2 * i + 1] = '.';
	}
	memcpy(name + 64, "ip6.arpa", sizeof("ip6.arpa"));
}

Test(dnsmsg, reverse_v6)
{
	char name[128], bad[160], text[INET6_ADDRSTRLEN];
	struct sockaddr_storage ss;

	v6_name("2001:db8::1:2345:6789:ab", name);
	name[0] = 'B'; /* lower-cased by the parse */
	cr_assert(reverse(name, &ss), "%s", name);
	cr_assert_eq(ss.ss_family, AF_INET6);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, text,
		  sizeof(text));
	cr_assert_str_eq(text, "2001:db8::1:2345:6789:ab");
	/* 31 nibbles */
	cr_assert(!reverse(name + 2, &ss));
	/* 33 */
	snprintf(bad, sizeof(bad), "0.%s", name);
	cr_assert(!reverse(bad, &ss));
	/* a label of two, then 31 */
	snprintf(bad, sizeof(bad), "0%s", name + 2);
	bad[1] = 'b';
	cr_assert(!reverse(bad, &ss), "%s", bad);
	/* not hexadecimal */
	snprintf(bad, sizeof(bad), "%s", name);
	bad[6] = 'g';
	cr_assert(!reverse(bad, &ss));
	snprintf(bad, sizeof(bad), "%.64sip6.arpa.x", name);
	cr_assert(!reverse(bad, &ss));
	cr_assert(!reverse("ip6.arpa", &ss));
	cr_assert(!reverse("1.ip6.arpa", &ss));
	cr_assert(!reverse("example.com", &ss));
}
