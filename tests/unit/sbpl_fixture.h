/*
 * sbpl_fixture.h - a Mac as the Seatbelt generator's tests see it: the
 * policy under test, the host, the modes' roots, and render().  For
 * test_sbpl*.c (one translation unit each).
 */
#ifndef CORDON_SBPL_FIXTURE_H
#define CORDON_SBPL_FIXTURE_H

#include <criterion/criterion.h>
#include <string.h>

#include "shim/core/path.h"
#include "enforce/darwin/sbpl.h"
#include "enforce/policy/policy.h"

#define PROFILE_MAX (1 << 20)

static struct policy p;
static char out[PROFILE_MAX];
static char err[1024];

static inline void fini(void)
{
	policy_free(&p);
	memset(&p, 0, sizeof(p));
}

TestSuite(sbpl, .fini = fini);

#define HOME	"/Users/dev"
#define WS	HOME "/proj"
#define TMPDIR	"/private/var/folders/zz/abc123/T"
#define CACHE	"/private/var/folders/zz/abc123/C"
#define SHIMLIB HOME "/src/cordon/build/libcordon.dylib"

static const char *const mac_system[] = {
	"/Library/Developer/CommandLineTools",
	"/opt/homebrew",
	NULL,
};

/* A Mac as the launcher sees it: /tmp, /var and /etc lead to /private. */
static const struct sbpl_host mac = {
	.tmp = "/private/tmp",
	.var = "/private/var",
	.etc = "/private/etc",
	.home = HOME,
	.tmpdir = TMPDIR,
	.cachedir = CACHE,
	.tty = "/dev/ttys003",
	.report = HOME "/.local/state/cordon/cordon-4242.sock",
	.system = mac_system,
};

static inline void add(const char *path, unsigned int rights,
		       enum root_origin o, bool is_dir)
{
	cr_assert_eq(policy_add_root(&p, path, rights, o, is_dir), 0);
}

#define RX  (RIGHT_R | RIGHT_X)
#define RW  (RIGHT_R | RIGHT_W)
#define DIR true
#define REG false

/* What roots.c makes of the system defaults on a Mac (paths resolved:
 * /etc is /private/etc; /lib*, /proc, /sys, /dev/full and /dev/pts do
 * not exist there and are skipped), and the system's hidden secrets. */
static inline void system_defaults(void)
{
	static const char *const devices[] = {
		"/dev/null",	"/dev/zero", "/dev/random",
		"/dev/urandom", "/dev/tty",  "/dev/ptmx",
	};

	add("/usr", RX, ORIGIN_DEFAULT, DIR);
	add("/bin", RX, ORIGIN_DEFAULT, DIR);
	add("/sbin", RX, ORIGIN_DEFAULT, DIR);
	add("/private/etc", RX, ORIGIN_DEFAULT, DIR);
	add("/opt", RX, ORIGIN_DEFAULT, DIR);
	for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]); i++)
		add(devices[i], RW, ORIGIN_DEFAULT, REG);
	add("/dev", RIGHT_R, ORIGIN_DEFAULT, DIR);
	add(HOME "/.zshrc", RIGHT_R, ORIGIN_DEFAULT, REG);
	add(HOME "/.zprofile", RIGHT_R, ORIGIN_DEFAULT, REG);
}

static inline void secrets(void)
{
	add("/private/etc/ssh/ssh_host_ed25519_key", 0, ORIGIN_PROTECTED, REG);
	add("/private/etc/ssh/ssh_host_rsa_key", 0, ORIGIN_PROTECTED, REG);
}

/* --mode read-only: the workspace readable and executable. */
static inline void read_only(void)
{
	system_defaults();
	add(WS, RX, ORIGIN_DEFAULT, DIR);
	secrets();
	p.net = NET_OFF;
}

/* --mode workspace-write (the default): the workspace and the temp dirs
 * writable, git's hooks and config protected, the shim's library. */
static inline void workspace_write(void)
{
	system_defaults();
	add(WS, RIGHT_ALL, ORIGIN_DEFAULT, DIR);
	add("/private/tmp", RIGHT_ALL, ORIGIN_DEFAULT, DIR);
	add("/private/var/tmp", RIGHT_ALL, ORIGIN_DEFAULT, DIR);
	add(TMPDIR, RIGHT_ALL, ORIGIN_DEFAULT, DIR);
	add(SHIMLIB, RX, ORIGIN_DEFAULT, REG);
	add(WS "/.git/hooks", RX, ORIGIN_PROTECTED, DIR);
	add(WS "/.git/config", RX, ORIGIN_PROTECTED, REG);
	secrets();
	p.net = NET_OFF;
}

static inline const char *render(const struct sbpl_host *h)
{
	struct strbuf sb = STRBUF(out, sizeof(out));
	int ret = sbpl_render(&p, h, &sb, err, sizeof(err));

	cr_assert_eq(ret, 0, "sbpl_render: %d: %s", ret, err);
	return out;
}

#endif
