/*
 * test_dnsmsg_answer.c - the resolver's answers (enforce/proxy/dnsmsg.c),
 * each parsed back with ns_initparse()/ns_parserr() and every field
 * checked: header, counts, the question as sent, owners through
 * ns_name_uncompress(), addresses, TTL, TC when 40 AAAA go to a 512-byte
 * client, the OPT; NODATA and the errors; PTR; the header-only error.
 */
#include "tests/unit/dnsmsg_fixture.h"

Test(dnsmsg_answer, answer_a)
{
	uint8_t buf[512], out[512];
	size_t n = mkquery("Example.COM", ns_t_a, buf, sizeof(buf));
	struct sockaddr_storage addrs[] = {
		addr_of("192.0.2.1"),
		addr_of("2001:db8::1"),
		addr_of("198.51.100.7"),
	};
	struct dns_query q;
	char text[INET6_ADDRSTRLEN];
	ns_msg h;
	ns_rr rr;
	long w;

	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	w = dnsmsg_answer(&q, ns_r_noerror, addrs, 3, 300, out, sizeof(out));
	cr_assert_eq(w, (long)(n + 2 * (2 + 10 + 4)));
	h = parse_back(out, w);
	cr_assert_eq(ns_msg_id(h), q.id);
	cr_assert(ns_msg_getflag(h, ns_f_rd));
	cr_assert_eq(ns_msg_getflag(h, ns_f_tc), 0);
	cr_assert_eq(ns_msg_getflag(h, ns_f_opcode), ns_o_query);
	cr_assert_eq(ns_msg_getflag(h, ns_f_rcode), ns_r_noerror);
	check_question(&h, "Example.COM", ns_t_a);
	cr_assert_eq(ns_msg_count(h, ns_s_an), 2);
	cr_assert_eq(ns_msg_count(h, ns_s_ns), 0);
	cr_assert_eq(ns_msg_count(h, ns_s_ar), 0);
	rr = check_rr(&h, out, w, 0, "Example.COM", ns_t_a, 300);
	cr_assert_eq(ns_rr_rdlen(rr), 4);
	inet_ntop(AF_INET, ns_rr_rdata(rr), text, sizeof(text));
	cr_assert_str_eq(text, "192.0.2.1");
	rr = check_rr(&h, out, w, 1, "Example.COM", ns_t_a, 300);
	inet_ntop(AF_INET, ns_rr_rdata(rr), text, sizeof(text));
	cr_assert_str_eq(text, "198.51.100.7");
	/* the question as sent, byte for byte but the header */
	cr_assert(memcmp(out + 12, buf + 12, n - 12) == 0);
}

Test(dnsmsg_answer, answer_aaaa_with_edns)
{
	uint8_t buf[512], out[512];
	size_t n = mkquery("v6.example", ns_t_aaaa, buf, sizeof(buf));
	struct sockaddr_storage addrs[] = {
		addr_of("192.0.2.1"),
		addr_of("2001:db8::1"),
	};
	struct dns_query q;
	char text[INET6_ADDRSTRLEN];
	ns_msg h;
	ns_rr rr;
	long w;

	n = add_opt(buf, n, 4096, NS_OPT_DNSSEC_OK);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	w = dnsmsg_answer(&q, ns_r_noerror, addrs, 2, 60, out, sizeof(out));
	h = parse_back(out, w);
	check_question(&h, "v6.example", ns_t_aaaa);
	cr_assert_eq(ns_msg_count(h, ns_s_an), 1);
	rr = check_rr(&h, out, w, 0, "v6.example", ns_t_aaaa, 60);
	cr_assert_eq(ns_rr_rdlen(rr), 16);
	inet_ntop(AF_INET6, ns_rr_rdata(rr), text, sizeof(text));
	cr_assert_str_eq(text, "2001:db8::1");
	cr_assert_eq(ns_msg_count(h, ns_s_ar), 1);
	cr_assert_eq(ns_parserr(&h, ns_s_ar, 0, &rr), 0);
	cr_assert_eq(ns_rr_type(rr), ns_t_opt);
	cr_assert_str_eq(rr.name, "");
	cr_assert_eq(ns_rr_class(rr), DNSMSG_EDNS_SIZE);
	cr_assert_eq(ns_rr_ttl(rr), NS_OPT_DNSSEC_OK);
	cr_assert_eq(ns_rr_rdlen(rr), 0);
}

