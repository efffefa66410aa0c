/*
 * Unit tests of the words of a denial (shim/core/rule.c): the names of a
 * need, the root that decides or grants, why a path is refused, what
 * path a grant names and why a TCP port is refused.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "shim/core/path.h"
#include "shim/core/rule.h"
#include "tmptree.h"

static struct policy p;
static char out[PATH_BUF];

static void fini(void)
{
	policy_free(&p);
	memset(&p, 0, sizeof(p));
}

TestSuite(rule, .fini = fini);

static void add(const char *path, unsigned int rights, enum root_origin o,
		bool dir)
{
	cr_assert_eq(policy_add_root(&p, path, rights, o, dir), 0, "%s", path);
}

/* rule_put() of @need on @path, as text. */
static const char *put(unsigned int need, const char *path)
{
	struct strbuf sb = STRBUF(out, sizeof(out));

	rule_put(&sb, &p, need, path);
	cr_assert(!sb.full);
	return out;
}

static const char *put_tcp(bool bind, unsigned int port)
{
	struct strbuf sb = STRBUF(out, sizeof(out));

	rule_put_tcp(&sb, &p, bind, port);
	return out;
}

static const char *closest(const char *path)
{
	const struct root *r = rule_closest_root(&p, path);

	return r ? r->path : "(none)";
}

static const char *granting(const char *path, unsigned int need)
{
	const struct root *r = rule_granting(&p, path, need);

	return r ? r->path : "(none)";
}

Test(rule, words_flags_and_variables_name_the_strongest_need)
{
	static const struct {
		unsigned int need;
		const char *word, *flag, *var;
	} want[] = {
		{ 0, "see", "--read", "CORDON_READ" },
		{ RIGHT_R, "read", "--read", "CORDON_READ" },
		{ RIGHT_W, "write", "--write", "CORDON_WRITE" },
		{ RIGHT_X, "exec", "--exec", "CORDON_EXEC" },
		{ RIGHT_R | RIGHT_W, "write", "--write", "CORDON_WRITE" },
		{ RIGHT_R | RIGHT_X, "exec", "--exec", "CORDON_EXEC" },
		{ RIGHT_W | RIGHT_X, "write", "--write", "CORDON_WRITE" },
		{ RIGHT_ALL, "write", "--write", "CORDON_WRITE" },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_assert_str_eq(rule_word(want[i].need), want[i].word, "%u",
				 want[i].need);
		cr_assert_str_eq(rule_flag(want[i].need), want[i].flag, "%u",
				 want[i].need);
		cr_assert_str_eq(rule_var(want[i].need), want[i].var, "%u",
				 want[i].need);
	}
}

Test(rule, the_closest_root_is_the_most_specific_containing_one)
{
	cr_assert_str_eq(closest("/w"), "(none)");
	add("/", RIGHT_R, ORIGIN_DEFAULT, true);
	add("/w", RIGHT_ALL, ORIGIN_USER, true);
	add("/w/a", RIGHT_R, ORIGIN_DEFAULT, true);
	add("/etc/hosts", RIGHT_R, ORIGIN_USER, false);
	cr_assert_str_eq(closest("/w/a/b"), "/w/a");
	cr_assert_str_eq(closest("/w/a"), "/w/a");
	cr_assert_str_eq(closest("/w/ab"), "/w");
	cr_assert_str_eq(closest("/wa"), "/");
	cr_assert_str_eq(closest("/"), "/");
	/* a file root is the closest for that file only */
	cr_assert_str_eq(closest("/etc/hosts"), "/etc/hosts");
	cr_assert_str_eq(closest("/etc/hosts/x"), "/");
	cr_assert_str_eq(closest("/etc/hostsx"), "/");
}

