/*
 * Unit tests of the policy snapshot (shim/core/snapshot.c): what the
 * launcher encodes the shim decodes field for field, whatever bytes the
 * paths hold; a value the encoder would not write is refused, with the
 * errors snapshot.h lists, and nothing is written past a buffer.
 */
#include <limits.h>

#include "snapshot_fixture.h"

static void name(const char *s)
{
	cr_assert_lt(in.nenv_names, POLICY_MAX_ENV);
	in.env_names[in.nenv_names] = strdup(s);
	cr_assert_not_null(in.env_names[in.nenv_names]);
	in.nenv_names++;
}

/* Encode @in and @xin, decode the value, and check both ways. */
static void round_trip(void)
{
	int n = snapshot_encode(&in, &xin, value, sizeof(value));

	cr_assert_gt(n, 0, "encode: %d", n);
	cr_assert_eq((size_t)n, strlen(value));
	for (int i = 0; i < n; i++)
		cr_assert((unsigned char)value[i] >= 0x20 && value[i] != 0x7f,
			  "a control byte at %d of the value", i);
	cr_assert_eq(decode(value), 0, "decode: %s", value);
	same_text(value);
}

static void same_policy(void)
{
	cr_assert_eq(got.nroots, in.nroots);
	for (size_t i = 0; i < in.nroots; i++) {
		const struct root *a = &in.roots[i], *b = &got.roots[i];

		cr_assert_str_eq(b->path, a->path, "root %zu", i);
		cr_assert_eq(b->rights, a->rights, "root %zu (%s)", i, a->path);
		cr_assert_eq(b->origin, a->origin, "root %zu (%s)", i, a->path);
		cr_assert_eq(b->is_dir, a->is_dir, "root %zu (%s)", i, a->path);
	}
	cr_assert_eq(got.net, in.net);
	cr_assert_eq(got.nconnect, in.nconnect);
	cr_assert_arr_eq(got.connect_ports, in.connect_ports,
			 in.nconnect * sizeof(in.connect_ports[0]));
	cr_assert_eq(got.nbind, in.nbind);
	cr_assert_arr_eq(got.bind_ports, in.bind_ports,
			 in.nbind * sizeof(in.bind_ports[0]));
	cr_assert_eq(got.nconnect_udp, in.nconnect_udp);
	cr_assert_arr_eq(got.connect_udp, in.connect_udp,
			 in.nconnect_udp * sizeof(in.connect_udp[0]));
	cr_assert_eq(got.nbind_udp, in.nbind_udp);
	cr_assert_arr_eq(got.bind_udp, in.bind_udp,
			 in.nbind_udp * sizeof(in.bind_udp[0]));
	cr_assert_eq(got.env, in.env);
	cr_assert_eq(got.nenv_names, in.nenv_names);
	for (size_t i = 0; i < in.nenv_names; i++)
		cr_assert_str_eq(got.env_names[i], in.env_names[i]);
	cr_assert_eq(got.quiet, in.quiet);
}

static void same_extra(void)
{
	if (xin.log)
		cr_assert_str_eq(xgot.log, xin.log);
	else
		cr_assert_null(xgot.log);
	cr_assert_eq(xgot.standalone, xin.standalone);
	cr_assert_eq(xgot.learn, xin.learn);
	cr_assert_eq(xgot.udp, xin.udp);
	cr_assert_eq(xgot.log_dev, xin.log_dev);
	cr_assert_eq(xgot.log_ino, xin.log_ino);
	if (xin.gone)
		cr_assert_str_eq(xgot.gone, xin.gone);
	else
		cr_assert_null(xgot.gone);
}

/* ---- round trips ---------------------------------------------------- */

Test(snapshot, every_kind_of_root_comes_back)
{
	static const enum root_origin origins[] = { ORIGIN_USER, ORIGIN_DEFAULT,
						    ORIGIN_PROTECTED };
	char path[64];

	for (unsigned int r = 0; r <= (RIGHT_ALL | RIGHT_U); r++)
		for (size_t o = 0; o < 3; o++)
			for (int dir = 0; dir < 2; dir++) {
				snprintf(path, sizeof(path), "/r%u/o%zu/d%d", r,
					 o, dir);
				add(path, r, origins[o], dir);
			}
	add("/", RIGHT_R, ORIGIN_DEFAULT, true);
	cr_assert_eq(in.nroots, 16 * 3 * 2 + 1);
	round_trip();
	same_policy();
}

Test(snapshot, paths_with_any_byte_come_back)
{
	static const char *const paths[] = {
		"/a|b",		 "/p%25",
		"/c,d",		 "/new\nline",
		"/tab\tx",	 "/del\x7f",
		"/esc\x1b[0m",	 "/caf\xc3\xa9",
		"/raw\xff\xfe",	 "/sp ace",
		"/k=v",		 "/%",
		"/|,%|root=rwx", "/x|root=rwx,d,u,/",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		add(paths[i], RIGHT_R | RIGHT_W, ORIGIN_USER, i % 2);
	xin.log = "file:/tmp/a|b,c%d\ne\xc3\xa9";
	round_trip();
	same_policy();
	same_extra();
}

Test(snapshot, ports_and_net_modes_come_back)
{
	static const uint16_t ports[] = { 0, 1, 80, 443, 8080, 65535 };

	for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
		in.connect_ports[in.nconnect++] = ports[i];
		in.bind_ports[in.nbind++] = ports[5 - i];
	}
	for (int net = NET_OFF; net <= NET_ON; net++) {
		in.net = (enum net_mode)net;
		round_trip();
		same_policy();
	}
	/* UDP ports after the TCP ones ("u53") */
	in.connect_udp[in.nconnect_udp++] = 53;
	in.bind_udp[in.nbind_udp++] = 0;
	in.bind_udp[in.nbind_udp++] = 5353;
	round_trip();
	same_policy();
	cr_assert(strstr(value, "|con=0,1,80,443,8080,65535,u53|"), "%s",
		  value);
	/* as many as there may be */
	for (in.nconnect = 0; in.nconnect < POLICY_MAX_PORTS; in.nconnect++)
		in.connect_ports[in.nconnect] = (uint16_t)(1000 + in.nconnect);
	for (in.nconnect_udp = 0; in.nconnect_udp < POLICY_MAX_PORTS;
	     in.nconnect_udp++)
		in.connect_udp[in.nconnect_udp] = (uint16_t)in.nconnect_udp;
	in.nbind = 0;
	round_trip();
	same_policy();
}