static void forty(struct sockaddr_storage *addrs)
{
	char text[64];

	for (int i = 0; i < 40; i++) {
		snprintf(text, sizeof(text), "2001:db8::%x", i + 1);
		addrs[i] = addr_of(text);
	}
}

Test(dnsmsg_answer, truncated_at_512)
{
	uint8_t buf[512], out[4096];
	size_t n = mkquery("many.example", ns_t_aaaa, buf, sizeof(buf));
	struct sockaddr_storage addrs[40];
	struct dns_query q;
	size_t fit = (512 - n) / (2 + 10 + 16);
	ns_msg h;
	ns_rr rr;
	long w;

	forty(addrs);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	w = dnsmsg_answer(&q, ns_r_noerror, addrs, 40, 30, out,
			  dnsmsg_limit(&q, false));
	cr_assert_leq(w, 512);
	h = parse_back(out, w);
	cr_assert(ns_msg_getflag(h, ns_f_tc));
	cr_assert_eq(ns_msg_count(h, ns_s_an), fit);
	cr_assert_eq(w, (long)(n + fit * 28));
	for (size_t i = 0; i < fit; i++) {
		rr = check_rr(&h, out, w, (int)i, "many.example", ns_t_aaaa,
			      30);
		cr_assert(memcmp(ns_rr_rdata(rr),
				 &((struct sockaddr_in6 *)&addrs[i])->sin6_addr,
				 16) == 0);
	}
	/* over TCP, all of them */
	w = dnsmsg_answer(&q, ns_r_noerror, addrs, 40, 30, out, sizeof(out));
	h = parse_back(out, w);
	cr_assert_eq(ns_msg_getflag(h, ns_f_tc), 0);
	cr_assert_eq(ns_msg_count(h, ns_s_an), 40);
}

Test(dnsmsg_answer, truncated_keeps_the_opt)
{
	uint8_t buf[512], out[4096];
	size_t n = mkquery("many.example", ns_t_aaaa, buf, sizeof(buf));
	struct sockaddr_storage addrs[40];
	struct dns_query q;
	ns_msg h;
	ns_rr rr;
	long w;

	forty(addrs);
	n = add_opt(buf, n, 600, 0);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	w = dnsmsg_answer(&q, ns_r_noerror, addrs, 40, 30, out,
			  dnsmsg_limit(&q, false));
	cr_assert_leq(w, 600);
	h = parse_back(out, w);
	cr_assert(ns_msg_getflag(h, ns_f_tc));
	cr_assert_eq(ns_msg_count(h, ns_s_an), (600 - n) / 28);
	cr_assert_eq(ns_msg_count(h, ns_s_ar), 1);
	cr_assert_eq(ns_parserr(&h, ns_s_ar, 0, &rr), 0);
	cr_assert_eq(ns_rr_type(rr), ns_t_opt);
	/* a client of 4096 bytes gets them all */
	buf[11] = 0;
	n = add_opt(buf, n - 11, 4096, 0);
	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	w = dnsmsg_answer(&q, ns_r_noerror, addrs, 40, 30, out,
			  dnsmsg_limit(&q, false));
	h = parse_back(out, w);
	cr_assert_eq(ns_msg_getflag(h, ns_f_tc), 0);
	cr_assert_eq(ns_msg_count(h, ns_s_an), 40);
}

Test(dnsmsg_answer, nodata_nxdomain_servfail)
{
	uint8_t buf[512], out[512];
	size_t n = mkquery("v4only.example", ns_t_aaaa, buf, sizeof(buf));
	struct sockaddr_storage addrs[] = { addr_of("192.0.2.1") };
	int rcodes[] = { ns_r_nxdomain, ns_r_servfail, ns_r_refused,
			 ns_r_notimpl };
	struct dns_query q;
	ns_msg h;
	long w;

	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	w = dnsmsg_answer(&q, ns_r_noerror, addrs, 1, 30, out, sizeof(out));
	h = parse_back(out, w);
	cr_assert_eq(ns_msg_getflag(h, ns_f_rcode), ns_r_noerror);
	cr_assert_eq(ns_msg_count(h, ns_s_an), 0);
	check_question(&h, "v4only.example", ns_t_aaaa);
	for (size_t i = 0; i < sizeof(rcodes) / sizeof(rcodes[0]); i++) {
		/* addresses given with an error are not put */
		w = dnsmsg_answer(&q, rcodes[i], addrs, 1, 30, out,
				  sizeof(out));
		h = parse_back(out, w);
		cr_assert_eq(ns_msg_getflag(h, ns_f_rcode), rcodes[i]);
		cr_assert_eq(ns_msg_count(h, ns_s_an), 0);
		check_question(&h, "v4only.example", ns_t_aaaa);
	}
	/* MX: nothing put either way */
	n = mkquery("mail.example", ns_t_mx, buf, sizeof(buf));
	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	w = dnsmsg_answer(&q, ns_r_noerror, addrs, 1, 30, out, sizeof(out));
	h = parse_back(out, w);
	cr_assert_eq(ns_msg_count(h, ns_s_an), 0);
	check_question(&h, "mail.example", ns_t_mx);
}

