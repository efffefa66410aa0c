/* Unit tests of `cordon learn`'s folding (enforce/learn/learn_fold.c), its
 * store (enforce/learn/learn_store.c) and the "#!" parser they share with the
 * shim (shim/core/shebang.c). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "enforce/learn/learn_fold.h"
#include "enforce/learn/learn_store.h"
#include "shim/core/policy.h"
#include "shim/core/shebang.h"

static char dir[64];
static struct learn_run run;

static void mk(const char *rel)
{
	char p[PATH_BUF];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	cr_assert_eq(mkdir(p, 0755), 0, "mkdir %s", p);
}

static void touch(const char *rel)
{
	char p[PATH_BUF];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
}

static const char *at(const char *rel)
{
	static char p[4][PATH_BUF];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], PATH_BUF, "%s%s%s", dir, rel[0] ? "/" : "", rel);
	return p[i];
}

/* $dir/home (the home) and $dir/out made before the run; the run
 * begins right after (no sleep: learn_fold_mark() must tell them
 * apart from what is made next, in the same tick). */
static void setup(void)
{
	char *d;

	snprintf(dir, sizeof(dir), "/tmp/cordon-learn-unit.XXXXXX");
	d = mkdtemp(dir);
	cr_assert_not_null(d);
	mk("home");
	mk("out");
	touch("out/old");
	memset(&run, 0, sizeof(run));
	run.home = strdup(at("home"));
	snprintf(run.cwd, PATH_BUF, "%s", at("ws"));
	snprintf(run.tmp, PATH_BUF, "/var/tmp");
	learn_fold_mark(&run.start);
}

static void teardown(void)
{
	char cmd[PATH_BUF + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	free((char *)run.home);
}

TestSuite(learn, .init = setup, .fini = teardown);

/* learn_fold() of $dir/@rel with @rights is @grant, at $dir/@want. */
static void fold_is(const char *rel, unsigned int rights, int grant,
		    const char *want)
{
	char out[PATH_BUF];

	cr_assert_eq(learn_fold(&run, at(rel), rights, out), grant, "%s", rel);
	if (want)
		cr_assert_str_eq(out, at(want), "%s", rel);
}

Test(learn, a_file_written_where_it_was_goes_to_its_directory)
{
	fold_is("out/old", RIGHT_W, GRANT_ROOT, "out");
}

Test(learn, what_the_run_made_goes_to_the_nearest_older_ancestor)
{
	mk("out/new");
	mk("out/new/deep");
	touch("out/new/deep/f");
	fold_is("out/new/deep/f", RIGHT_W, GRANT_ROOT, "out");
	/* a program in it: the same */
	fold_is("out/new/deep/f", RIGHT_X, GRANT_ROOT, "out");
	/* made and removed: the same, from what is left */
	fold_is("out/gone/x", RIGHT_W, GRANT_ROOT, "out");
}

/* A directory made in the tick the run began, just before it, was
 * there; one made just after, in the same tick, was not (the coarse
 * clock alone took the first for the run's: a flaky profile). */
Test(learn, the_tick_the_run_began_is_told_apart)
{
	char name[64], out[PATH_BUF];

	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "out/before%d", i);
		mk(name);
		learn_fold_mark(&run.start);
		snprintf(name, sizeof(name), "out/before%d/new%d", i, i);
		mk(name);
		snprintf(name, sizeof(name), "out/before%d/new%d/f", i, i);
		touch(name);
		cr_assert_eq(learn_fold(&run, at(name), RIGHT_W, out),
			     GRANT_ROOT);
		snprintf(name, sizeof(name), "out/before%d", i);
		cr_assert_str_eq(out, at(name), "round %d", i);
	}
}

Test(learn, a_cache_the_run_made_in_home_is_to_be_made)
{
	mk("home/.cache");
	mk("home/.cache/tool");
	mk("home/.cache/tool/x");
	touch("home/.cache/tool/x/y");
	fold_is("home/.cache/tool/x/y", RIGHT_W, GRANT_CREATE,
		"home/.cache/tool");
	/* ~/.cache itself, made by the run: never the home */
	fold_is("home/.cache", RIGHT_W, GRANT_CREATE, "home/.cache");
}

Test(learn, a_file_made_right_in_home_is_not_granted)
{
	touch("home/report");
	fold_is("home/report", RIGHT_W, GRANT_NONE, NULL);
}

Test(learn, an_old_file_read_is_the_file)
{
	fold_is("out/old", RIGHT_R, GRANT_ROOT, "out/old");
}

Test(learn, tokens)
{
	char out[PATH_BUF];

	learn_token(&run, at("ws"), out);
	cr_assert_str_eq(out, ".");
	learn_token(&run, at("ws/build/x"), out);
	cr_assert_str_eq(out, "./build/x");
	learn_token(&run, at("wsx"), out); /* not inside */
	cr_assert_str_eq(out, at("wsx"));
	learn_token(&run, at("home/.cache/t"), out);
	cr_assert_str_eq(out, "~/.cache/t");
	learn_token(&run, "/var/tmp/cc1", out);
	cr_assert_str_eq(out, "$TMPDIR/cc1");
	learn_token(&run, "/var/tmpx", out);
	cr_assert_str_eq(out, "/var/tmpx");
	learn_token(&run, "/usr/lib", out);
	cr_assert_str_eq(out, "/usr/lib");
	/* "~" only for the home on a component boundary */
	learn_token(&run, at("homex/y"), out);
	cr_assert_str_eq(out, at("homex/y"));
	learn_token(&run, at("home"), out);
	cr_assert_str_eq(out, "~");
}

Test(learn, store_merges_and_finds)
{
	size_t n = learn_store_count();

	cr_assert(learn_store_add("/unit/a", RIGHT_R));
	cr_assert(learn_store_add("/unit/a", RIGHT_W));
	cr_assert(learn_store_add("/unit/b", 0));
	cr_assert_eq(learn_store_count(), n + 2);
	cr_assert_eq(learn_store_find("/unit/a")->rights, RIGHT_R | RIGHT_W);
	cr_assert_eq(learn_store_find("/unit/b")->rights, 0);
	cr_assert_null(learn_store_find("/unit/c"));
}

Test(learn, shebang)
{
	char buf[SHEBANG_BUF];

	snprintf(buf, sizeof(buf), "%s", "#! /usr/bin/env python3\nx");
	cr_assert(shebang_parse(buf, (long)strlen(buf)));
	cr_assert_str_eq(buf, "/usr/bin/env");
	snprintf(buf, sizeof(buf), "%s", "#!/bin/sh");
	cr_assert(shebang_parse(buf, (long)strlen(buf)));
	cr_assert_str_eq(buf, "/bin/sh");
	snprintf(buf, sizeof(buf), "%s", "#!  \n");
	cr_assert_not(shebang_parse(buf, (long)strlen(buf)));
	snprintf(buf, sizeof(buf), "%s",
		 "\x7f"
		 "ELF");
	cr_assert_not(shebang_parse(buf, 4));
	cr_assert_not(shebang_parse(buf, -1));
}
