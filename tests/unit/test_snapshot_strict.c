/*
 * Unit tests of the snapshot decoder's refusals (shim/core/snapshot.c):
 * a value the encoder would not write is refused, with the errors
 * snapshot.h lists, and nothing is written past a buffer.  The fixture
 * is snapshot_fixture.h.
 */
#include "snapshot_fixture.h"

/* EMPTY with the value of @field ("net", ...) replaced by @val, and
 * @tail appended (each field once, in the encoder's order). */
static const char *with(const char *field, const char *val, const char *tail)
{
	static const char *const keys[] = { "net", "con",   "bnd",
					    "env", "names", "q" };
	static const char *const empty[] = { "0", "", "", "0", "", "0" };
	static char v[SNAPSHOT_MAX];
	struct strbuf sb = STRBUF(v, sizeof(v));

	sb_puts(&sb, "v=1");
	for (size_t i = 0; i < 6; i++) {
		sb_puts(&sb, "|");
		sb_puts(&sb, keys[i]);
		sb_puts(&sb, "=");
		sb_puts(&sb, strcmp(field, keys[i]) ? empty[i] : val);
	}
	sb_puts(&sb, tail);
	cr_assert(!sb.full);
	return v;
}

/* ---- the decoder refuses ------------------------------------------ */

static void refused(const char *v, int err)
{
	int ret = decode(v);

	cr_assert_eq(ret, err, "decode(\"%s\") = %d, expected %d", v, ret, err);
}

static void refused_in(const char *v, char *small, size_t len, int err)
{
	int ret = snapshot_decode(v, &got, &xgot, small, len);

	cr_assert_eq(ret, err, "decode(\"%s\") in %zu bytes = %d, expected %d",
		     v, len, ret, err);
}

Test(snapshot, an_unknown_version_is_refused)
{
	refused("", -EINVAL);
	refused("v=", -EINVAL);
	refused("v=0", -EINVAL);
	refused("v=2|net=0", -EINVAL);
	refused("v=10", -EINVAL);
	refused("v=1x|net=0", -EINVAL);
	refused("V=1", -EINVAL);
	refused("net=0|v=1", -EINVAL);
	refused("v=2|net=0|con=|bnd=|env=0|names=|q=0", -EINVAL);
	refused("v=10|net=0|con=|bnd=|env=0|names=|q=0", -EINVAL);
	refused(" " EMPTY, -EINVAL);
	cr_assert_eq(decode(EMPTY), 0);
	cr_assert_eq(decode(with("net", "2", "")), 0);
	cr_assert_eq(got.net, NET_ON);
}