Test(dnsmsg_answer, answer_room_and_rcodes)
{
	uint8_t buf[512], out[512];
	size_t n = mkquery("example.com", ns_t_a, buf, sizeof(buf));
	struct sockaddr_storage addrs[] = { addr_of("192.0.2.1") };
	struct dns_query q;
	ns_msg h;
	long w;

	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	cr_assert_eq(dnsmsg_answer(&q, 0, addrs, 1, 1, out, 0), -ENOSPC);
	cr_assert_eq(dnsmsg_answer(&q, 0, addrs, 1, 1, out, n - 1), -ENOSPC);
	w = dnsmsg_answer(&q, 0, addrs, 1, 1, out, n);
	cr_assert_eq(w, (long)n);
	h = parse_back(out, w);
	cr_assert(ns_msg_getflag(h, ns_f_tc));
	cr_assert_eq(ns_msg_count(h, ns_s_an), 0);
	w = dnsmsg_answer(&q, 0, addrs, 1, 1, out, n + 16);
	h = parse_back(out, w);
	cr_assert_eq(ns_msg_getflag(h, ns_f_tc), 0);
	cr_assert_eq(ns_msg_count(h, ns_s_an), 1);
	/* no OPT to carry an extended RCODE */
	cr_assert_eq(dnsmsg_answer(&q, 16, NULL, 0, 0, out, 512), -EINVAL);
	cr_assert_eq(dnsmsg_answer(&q, -1, NULL, 0, 0, out, 512), -EINVAL);
	cr_assert_eq(dnsmsg_answer(&q, 4096, NULL, 0, 0, out, 512), -EINVAL);
	/* a TTL with the top bit set is sent as 2^31 - 1 */
	w = dnsmsg_answer(&q, 0, addrs, 1, 0xffffffffU, out, sizeof(out));
	h = parse_back(out, w);
	check_rr(&h, out, w, 0, "example.com", ns_t_a, 0x7fffffffU);
}

Test(dnsmsg_answer, case_kept_in_the_answer)
{
	uint8_t buf[512], out[512];
	size_t n = mkquery("eXaMpLe.CoM", ns_t_a, buf, sizeof(buf));
	struct sockaddr_storage addrs[] = { addr_of("192.0.2.1") };
	struct dns_query q;
	ns_msg h;
	long w;

	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	cr_assert_str_eq(q.name, "example.com");
	w = dnsmsg_answer(&q, 0, addrs, 1, 5, out, sizeof(out));
	h = parse_back(out, w);
	check_question(&h, "eXaMpLe.CoM", ns_t_a);
	check_rr(&h, out, w, 0, "eXaMpLe.CoM", ns_t_a, 5);
}

Test(dnsmsg_answer, question_with_a_pointer)
{
	/* "\3foo" then a pointer to "\3bar\0", the owner of a record in
	 * the additional section: legal, and the answer's question must
	 * not carry the pointer into its own bytes */
	static const char msg[] =
		"\022\064\001\000\000\001\000\000\000\000\000\001" /* AR 1 */
		"\003foo\300\026\000\001\000\001" /* the pointer: to 22 */
		"\003bar\000\000\001\000\001\000\000\000\000\000\004\001\002"
		"\003\004";
	uint8_t out[512];
	struct sockaddr_storage addrs[] = { addr_of("192.0.2.1") };
	struct dns_query q;
	ns_msg h;
	long w;

	cr_assert_eq(dnsmsg_parse((const uint8_t *)msg, sizeof(msg) - 1, &q),
		     0);
	cr_assert_str_eq(q.name, "foo.bar");
	cr_assert_eq(q.qname_len, 9);
	w = dnsmsg_answer(&q, 0, addrs, 1, 5, out, sizeof(out));
	h = parse_back(out, w);
	cr_assert_eq(ns_msg_id(h), 0x1234);
	check_question(&h, "foo.bar", ns_t_a);
	check_rr(&h, out, w, 0, "foo.bar", ns_t_a, 5);
	cr_assert_eq(w, 12 + 9 + 4 + 16);
}