Test(snapshot, env_mode_and_names_come_back)
{
	char buf[16];

	name("FOO");
	name("LC_*");
	name("A,B|C%D");
	in.env = ENV_INHERIT;
	round_trip();
	same_policy();
	in.env = ENV_SCRUB;
	while (in.nenv_names < POLICY_MAX_ENV) {
		snprintf(buf, sizeof(buf), "N%zu", in.nenv_names);
		name(buf);
	}
	round_trip();
	same_policy();
}

Test(snapshot, quiet_and_the_extra_come_back)
{
	for (int bits = 0; bits < 32; bits++) {
		in.quiet = bits & 1;
		xin.standalone = bits & 2;
		xin.learn = bits & 4;
		xin.log = bits & 8 ? "unix:/run/cordon/x.sock" : NULL;
		xin.udp = bits & 16;
		round_trip();
		same_policy();
		same_extra();
	}
}

/* The home (the tools' roots) and the names the scrub removed (the
 * shim's getenv), any byte in them, or neither. */
Test(snapshot, the_home_and_the_removed_names_come_back)
{
	static const char *const homes[] = { "/home/u", "/h|o,m%e", NULL };

	for (int i = 0; i < 3; i++) {
		free(in.home);
		in.home = homes[i % 3] ? strdup(homes[i % 3]) : NULL;
		xin.gone = i == 0   ? "PKG_CONFIG_PATH:AWS_SECRET_ACCESS_KEY"
			   : i == 1 ? "A,B|C%D"
				    : NULL;
		round_trip();
		same_policy();
		same_extra();
		if (in.home)
			cr_assert_str_eq(got.home, in.home);
		else
			cr_assert_null(got.home);
	}
}

Test(snapshot, no_extra_decodes_as_none)
{
	in.quiet = true;
	cr_assert_gt(snapshot_encode(&in, NULL, value, sizeof(value)), 0);
	xgot = (struct snapshot_extra){ .log = "stale", .learn = true };
	cr_assert_eq(decode(value), 0);
	cr_assert_null(xgot.log);
	cr_assert(!xgot.learn && !xgot.standalone);
	cr_assert(got.quiet);
}

/* The environment's NAME=VALUE sets and best_effort are the launcher's
 * alone (it sets the variables and decides about the kernel before the
 * command runs): they do not travel, and a decoded policy has none of
 * whatever its storage held before. */
Test(snapshot, what_does_not_travel_is_cleared)
{
	in.env_sets[0] = strdup("FOO=1");
	in.nenv_sets = 1;
	in.best_effort = true;
	round_trip();
	cr_assert_null(strstr(value, "FOO=1"));
	memset(&got, 0x5a, offsetof(struct policy, roots));
	cr_assert_eq(decode(EMPTY), 0);
	cr_assert_eq(got.nroots, 0);
	cr_assert_eq(got.nenv_sets, 0);
	cr_assert(!got.best_effort);
	cr_assert(!got.quiet);
	cr_assert_eq(got.net, NET_OFF);
	cr_assert_eq(got.env, ENV_SCRUB);
	cr_assert_eq(got.nconnect + got.nbind + got.nenv_names, 0);
}

/* ---- the encoder's bounds ----------------------------------------- */

Test(snapshot, the_encoder_needs_room_for_the_value_and_its_nul)
{
	char small[512];
	int n;

	add("/usr", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true);
	add("/home/u/proj", RIGHT_ALL, ORIGIN_USER, true);
	xin.log = "file:/tmp/log";
	n = snapshot_encode(&in, &xin, value, sizeof(value));
	cr_assert_gt(n, 0);
	cr_assert_lt((size_t)n, sizeof(small));
	memset(small, '#', sizeof(small));
	cr_assert_eq(snapshot_encode(&in, &xin, small, (size_t)n + 1), n);
	cr_assert_str_eq(small, value);
	for (size_t len = 0; len <= (size_t)n; len++) {
		memset(small, '#', sizeof(small));
		cr_assert_eq(snapshot_encode(&in, &xin, small, len),
			     -ENAMETOOLONG, "len %zu", len);
		cr_assert_eq(small[len], '#', "written past %zu bytes", len);
	}
}

/* The report socket's identity (the shim sends to no other) comes back
 * with it, the largest numbers the decoder takes included. */
Test(snapshot, the_report_sockets_identity_comes_back)
{
	xin.log = "unix:/run/cordon/x.sock";
	xin.log_dev = 65024;
	xin.log_ino = 11101269;
	round_trip();
	same_extra();
	xin.log_dev = 0;
	xin.log_ino = ULONG_MAX / 10 - 1;
	round_trip();
	same_extra();
	/* none: the shim used alone, unchecked */
	xin.log_ino = 0;
	round_trip();
	same_extra();
}