Test(snapshot, a_malformed_or_missing_value_is_refused)
{
	static const char *const bad[][3] = {
		{ "net", "", "" },
		{ "net", "4", "" },
		{ "net", "-1", "" },
		{ "net", "x", "" },
		{ "net", "1x", "" },
		{ "env", "2", "" },
		{ "env", "", "" },
		{ "q", "", "" },
		{ "q", "2", "" },
		{ "q", "11", "" },
		{ "con", "x", "" },
		{ "con", ",80", "" },
		{ "con", "80,,443", "" },
		{ "con", "65536", "" },
		{ "con", "99999999999999999999999", "" },
		{ "bnd", "1 2", "" },
		{ "names", ",A", "" },
		{ "names", "A,,B", "" },
		{ "q", "0", "|" },
		{ "q", "0", "||q=0" },
		{ "q", "0", "|zz=1" },
		{ "q", "0", "|sa=2" },
		{ "q", "0", "|learn=" },
		{ "q", "0", "|root=" },
		{ "q", "0", "|root=rwx" },
		{ "q", "0", "|root=rwx,d" },
		{ "q", "0", "|root=rwx,d,u" },
		{ "q", "0", "|root=rwx,d,u," },
		{ "q", "0", "|root=rwx,d,u,relative" },
		{ "q", "0", "|root=rwx,x,u,/a" },
		{ "q", "0", "|root=rwx,d,z,/a" },
		{ "q", "0", "|root=rwx,dd,u,/a" },
		{ "q", "0", "|root=rwx,d,u,/a,b" },
		{ "q", "0", "|root=rwx,d,u,/a|" },
		{ "q", "0", "|log=/a,b" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused(with(bad[i][0], bad[i][1], bad[i][2]), -EINVAL);
	/* the twins: the same fields as the encoder writes them */
	cr_assert_eq(decode(with("con", "80,443", "|root=rwx,d,u,/a")), 0);
	cr_assert_eq(decode(with("names", "A,B", "|log=/a%2Cb")), 0);
	cr_assert_eq(decode(with("bnd", "1", "|sa=1|learn=1")), 0);
	cr_assert_eq(decode(with("q", "1", "|root=r,f,p,/")), 0);
}

Test(snapshot, a_bad_percent_escape_is_refused)
{
	static const char *const bad[] = {
		"|log=/a%",	   "|log=/a%4",	  "|log=/a%G1",
		"|log=/a%1G",	   "|log=/a%%41", "|root=r,d,u,/a%zz",
		"|root=r,d,u,/a%", "|log=/a% 1",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused(with("q", "0", bad[i]), -EINVAL);
	refused(with("names", "A%", ""), -EINVAL);
	refused(with("names", "A%2", ""), -EINVAL);
	/* the twin */
	cr_assert_eq(decode(with("q", "0", "|log=/%7C%7C%2C%25")), 0);
	cr_assert_str_eq(xgot.log, "/||,%");
}

/* ---- only what the encoder writes ----------------------------------- */

Test(snapshot, a_nul_inside_a_string_is_refused)
{
	refused(with("q", "0", "|root=rwx,d,u,/%00etc"), -EINVAL);
	refused(with("q", "0", "|root=rwx,d,u,/etc%00"), -EINVAL);
	refused(with("q", "0", "|log=file:/x%00y"), -EINVAL);
	refused(with("names", "A%00B", ""), -EINVAL);
	/* the twins */
	cr_assert_eq(decode(with("q", "0", "|root=rwx,d,u,/etc")), 0);
	cr_assert_str_eq(got.roots[0].path, "/etc");
	cr_assert_eq(decode(with("names", "A%01B", "|log=file:/x%1Fy")), 0);
	cr_assert_str_eq(got.env_names[0], "A\x01"
					   "B");
	cr_assert_str_eq(xgot.log, "file:/x\x1fy");
}

Test(snapshot, rights_are_only_as_the_encoder_spells_them)
{
	static const char *const bad[] = { "",	 "zzz", "rwq", "q",
					   "wr", "rr",	"xr",  "-r",
					   "r-", "--",	"R",   "rwxx" };
	static const struct {
		const char *s;
		unsigned int r;
	} good[] = {
		{ "-", 0 },
		{ "r", RIGHT_R },
		{ "w", RIGHT_W },
		{ "x", RIGHT_X },
		{ "rw", RIGHT_R | RIGHT_W },
		{ "rx", RIGHT_R | RIGHT_X },
		{ "wx", RIGHT_W | RIGHT_X },
		{ "rwx", RIGHT_ALL },
	};
	char tail[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(tail, sizeof(tail), "|root=%s,d,u,/a", bad[i]);
		refused(with("q", "0", tail), -EINVAL);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(tail, sizeof(tail), "|root=%s,d,u,/a", good[i].s);
		cr_assert_eq(decode(with("q", "0", tail)), 0, "%s", tail);
		cr_assert_eq(got.roots[0].rights, good[i].r, "%s", tail);
		same_text(with("q", "0", tail));
	}
}

Test(snapshot, a_trailing_comma_is_refused)
{
	refused(with("con", "80,", ""), -EINVAL);
	refused(with("bnd", "80,443,", ""), -EINVAL);
	refused(with("names", "A,", ""), -EINVAL);
	refused(with("con", ",", ""), -EINVAL);
	/* the twins */
	cr_assert_eq(decode(with("con", "80", "")), 0);
	cr_assert_eq(got.nconnect, 1);
	cr_assert_eq(decode(with("bnd", "80,443", "")), 0);
	cr_assert_eq(got.nbind, 2);
	cr_assert_eq(decode(with("names", "A", "")), 0);
	cr_assert_eq(got.nenv_names, 1);
}

Test(snapshot, a_field_repeated_missing_or_out_of_order_is_refused)
{
	static const char *const bad[] = {
		/* repeated */
		"|q=0",
		"|net=2",
		"|con=80",
		"|names=A",
		"|sa=1|sa=1",
		"|learn=1|learn=1",
		"|log=/a|log=/b",
		/* out of order */
		"|learn=1|sa=1",
		"|log=/a|sa=1",
		"|root=r,d,d,/a|log=/b",
		"|root=r,d,d,/a|learn=1",
		/* what the encoder writes only when set */
		"|sa=0",
		"|learn=0",
	};
	static const char *const missing[] = {
		"v=1",
		"v=1|net=0|con=|bnd=|env=0|names=",
		"v=1|net=0|bnd=|env=0|names=|q=0",
		"v=1|con=|bnd=|env=0|names=|q=0",
		"v=1|net=0|con=|bnd=|names=|q=0",
		"v=1|net=0|con=|bnd=|env=0|q=0",
		"v=1|net=0|con=|env=0|names=|q=0",
		"v=1|con=|net=0|bnd=|env=0|names=|q=0",
		"v=1|root=rx,d,d,/usr",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused(with("q", "0", bad[i]), -EINVAL);
	for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++)
		refused(missing[i], -EINVAL);
	/* the twin: each optional field once, in order */
	cr_assert_eq(decode(with("q", "0",
				 "|sa=1|learn=1|log=/a|root=r,d,d,/a"
				 "|root=r,d,d,/b")),
		     0);
	cr_assert(xgot.standalone && xgot.learn);
	cr_assert_eq(got.nroots, 2);
}

Test(snapshot, an_escape_the_encoder_would_not_write_is_refused)
{
	static const char *const bad[] = {
		"|log=/%41", /* 'A' is written as it is */
		"|log=/%2F", /* so is '/' */
		"|log=/%7c", /* lower-case hex */
		"|log=/%E9", /* a byte past ASCII is written raw */
		"|log=/a\x01"
		"b",		     /* a control byte, raw */
		"|log=/a\x7f",	     /* DEL, raw */
		"|root=r,d,d,/a\nb", /* a newline, raw */
		"|root=r,d,d,%2Fa",  /* the root's leading '/' */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused(with("q", "0", bad[i]), -EINVAL);
	refused(with("names", "%41", ""), -EINVAL);
	/* the twins */
	cr_assert_eq(decode(with("q", "0",
				 "|log=/A%7C\xc3\xa9%01%7F"
				 "|root=r,d,d,/a%0Ab")),
		     0);
	cr_assert_str_eq(xgot.log, "/A|\xc3\xa9\x01\x7f");
	cr_assert_str_eq(got.roots[0].path, "/a\nb");
}

Test(snapshot, a_number_with_a_leading_zero_is_refused)
{
	refused(with("net", "00", ""), -EINVAL);
	refused(with("net", "01", ""), -EINVAL);
	refused(with("env", "00", ""), -EINVAL);
	refused(with("q", "01", ""), -EINVAL);
	refused(with("con", "080", ""), -EINVAL);
	refused(with("bnd", "1,00", ""), -EINVAL);
	/* the twins */
	cr_assert_eq(decode(with("con", "0,80", "")), 0);
	cr_assert_eq(got.connect_ports[0], 0);
	cr_assert_eq(got.connect_ports[1], 80);
	cr_assert_eq(decode(with("net", "1", "")), 0);
	cr_assert_eq(got.net, NET_PORTS);
}

/* A snapshot of @n roots, or ports, or names. */
static const char *many(const char *field, size_t n)
{
	static char list[SNAPSHOT_MAX];
	struct strbuf sb = STRBUF(list, sizeof(list));
	bool roots = !strcmp(field, "root");

	for (size_t i = 0; i < n; i++) {
		if (roots) {
			sb_puts(&sb, "|root=r,d,d,/r");
		} else {
			if (i)
				sb_puts(&sb, ",");
			if (*field == 'n')
				sb_puts(&sb, "N");
		}
		sb_uint(&sb, i);
	}
	cr_assert(!sb.full);
	return roots ? with("q", "0", list) : with(field, list, "");
}

Test(snapshot, more_roots_ports_or_names_than_the_caps_are_refused)
{
	cr_assert_eq(decode(many("root", POLICY_MAX_ROOTS)), 0);
	cr_assert_eq(got.nroots, POLICY_MAX_ROOTS);
	refused(many("root", POLICY_MAX_ROOTS + 1), -E2BIG);
	cr_assert_eq(decode(many("con", POLICY_MAX_PORTS)), 0);
	cr_assert_eq(got.nconnect, POLICY_MAX_PORTS);
	refused(many("con", POLICY_MAX_PORTS + 1), -E2BIG);
	cr_assert_eq(decode(many("bnd", POLICY_MAX_PORTS)), 0);
	refused(many("bnd", POLICY_MAX_PORTS + 1), -E2BIG);
	cr_assert_eq(decode(many("names", POLICY_MAX_ENV)), 0);
	cr_assert_eq(got.nenv_names, POLICY_MAX_ENV);
	refused(many("names", POLICY_MAX_ENV + 1), -E2BIG);
}

Test(snapshot, a_store_too_small_is_refused_and_not_overrun)
{
	static const char v[] = "v=1|net=0|con=|bnd=|env=0|names=ABC,D|q=0"
				"|log=file:/x";
	/* "ABC" "D" "file:/x" and their NULs */
	const size_t need = 4 + 2 + 8;
	char small[64];
	int ret;

	for (size_t len = 0; len < need; len++) {
		memset(small, '#', sizeof(small));
		ret = snapshot_decode(v, &got, &xgot, small, len);
		cr_assert_eq(ret, -ENAMETOOLONG, "store of %zu: %d", len, ret);
		cr_assert_eq(small[len], '#', "written past %zu bytes", len);
	}
	cr_assert_eq(snapshot_decode(v, &got, &xgot, small, need), 0);
	cr_assert_str_eq(got.env_names[1], "D");
	cr_assert_str_eq(xgot.log, "file:/x");
}

Test(snapshot, a_root_without_room_in_the_store_is_refused)
{
	static const char v[] = EMPTY "|root=rx,d,d,/usr";
	char small[8];

	for (size_t len = 0; len < 5; len++) {
		memset(small, '#', sizeof(small));
		refused_in(v, small, len, -ENAMETOOLONG);
		cr_assert_eq(small[len], '#', "written past %zu bytes", len);
	}
	cr_assert_eq(snapshot_decode(v, &got, &xgot, small, 5), 0);
	cr_assert_str_eq(got.roots[0].path, "/usr");
}

Test(snapshot, a_value_cut_short_is_refused)
{
	int n;

	add("/home/u/proj", RIGHT_ALL, ORIGIN_USER, true);
	xin.log = "file:/a%b";
	n = snapshot_encode(&in, &xin, value, sizeof(value));
	cr_assert_gt(n, 0);
	/* cut anywhere in the root's key or header: no valid value */
	for (const char *cut = strstr(value, "|root=") + 1; *cut != '/';
	     cut++) {
		char v[256];

		snprintf(v, sizeof(v), "%.*s", (int)(cut - value), value);
		refused(v, -EINVAL);
	}
	/* nothing is read past the end: what lies there looks like the
	 * rest of a root header */
	refused(EMPTY "|root=rwx,d,\0,/x", -EINVAL);
	refused(EMPTY "|root=rwx,d\0u,/x", -EINVAL);
	refused(EMPTY "|log=file:/a%2", -EINVAL);
	refused(EMPTY "|log=file:/a%", -EINVAL);
	refused("v=1|net=", -EINVAL);
}

/* UDP ports: after the TCP ones, each with its 'u', in range. */
Test(snapshot, udp_ports_only_as_the_encoder_writes_them)
{
	cr_assert_eq(decode("v=1|net=1|con=443,u53|bnd=u0|env=0|names=|q=0"),
		     0);
	cr_assert_eq(got.nconnect, 1);
	cr_assert_eq(got.nconnect_udp, 1);
	cr_assert_eq(got.connect_udp[0], 53);
	cr_assert_eq(got.nbind_udp, 1);
	refused("v=1|net=1|con=u53,443|bnd=|env=0|names=|q=0", -EINVAL);
	refused("v=1|net=1|con=u|bnd=|env=0|names=|q=0", -EINVAL);
	refused("v=1|net=1|con=uu53|bnd=|env=0|names=|q=0", -EINVAL);
	refused("v=1|net=1|con=u65536|bnd=|env=0|names=|q=0", -EINVAL);
	refused("v=1|net=1|con=U53|bnd=|env=0|names=|q=0", -EINVAL);
	refused("v=1|net=1|con=u053|bnd=|env=0|names=|q=0", -EINVAL);
	refused(EMPTY "|udp=2", -EINVAL);
}

Test(snapshot, decoding_leaves_errno_alone)
{
	errno = EXDEV;
	cr_assert_eq(decode("v=1|net=1|con=443|bnd=|env=0|names=|q=0"
			    "|root=rx,d,d,/usr"),
		     0);
	cr_assert_eq(errno, EXDEV);
	cr_assert_neq(decode(EMPTY "|root=rx,d,d,/usr%"), 0);
	cr_assert_eq(errno, EXDEV);
}

/* The report socket's identity: both numbers or none, after the log. */
Test(snapshot, a_report_socket_identity_out_of_form_is_refused)
{
	cr_assert_eq(decode(EMPTY "|log=unix:/s|ldev=1|lino=2"), 0);
	cr_assert_eq(xgot.log_dev, 1);
	cr_assert_eq(xgot.log_ino, 2);
	refused(EMPTY "|log=unix:/s|ldev=1", -EINVAL);
	refused(EMPTY "|log=unix:/s|lino=2", -EINVAL);
	refused(EMPTY "|log=unix:/s|ldev=1|lino=0", -EINVAL);
	refused(EMPTY "|log=unix:/s|ldev=01|lino=2", -EINVAL);
	refused(EMPTY "|ldev=1|lino=2", -EINVAL);
	refused(EMPTY "|log=unix:/s|ldev=1|lino=99999999999999999999", -EINVAL);
}