Test(dnsmsg_answer, error_header_only)
{
	uint8_t buf[512], out[512];
	size_t n = mkquery("example.com", ns_t_a, buf, sizeof(buf));
	ns_msg h;
	long w;

	/* a question that does not parse: only the header is used */
	buf[12] = 0xc0;
	buf[13] = 12;
	buf[2] = (uint8_t)((buf[2] & 0x87) | ns_o_notify << 3);
	w = dnsmsg_error(buf, n, ns_r_formerr, out, sizeof(out));
	cr_assert_eq(w, 12);
	h = parse_back(out, w);
	cr_assert_eq(ns_msg_id(h), get16(buf, 0));
	cr_assert_eq(ns_msg_getflag(h, ns_f_opcode), ns_o_notify);
	cr_assert_eq(ns_msg_getflag(h, ns_f_rcode), ns_r_formerr);
	cr_assert(ns_msg_getflag(h, ns_f_rd));
	for (int s = ns_s_qd; s < ns_s_max; s++)
		cr_assert_eq(ns_msg_count(h, s), 0);
	cr_assert_eq(dnsmsg_error(buf, 11, ns_r_formerr, out, 512), -EINVAL);
	cr_assert_eq(dnsmsg_error(buf, 12, ns_r_formerr, out, 11), -ENOSPC);
	cr_assert_eq(dnsmsg_error(buf, 12, 16, out, 512), -EINVAL);
	cr_assert_eq(dnsmsg_error(buf, 12, ns_r_servfail, out, 12), 12);
}

Test(dnsmsg_answer, ptr_answer)
{
	uint8_t buf[512], out[512];
	size_t n = mkquery("4.3.2.1.IN-ADDR.ARPA", ns_t_ptr, buf, sizeof(buf));
	struct sockaddr_storage ss;
	struct dns_query q;
	char name[NS_MAXDNAME];
	ns_msg h;
	ns_rr rr;
	long w;

	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	cr_assert(dnsmsg_is_reverse(&q, &ss));
	cr_assert_eq(ss.ss_family, AF_INET);
	cr_assert_eq(((struct sockaddr_in *)&ss)->sin_addr.s_addr,
		     htonl(0x01020304));
	w = dnsmsg_answer_ptr(&q, "host.example", 120, out, sizeof(out));
	h = parse_back(out, w);
	check_question(&h, "4.3.2.1.IN-ADDR.ARPA", ns_t_ptr);
	cr_assert_eq(ns_msg_count(h, ns_s_an), 1);
	rr = check_rr(&h, out, w, 0, "4.3.2.1.IN-ADDR.ARPA", ns_t_ptr, 120);
	cr_assert_gt(ns_name_uncompress(out, out + w, ns_rr_rdata(rr), name,
					sizeof(name)),
		     0);
	cr_assert_str_eq(name, "host.example");
	cr_assert_eq(ns_rr_rdlen(rr), 14);
	/* no room: TC, no record */
	w = dnsmsg_answer_ptr(&q, "host.example", 120, out, n + 10);
	h = parse_back(out, w);
	cr_assert(ns_msg_getflag(h, ns_f_tc));
	cr_assert_eq(ns_msg_count(h, ns_s_an), 0);
	cr_assert_eq(dnsmsg_answer_ptr(&q, "a..b", 1, out, 512), -EINVAL);
	/* an A query gets no PTR */
	n = mkquery("4.3.2.1.in-addr.arpa", ns_t_a, buf, sizeof(buf));
	cr_assert_eq(dnsmsg_parse(buf, n, &q), 0);
	w = dnsmsg_answer_ptr(&q, "host.example", 120, out, sizeof(out));
	h = parse_back(out, w);
	cr_assert_eq(ns_msg_count(h, ns_s_an), 0);
}
