/*
 * roots_fixture.h - the tree and the saved environment the roots and
 * protection tests run in (see test_roots.c's opening comment), made
 * fresh for each test.  Included by test_roots.c and test_protect.c.
 */
#ifndef CORDON_TEST_ROOTS_FIXTURE_H
#define CORDON_TEST_ROOTS_FIXTURE_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/cli/cli.h"
#include "enforce/policy/policy.h"
#include "shim/core/path.h"
#include "tmptree.h"
static char T[64];
static int cwd_fd = -1;
static const char *const saved_names[] = { "HOME", "XDG_STATE_HOME", "TMPDIR",
					   NULL };
static char *saved[3];

static struct policy p;
static struct cli c;
static char err[512];

/* "T/@rel" (T itself for ""), in one of a few rotating buffers. */
static inline const char *in_t(const char *rel)
{
	static char bufs[8][PATH_BUF];
	static size_t next;
	char *b = bufs[next++ % 8];

	snprintf(b, PATH_BUF, "%s%s%s", T, *rel ? "/" : "", rel);
	return b;
}

static inline void mk_dir(const char *rel)
{
	cr_assert_eq(mkdir(in_t(rel), 0755), 0, "fixture: %s: %s", rel,
		     strerror(errno));
}

static inline void mk_file(const char *rel)
{
	int fd = open(in_t(rel), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0, "fixture: %s: %s", rel, strerror(errno));
	close(fd);
}

static inline void mk_link(const char *target, const char *rel)
{
	cr_assert_eq(symlink(target, in_t(rel)), 0, "fixture: %s: %s", rel,
		     strerror(errno));
}

/*
 * T must lie outside the default roots (/tmp, /var/tmp, /dev/shm are
 * writable by default, which would hide what the requests add): under
 * $HOME, as the integration tests do, else under the working directory.
 */
static inline bool outside_defaults(const char *dir)
{
	static const char *const temp[] = { "/tmp", "/var/tmp", "/dev/shm",
					    NULL };

	for (size_t i = 0; temp[i]; i++)
		if (path_is_within(dir, temp[i]))
			return false;
	return true;
}

static inline void make_t(void)
{
	char cwd[PATH_BUF], base[PATH_BUF], tmpl[PATH_BUF];
	const char *home = getenv("HOME");
	char *t;

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	for (int i = 0; i < 2; i++) {
		const char *b = i == 0 ? home : cwd;

		if (!b || b[0] != '/' || !realpath(b, base) ||
		    !outside_defaults(base))
			continue;
		if (snprintf(tmpl, sizeof(tmpl), "%.64s/.cordon-roots-XXXXXX",
			     base) < (int)sizeof(T) &&
		    mkdtemp(tmpl))
			break;
		tmpl[0] = '\0';
	}
	cr_assert(tmpl[0] == '/',
		  "fixture: neither $HOME nor the working directory is "
		  "outside /tmp, /var/tmp and /dev/shm with room for T");
	t = realpath(tmpl, NULL);
	cr_assert_not_null(t);
	memcpy(T, t, strlen(t) + 1);
	free(t);
}

static inline void setup(void)
{
	for (size_t i = 0; saved_names[i]; i++) {
		const char *v = getenv(saved_names[i]);

		saved[i] = v ? strdup(v) : NULL;
	}
	cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(cwd_fd, 0);
	make_t();
	mk_dir("ws");
	mk_dir("home");
	mk_file("home/.bashrc");
	mk_dir("data");
	mk_dir("ro");
	mk_file("ro/file");
	mk_dir("real");
	mk_dir("real/sub");
	mk_link("real", "lnk");
	mk_link("lnk", "l2");
	mk_link("home", "homelink");
	cr_assert_eq(chdir(in_t("ws")), 0);
	setenv("HOME", in_t("home"), 1);
	unsetenv("XDG_STATE_HOME");
	unsetenv("TMPDIR");
}

static inline void teardown(void)
{
	policy_free(&p);
	policy_free(&c.policy);
	if (cwd_fd >= 0 && fchdir(cwd_fd) == 0)
		close(cwd_fd);
	for (size_t i = 0; saved_names[i]; i++) {
		if (saved[i])
			setenv(saved_names[i], saved[i], 1);
		else
			unsetenv(saved_names[i]);
		free(saved[i]);
	}
	tmptree_remove(T);
}

/* The root at @path (of the origin @o, or any when -1), or NULL. */
static inline const struct root *find(const char *path, int o)
{
	for (size_t i = 0; i < p.nroots; i++)
		if (strcmp(p.roots[i].path, path) == 0 &&
		    (o < 0 || p.roots[i].origin == (enum root_origin)o))
			return &p.roots[i];
	return NULL;
}

static inline void has_root(const char *path, unsigned int rights,
			    enum root_origin o, bool dir)
{
	const struct root *r = find(path, (int)o);
	char b[POLICY_RIGHTS_STR];

	cr_assert_not_null(r, "no root %s of origin %d", path, o);
	cr_assert_eq(r->rights, rights, "%s is %s", path,
		     policy_rights_str(r->rights, b));
	cr_assert_eq(r->is_dir, dir, "%s: is_dir %d", path, r->is_dir);
}

/* cordon ARGS... true, parsed, then its roots built into p. */
static inline int build(const char *a1, const char *a2, const char *a3,
			const char *a4)
{
	const char *args[] = { a1, a2, a3, a4 };
	char *argv[8] = { "cordon" };
	int argc = 1, ret;

	for (size_t i = 0; i < 4 && args[i]; i++)
		argv[argc++] = (char *)args[i];
	argv[argc++] = "true";
	argv[argc] = NULL;
	ret = cli_parse(argc, argv, &c, err, sizeof(err));
	cr_assert_eq(ret, 0, "cli_parse: %s", err);
	err[0] = '\0';
	return roots_build(&c, &p, err, sizeof(err));
}

#endif