Test(rule, a_protected_root_wins_on_an_equal_path_in_either_order)
{
	add("/w", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("/w/.git/hooks", RIGHT_ALL, ORIGIN_USER, true);
	add("/w/.git/hooks", RIGHT_R, ORIGIN_PROTECTED, true);
	cr_assert_eq(rule_closest_root(&p, "/w/.git/hooks/x")->origin,
		     ORIGIN_PROTECTED);
	fini();
	add("/w", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("/w/.git/hooks", RIGHT_R, ORIGIN_PROTECTED, true);
	add("/w/.git/hooks", RIGHT_ALL, ORIGIN_USER, true);
	cr_assert_eq(rule_closest_root(&p, "/w/.git/hooks/x")->origin,
		     ORIGIN_PROTECTED);
	cr_assert_eq(rule_closest_root(&p, "/w/.git/hooks")->origin,
		     ORIGIN_PROTECTED);
}

Test(rule, granting_is_the_closest_root_when_it_grants)
{
	add("/", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true);
	add("/w", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("/w/.git/hooks", RIGHT_R | RIGHT_X, ORIGIN_PROTECTED, true);
	add("/w/sub", RIGHT_R, ORIGIN_USER, true);
	cr_assert_str_eq(granting("/w/.git/hooks/x", RIGHT_R), "/w/.git/hooks");
	cr_assert_str_eq(granting("/w/sub/f", RIGHT_R), "/w/sub");
	cr_assert_str_eq(granting("/usr/bin/ls", RIGHT_X), "/");
	/* else the most specific unprotected root granting all of it */
	cr_assert_str_eq(granting("/w/sub/f", RIGHT_X), "/w");
	cr_assert_str_eq(granting("/w/sub/f", RIGHT_R | RIGHT_W), "/w");
	cr_assert_str_eq(granting("/w/.git/hooks/x", RIGHT_W), "/w");
	cr_assert_str_eq(granting("/etc/passwd", RIGHT_W), "(none)");
}

Test(rule, granting_passes_over_protected_roots)
{
	add("/w", RIGHT_R | RIGHT_W, ORIGIN_DEFAULT, true);
	add("/w/p", RIGHT_R | RIGHT_W, ORIGIN_PROTECTED, true);
	add("/w/p/q", RIGHT_R, ORIGIN_USER, true);
	cr_assert_str_eq(granting("/w/p/q/f", RIGHT_W), "/w");
	cr_assert_str_eq(granting("/w/p/q/f", RIGHT_R), "/w/p/q");
}

Test(rule, a_protected_closest_root_is_protected)
{
	add("/w", RIGHT_ALL, ORIGIN_USER, true);
	add("/w/.git/hooks", RIGHT_R | RIGHT_X, ORIGIN_PROTECTED, true);
	add("/home/u/.ssh", 0, ORIGIN_PROTECTED, true);
	cr_assert_str_eq(put(RIGHT_W, "/w/.git/hooks/pre-commit"),
			 "/w/.git/hooks is protected");
	cr_assert_str_eq(put(RIGHT_R, "/home/u/.ssh/id_ed25519"),
			 "/home/u/.ssh is protected");
	/* a root below that grants the need, yet does not lift it (a
	 * secret is covered whole): the protection decides */
	add("/home/u/.ssh/config", RIGHT_R | RIGHT_W, ORIGIN_USER, false);
	cr_assert_str_eq(put(RIGHT_R, "/home/u/.ssh/config"),
			 "/home/u/.ssh is protected");
	/* the twin: one that lacks the need says what it grants */
	add("/w/.git/hooks/pre-push", RIGHT_R, ORIGIN_USER, false);
	cr_assert_str_eq(put(RIGHT_W, "/w/.git/hooks/pre-push"),
			 "/w/.git/hooks/pre-push is granted r only");
}

Test(rule, a_closest_root_that_lacks_the_need_is_granted_its_rights_only)
{
	add("/usr", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true);
	add("/w", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("/w/docs", RIGHT_R, ORIGIN_USER, true);
	add("/dev/null", RIGHT_R | RIGHT_W, ORIGIN_DEFAULT, false);
	cr_assert_str_eq(put(RIGHT_W, "/usr/bin/ls"),
			 "/usr is granted rx only");
	/* the closest, not a wider one that grants it */
	cr_assert_str_eq(put(RIGHT_W, "/w/docs/a"),
			 "/w/docs is granted r only");
	cr_assert_str_eq(put(RIGHT_X, "/dev/null"),
			 "/dev/null is granted rw only");
}

Test(rule, a_link_root_alone_is_a_link_seen_to_be_walked_through)
{
	/* what roots.c adds for /r/lnk -> real on the way to /r/real/sub */
	add("/r/real/sub", RIGHT_R, ORIGIN_USER, true);
	add("/r/lnk", 0, ORIGIN_DEFAULT, false);
	cr_assert_str_eq(put(RIGHT_W, "/r/lnk"),
			 "/r/lnk is a symbolic link, seen only so that paths "
			 "through it resolve");
	/* the twin: a root above that lacks the need says so, as anywhere */
	add("/r", RIGHT_R, ORIGIN_USER, true);
	cr_assert_str_eq(put(RIGHT_W, "/r/lnk"), "/r is granted r only");
	/* a secret (a protected root granting nothing) stays protected */
	add("/r/key", 0, ORIGIN_PROTECTED, false);
	cr_assert_str_eq(put(RIGHT_R, "/r/key"), "/r/key is protected");
}

/* The roots a typical run has: the user's, the defaults, devices. */
static void run_policy(void)
{
	add("/usr", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true);
	add("/tmp", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("/var/tmp", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("/dev/shm", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("/dev/null", RIGHT_R | RIGHT_W, ORIGIN_DEFAULT, false);
	add("/dev", RIGHT_R, ORIGIN_DEFAULT, true);
	add("/proc", RIGHT_R, ORIGIN_DEFAULT, true);
	add("/sys", RIGHT_R, ORIGIN_DEFAULT, true);
	add("/home/u/proj", RIGHT_ALL, ORIGIN_USER, true);
	add("/home/u/proj/build", RIGHT_ALL, ORIGIN_USER, true);
	add("/tmp/cache", RIGHT_ALL, ORIGIN_DEFAULT, true);
}

Test(rule, outside_names_the_users_roots_first_and_three_at_most)
{
	run_policy();
	/* /srv is a fourth: "..." */
	add("/srv", RIGHT_ALL, ORIGIN_DEFAULT, true);
	cr_assert_str_eq(put(RIGHT_W, "/etc/passwd"),
			 "outside the writable roots /home/u/proj, /tmp, "
			 "/var/tmp, ...");
	cr_assert_str_eq(put(RIGHT_R, "/etc/passwd"),
			 "outside the readable roots /home/u/proj, /usr, "
			 "/tmp, ...");
	/* need 0 lists the readable roots */
	cr_assert_str_eq(put(0, "/etc/passwd"),
			 "outside the readable roots /home/u/proj, /usr, "
			 "/tmp, ...");
	cr_assert_str_eq(put(RIGHT_X, "/etc/passwd"),
			 "outside the executable roots /home/u/proj, /usr, "
			 "/tmp, ...");
}

Test(rule, outside_leaves_out_devices_pseudo_files_and_nested_roots)
{
	run_policy();
	/* exactly three worth naming: no "..."; /dev/shm, /dev/null,
	 * /proc, /sys and the roots inside /tmp, /home/u/proj left out */
	cr_assert_str_eq(put(RIGHT_W, "/etc/passwd"),
			 "outside the writable roots /home/u/proj, /tmp, "
			 "/var/tmp");
	fini();
	add("/tmp", RIGHT_R | RIGHT_W, ORIGIN_DEFAULT, true);
	add("/tmp/x", RIGHT_R | RIGHT_W | RIGHT_X, ORIGIN_USER, true);
	/* /tmp/x is the only executable one, inside a writable /tmp */
	cr_assert_str_eq(put(RIGHT_X, "/etc/passwd"),
			 "outside the executable roots /tmp/x");
	cr_assert_str_eq(put(RIGHT_W, "/etc/passwd"),
			 "outside the writable roots /tmp");
}

Test(rule, outside_with_no_root_granting_it_says_there_are_none)
{
	cr_assert_str_eq(put(RIGHT_W, "/x"),
			 "outside the writable roots: there are none");
	add("/dev/shm", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("/sys/fs/cgroup", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("/proc/self", RIGHT_ALL, ORIGIN_DEFAULT, true);
	add("/dev/null", RIGHT_R | RIGHT_W, ORIGIN_DEFAULT, false);
	add("/home/u/f", RIGHT_ALL, ORIGIN_USER, false);
	add("/usr", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, true);
	cr_assert_str_eq(put(RIGHT_W, "/x"),
			 "outside the writable roots: there are none");
}

/* ---- rule_put_grant(): the path an option would name ------------- */

static char T[64];

static void grant_init(void)
{
	char tmpl[] = "/tmp/cordon-rule-XXXXXX", path[PATH_BUF];
	char *t;
	int fd;

	cr_assert_not_null(mkdtemp(tmpl), "mkdtemp: %s", strerror(errno));
	t = realpath(tmpl, NULL);
	cr_assert(t && strlen(t) < sizeof(T));
	memcpy(T, t, strlen(t) + 1);
	free(t);
	snprintf(path, sizeof(path), "%s/d", T);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/d/f", T);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/d/dangling", T);
	cr_assert_eq(symlink("nowhere", path), 0);
}

static void grant_fini(void)
{
	tmptree_remove(T);
}

TestSuite(grant, .init = grant_init, .fini = grant_fini);

/* rule_put_grant() of "T/@rel" (or of @rel when absolute). */
static const char *grant(const char *rel)
{
	char path[PATH_BUF];
	struct strbuf sb = STRBUF(out, sizeof(out));

	if (rel[0] == '/')
		snprintf(path, sizeof(path), "%s", rel);
	else
		snprintf(path, sizeof(path), "%s/%s", T, rel);
	rule_put_grant(&sb, path);
	return out;
}

static const char *in_t(const char *rel)
{
	static char buf[PATH_BUF];

	snprintf(buf, sizeof(buf), "%s%s%s", T, *rel ? "/" : "", rel);
	return buf;
}

Test(grant, an_existing_path_is_itself)
{
	cr_assert_str_eq(grant("d/f"), in_t("d/f"));
	cr_assert_str_eq(grant("d"), in_t("d"));
	cr_assert_str_eq(grant("/"), "/");
}

Test(grant, a_symlink_is_its_directory)
{
	char path[PATH_BUF];

	/* --write d/dangling would name "nowhere" (and be refused, absent);
	 * --write d/lnk would grant d/f: the link itself is d's entry */
	cr_assert_str_eq(grant("d/dangling"), in_t("d"));
	snprintf(path, sizeof(path), "%s/d/lnk", T);
	cr_assert_eq(symlink("f", path), 0);
	cr_assert_str_eq(grant("d/lnk"), in_t("d"));
	snprintf(path, sizeof(path), "%s/d/loop", T);
	cr_assert_eq(symlink("loop", path), 0);
	cr_assert_str_eq(grant("d/loop"), in_t("d"));
	/* the twin: a path through a link is what it resolves to */
	cr_assert_str_eq(grant("d/f"), in_t("d/f"));
}

Test(grant, a_missing_path_is_its_nearest_existing_ancestor)
{
	cr_assert_str_eq(grant("d/new"), in_t("d"));
	cr_assert_str_eq(grant("d/new/a/b"), in_t("d"));
	cr_assert_str_eq(grant("new"), in_t(""));
	/* below a file, the file */
	cr_assert_str_eq(grant("d/f/x"), in_t("d/f"));
}

Test(grant, nothing_existing_but_the_root_is_the_root)
{
	char path[PATH_BUF];

	snprintf(path, sizeof(path), "/%s-absent/a/b", T + 5);
	cr_assert_str_eq(grant(path), "/");
	snprintf(path, sizeof(path), "/%s-absent", T + 5);
	cr_assert_str_eq(grant(path), "/");
}

/* ---- rule_put_udp() ------------------------------------------------ */

static const char *put_udp(bool bind, unsigned int port)
{
	struct strbuf sb = STRBUF(out, sizeof(out));

	rule_put_udp(&sb, &p, bind, port);
	return out;
}

Test(rule, udp_words)
{
	p.net = NET_OFF;
	cr_assert_str_eq(put_udp(false, 53), "network is off");
	p.net = NET_PORTS;
	p.connect_ports[0] = 53; /* a TCP port is no UDP one */
	p.nconnect = 1;
	cr_assert_str_eq(put_udp(false, 53), "no UDP connect port is allowed");
	p.connect_udp[0] = 53;
	p.connect_udp[1] = 123;
	p.nconnect_udp = 2;
	cr_assert_str_eq(put_udp(false, 54),
			 "UDP port 54 is not among the UDP connect ports 53, "
			 "123");
	cr_assert_str_eq(put_udp(true, 5353), "no UDP bind port is allowed");
}

/* ---- rule_put_tcp() ------------------------------------------------ */

Test(rule, tcp_network_off)
{
	p.net = NET_OFF;
	p.connect_ports[0] = 443;
	p.nconnect = 1;
	cr_assert_str_eq(put_tcp(false, 443), "network is off");
	cr_assert_str_eq(put_tcp(true, 80), "network is off");
}

Test(rule, tcp_no_port_of_that_kind)
{
	p.net = NET_PORTS;
	p.connect_ports[0] = 443;
	p.nconnect = 1;
	cr_assert_str_eq(put_tcp(true, 8000), "no TCP bind port is allowed");
	p.nconnect = 0;
	p.bind_ports[0] = 8000;
	p.nbind = 1;
	cr_assert_str_eq(put_tcp(false, 443), "no TCP connect port is allowed");
}

Test(rule, tcp_not_among_the_ports_of_its_kind)
{
	p.net = NET_PORTS;
	p.connect_ports[0] = 443;
	p.connect_ports[1] = 8080;
	p.nconnect = 2;
	p.bind_ports[0] = 0;
	p.nbind = 1;
	cr_assert_str_eq(
		put_tcp(false, 80),
		"TCP port 80 is not among the connect ports 443, 8080");
	cr_assert_str_eq(put_tcp(true, 8080),
			 "TCP port 8080 is not among the bind ports 0");
}

Test(rule, tcp_eight_ports_are_shown_then_an_ellipsis)
{
	p.net = NET_PORTS;
	for (unsigned int i = 0; i < 8; i++)
		p.connect_ports[i] = (uint16_t)(1000 + i);
	p.nconnect = 8;
	cr_assert_str_eq(put_tcp(false, 1),
			 "TCP port 1 is not among the connect ports 1000, "
			 "1001, 1002, 1003, 1004, 1005, 1006, 1007");
	p.connect_ports[8] = 1008;
	p.nconnect = 9;
	cr_assert_str_eq(put_tcp(false, 65535),
			 "TCP port 65535 is not among the connect ports 1000, "
			 "1001, 1002, 1003, 1004, 1005, 1006, 1007, ...");
}
