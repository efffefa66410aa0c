/*
 * Unit tests of the Seatbelt profile generator (enforce/darwin/sbpl.c).
 *
 * The modes and the edge cases are compared byte for byte with golden
 * profiles in tests/unit/golden/sbpl/ (run from the top of the tree, as
 * `make unit` does).  CORDON_UPDATE_GOLDEN=1 writes them anew instead:
 * review the diff by eye, a golden that encodes a wrong profile is a
 * defect.  Hostile paths are checked with a small S-expression reader:
 * balanced parentheses outside strings, every string terminated, no
 * path outside a string, and every path read back as it was.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/core/path.h"
#include "enforce/darwin/sbpl.h"
#include "enforce/policy/policy.h"

#define GOLDEN_DIR "tests/unit/golden/sbpl/"
#include "sbpl_fixture.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(PROFILE_MAX + 1);
	size_t n;

	cr_assert_not_null(buf);
	if (!f) {
		free(buf);
		return NULL;
	}
	n = fread(buf, 1, PROFILE_MAX, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static size_t line_of(const char *s, size_t off)
{
	size_t line = 1;

	for (size_t i = 0; i < off; i++)
		line += s[i] == '\n';
	return line;
}

/* The profile of @p on @h is byte for byte GOLDEN_DIR/@name.sb. */
static void golden(const char *name, const struct sbpl_host *h)
{
	char path[256];
	const char *got = render(h);
	char *want;
	size_t i = 0;

	snprintf(path, sizeof(path), GOLDEN_DIR "%s.sb", name);
	if (getenv("CORDON_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "wb");

		cr_assert_not_null(f, "cannot write %s", path);
		fputs(got, f);
		cr_assert_eq(fclose(f), 0);
		return;
	}
	want = slurp(path);
	cr_assert_not_null(want, "no %s (CORDON_UPDATE_GOLDEN=1 makes it)",
			   path);
	while (got[i] && got[i] == want[i])
		i++;
	cr_assert(got[i] == want[i],
		  "%s differs from the profile at line %zu "
		  "(CORDON_UPDATE_GOLDEN=1 rewrites it; review the diff)",
		  path, line_of(want, i));
	free(want);
}

/* ---- a small reader of the profile ---- */

struct sexp {
	int depth;
	size_t strings;
	char decoded[512][PATH_BUF + 64]; /* the string literals, decoded */
	size_t ndecoded;
	char skeleton[PROFILE_MAX]; /* the text with strings emptied */
	char comments[PROFILE_MAX]; /* every comment, one per line */
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Read the string literal at @s (after its '"'); return what follows,
 * or NULL when it is not terminated or holds a raw control byte. */
static const char *read_string(struct sexp *x, const char *s)
{
	char *d = x->ndecoded < 512 ? x->decoded[x->ndecoded] : NULL;
	size_t n = 0;

	for (; *s && *s != '"'; s++) {
		int c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			return NULL;
		if (c == '\\') {
			s++;
			if (*s == '"' || *s == '\\') {
				c = *s;
			} else if (*s == 'x' && hexval(s[1]) >= 0 &&
				   hexval(s[2]) >= 0) {
				c = hexval(s[1]) * 16 + hexval(s[2]);
				s += 2;
			} else {
				return NULL; /* an escape sbpl.c never writes */
			}
		}
		if (d && n < PATH_BUF + 63)
			d[n++] = (char)c;
	}
	if (*s != '"')
		return NULL;
	if (d) {
		d[n] = '\0';
		x->ndecoded++;
	}
	x->strings++;
	return s + 1;
}

/* True when @text is well formed; fills @x. */
static bool read_sexp(const char *text, struct sexp *x)
{
	size_t sk = 0, cm = 0;

	memset(x, 0, sizeof(*x));
	for (const char *s = text; *s;) {
		if (*s == ';') {
			while (*s && *s != '\n')
				x->comments[cm++] = *s++;
			x->comments[cm++] = '\n';
			continue;
		}
		if (*s == '#' && s[1] == '"') {
			/* a fixed regular expression: up to the next quote */
			const char *end = strchr(s + 2, '"');

			if (!end)
				return false;
			s = end + 1;
			x->skeleton[sk++] = 'R';
			continue;
		}
		if (*s == '"') {
			s = read_string(x, s + 1);
			if (!s)
				return false;
			x->skeleton[sk++] = '"';
			x->skeleton[sk++] = '"';
			continue;
		}
		if (*s == '(')
			x->depth++;
		if (*s == ')' && --x->depth < 0)
			return false;
		x->skeleton[sk++] = *s++;
	}
	x->skeleton[sk] = x->comments[cm] = '\0';
	return x->depth == 0;
}

static bool decoded(const struct sexp *x, const char *want)
{
	for (size_t i = 0; i < x->ndecoded; i++)
		if (strcmp(x->decoded[i], want) == 0)
			return true;
	return false;
}

static struct sexp sx;

/* ---- the named modes ---- */

Test(sbpl, read_only_mode)
{
	read_only();
	golden("read-only", &mac);
}

Test(sbpl, workspace_write_mode)
{
	workspace_write();
	golden("workspace-write", &mac);
}

Test(sbpl, workspace_net_mode)
{
	workspace_write();
	p.net = NET_ON;
	golden("workspace-net", &mac);
}

Test(sbpl, net_ports)
{
	workspace_write();
	p.net = NET_PORTS;
	p.connect_ports[p.nconnect++] = 443;
	p.connect_ports[p.nconnect++] = 22;
	p.bind_ports[p.nbind++] = 8000;
	golden("net-ports", &mac);
}

/* --bind 0: the port the kernel picks takes connections, and only the
 * listed ports are bound; --connect 0 is port 0, never every port. */
Test(sbpl, net_ephemeral_bind)
{
	workspace_write();
	p.net = NET_PORTS;
	p.connect_ports[p.nconnect++] = 0;
	p.bind_ports[p.nbind++] = 0;
	render(&mac);
	cr_assert(strstr(out, "(allow network-outbound\n"
			      "\t(remote tcp \"*:0\"))\n"));
	cr_assert(strstr(out, "(allow network-bind\n"
			      "\t(local tcp \"*:0\"))\n"));
	cr_assert(strstr(out, "(allow network-inbound\n"
			      "\t(local tcp \"*:*\"))\n"));
	cr_assert_null(strstr(out, "(remote tcp \"*:*\")"));
}

/* --no-defaults -x /usr -x /bin: no toolchain prefixes, no temp dirs,
 * no terminal of its own, no shim. */
Test(sbpl, no_defaults)
{
	const struct sbpl_host bare = { .tmp = "/private/tmp",
					.var = "/private/var",
					.etc = "/private/etc",
					.home = HOME,
					.tmpdir = TMPDIR,
					.cachedir = CACHE };

	add("/usr", RX, ORIGIN_USER, DIR);
	add("/bin", RX, ORIGIN_USER, DIR);
	golden("no-defaults", &bare);
}

/* -p cargo on workspace-write: ~/.cargo writable, its bin and rustup
 * executable (the built-in profile's roots are the user's). */
Test(sbpl, cargo_profile)
{
	workspace_write();
	add(HOME "/.cargo", RW, ORIGIN_USER, DIR);
	add(HOME "/.cargo/bin", RX, ORIGIN_USER, DIR);
	add(HOME "/.rustup", RX, ORIGIN_USER, DIR);
	golden("cargo", &mac);
}

/* ---- edge cases ---- */

/* Quotes, backslashes, spaces, UTF-8 and control bytes in user paths. */
Test(sbpl, hostile_paths)
{
	workspace_write();
	add(HOME "/with \"quotes\"", RIGHT_R, ORIGIN_USER, DIR);
	add(HOME "/back\\slash\\", RW, ORIGIN_USER, DIR);
	add(HOME "/two  spaces and tab\there", RIGHT_R, ORIGIN_USER, DIR);
	add(HOME "/caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x98\x80",
	    RIGHT_ALL, ORIGIN_USER, DIR);
	add(HOME "/new\nline", RW, ORIGIN_USER, DIR);
	add(HOME "/x\")) (allow default) ; (", RIGHT_R, ORIGIN_USER, REG);
	golden("hostile-paths", &mac);
}

/* Roots given through the links (as the shim's standalone mode or a
 * profile built on another machine would): written with their
 * targets, since Seatbelt matches the resolved path. */
Test(sbpl, symlinked_tmp_var_etc)
{
	add("/tmp", RIGHT_ALL, ORIGIN_DEFAULT, DIR);
	add("/var/tmp", RIGHT_ALL, ORIGIN_DEFAULT, DIR);
	add("/var/folders/zz/abc123/T", RIGHT_ALL, ORIGIN_DEFAULT, DIR);
	add("/etc/hosts", RIGHT_R, ORIGIN_USER, REG);
	add("/tmpfoo", RIGHT_R, ORIGIN_USER, DIR);   /* not /tmp */
	add("/variable", RIGHT_R, ORIGIN_USER, DIR); /* not /var */
	golden("symlinked-tmp-var", &mac);
}

/* The same roots on a host where /tmp is no link: left as they are. */
Test(sbpl, unlinked_tmp_is_kept)
{
	const struct sbpl_host plain = { .home = HOME };

	add("/tmp", RIGHT_ALL, ORIGIN_DEFAULT, DIR);
	add("/etc/hosts", RIGHT_R, ORIGIN_USER, REG);
	render(&plain);
	cr_assert(strstr(out, "(subpath \"/tmp\")"));
	cr_assert(strstr(out, "(literal \"/etc/hosts\")"));
	cr_assert_null(strstr(out, "/private"));
	cr_assert_null(strstr(out, "(literal \"/tmp\")\n"));
}

/*
 * Protected paths: the workspace is $HOME (so the shell's files are
 * protected in it), a submodule's hooks deep inside, a --write that
 * lifts the protection of one hook, a secret.  Each directory above a
 * protected path that the policy lets the command write is pinned.
 */
Test(sbpl, protected_ancestors)
{
	add("/usr", RX, ORIGIN_DEFAULT, DIR);
	add(HOME, RIGHT_ALL, ORIGIN_DEFAULT, DIR);
	add(HOME "/.zshrc", RX, ORIGIN_PROTECTED, REG);
	add(HOME "/.config/fish", RX, ORIGIN_PROTECTED, DIR);
	add(HOME "/proj/vendor/lib/.git/hooks", RX, ORIGIN_PROTECTED, DIR);
	add(HOME "/proj/vendor/lib/.git/hooks/local", RW, ORIGIN_USER, DIR);
	add("/private/etc/ssh/ssh_host_ed25519_key", 0, ORIGIN_PROTECTED, REG);
	golden("protected-ancestors", &mac);
}

/* The deny of a protected path comes after the roots around it and
 * before the root nested in it (the last matching rule decides). */
Test(sbpl, protection_order)
{
	const char *ws, *deny, *lift;

	add(HOME "/proj/.git/hooks/local", RW, ORIGIN_USER, DIR);
	add(HOME "/proj/.git/hooks", RX, ORIGIN_PROTECTED, DIR);
	add(HOME "/proj", RIGHT_ALL, ORIGIN_DEFAULT, DIR);
	render(&mac);
	ws = strstr(out, "(subpath \"" HOME "/proj\"))");
	deny = strstr(out, "(deny file-write* file-ioctl (subpath \"" HOME
			   "/proj/.git/hooks\"))");
	lift = strstr(out, "(allow file-read* file-write* file-ioctl "
			   "(subpath \"" HOME "/proj/.git/hooks/local\"))");
	cr_assert(ws && deny && lift, "%s", out);
	cr_assert(ws < deny && deny < lift);
}

Test(sbpl, temp_dirs_follow_tmp)
{
	read_only();
	render(&mac);
	cr_assert_null(strstr(out, TMPDIR), "read-only: no temp dir");
	cr_assert_null(strstr(out, "ipc-posix-sem"));
	fini();
	workspace_write();
	render(&mac);
	cr_assert(strstr(out, "(subpath \"" CACHE "\")"));
	cr_assert(strstr(out, "(allow ipc-posix-shm ipc-posix-sem)"));
}

Test(sbpl, preferences_only_when_readable)
{
	workspace_write();
	render(&mac);
	cr_assert_null(strstr(out, "user-preference-read"));
	add(HOME "/Library/Preferences", RIGHT_R, ORIGIN_USER, DIR);
	render(&mac);
	cr_assert(strstr(out, "(allow user-preference-read)\n"));
}

/* A rule without a filter would match everything: never for the
 * directories above the roots, even when there is none to list. */
Test(sbpl, no_filterless_metadata_rule)
{
	add("/", RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, DIR);
	render(&mac);
	cr_assert_null(strstr(out, "(allow file-read-metadata)"));
	cr_assert_null(strstr(out, "(allow file-read-metadata\n)"));
	cr_assert(read_sexp(out, &sx));
	cr_assert_null(strstr(sx.skeleton, "(allow file-read-metadata)"));
}

/* ---- hostile paths: well formed, and read back as given ---- */

static const char *const hostile[] = {
	"/h/quote\"inside",
	"/h/trailing\\",
	"/h/\\\"both",
	"/h/paren) (allow default",
	"/h/x\")) (allow default) ; (",
	"/h/semi;colon",
	"/h/#\"raw\"",
	"/h/new\nline",
	"/h/cr\rtab\t",
	"/h/ctrl\x01\x1b\x1f",
	"/h/del\x7f",
	"/h/sp ace",
	"/h/\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
	"/h/\xef\xbf\xbd",
	"/h/"
	"\xf4\x8f\xbf\xbf", /* U+10FFFF */
};

Test(sbpl, hostile_paths_are_well_formed)
{
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		fini();
		add("/usr", RX, ORIGIN_DEFAULT, DIR);
		add(hostile[i], RIGHT_ALL, ORIGIN_USER, DIR);
		add(hostile[i], RIGHT_R, ORIGIN_PROTECTED, DIR);
		render(&mac);
		cr_assert(read_sexp(out, &sx), "not well formed: %zu", i);
		cr_assert(decoded(&sx, hostile[i]), "not read back: %zu", i);
		cr_assert_null(strstr(sx.comments, "/h/"),
			       "a path in a comment: %zu", i);
		cr_assert_null(strstr(sx.skeleton, "(allow default"),
			       "a rule outside a string: %zu", i);
		cr_assert_null(strstr(sx.skeleton, "/h/"),
			       "a path outside a string: %zu", i);
	}
}

Test(sbpl, not_utf8_is_refused)
{
	static const char *const bad[] = {
		"/h/\xff",
		"/h/\xc0\xaf",	       /* overlong '/' */
		"/h/\xe0\x80\xaf",     /* overlong '/' */
		"/h/\xed\xa0\x80",     /* a surrogate */
		"/h/\xf4\x90\x80\x80", /* above U+10FFFF */
		"/h/\xe6\x97",	       /* cut short */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct strbuf sb = STRBUF(out, sizeof(out));

		fini();
		add(bad[i], RIGHT_R, ORIGIN_USER, DIR);
		cr_assert_eq(sbpl_render(&p, &mac, &sb, err, sizeof(err)),
			     -EILSEQ, "%zu", i);
		cr_assert(strstr(err, "not UTF-8"), "%s", err);
		cr_assert_null(strchr(err, '\n'));
	}
}

Test(sbpl, relative_paths_are_refused)
{
	struct strbuf sb = STRBUF(out, sizeof(out));

	add("relative/dir", RIGHT_R, ORIGIN_USER, DIR);
	cr_assert_eq(sbpl_render(&p, &mac, &sb, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "'relative/dir': not absolute"), "%s", err);
}

Test(sbpl, small_buffer_is_enospc)
{
	static char small[256];
	struct strbuf sb = STRBUF(small, sizeof(small));

	workspace_write();
	cr_assert_eq(sbpl_render(&p, &mac, &sb, err, sizeof(err)), -ENOSPC);
	cr_assert(strstr(err, "larger than 256 bytes"), "%s", err);
}

Test(sbpl, every_golden_is_well_formed)
{
	static const char *const names[] = {
		"read-only",	 "workspace-write",   "workspace-net",
		"net-ports",	 "no-defaults",	      "cargo",
		"hostile-paths", "symlinked-tmp-var", "protected-ancestors",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[256];
		char *text;

		snprintf(path, sizeof(path), GOLDEN_DIR "%s.sb", names[i]);
		text = slurp(path);
		if (!text && getenv("CORDON_UPDATE_GOLDEN"))
			continue;
		cr_assert_not_null(text, "no %s", path);
		cr_assert(read_sexp(text, &sx), "%s is not well formed", path);
		cr_assert(strncmp(text, "(version 1)\n", 12) == 0);
		cr_assert(strstr(sx.skeleton, "(deny default)"));
		free(text);
	}
}
