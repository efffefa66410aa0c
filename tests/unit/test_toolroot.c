/*
 * Unit tests of the tools' roots (shim/core/toolroot.c) and of the
 * grants they make (rule_grant(): shim/core/rule.c): a refusal under
 * ~/.rustup is an --exec of ~/.rustup, under ~/.npm a --write of
 * ~/.npm, a cache not there yet a --create of it; $HOME, / and a file's
 * directory in $HOME are never the grant where a narrower one exists.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/policy/policy.h"
#include "shim/core/path.h"
#include "shim/core/rule.h"
#include "shim/core/toolroot.h"
#include "tmptree.h"

static char home[PATH_BUF];
static struct policy p;

/* ~/@sub, absolute. */
static const char *at_home(const char *sub)
{
	static char path[PATH_BUF + 64];

	snprintf(path, sizeof(path), "%s/%s", home, sub);
	return path;
}

static void mk(const char *sub)
{
	cr_assert_eq(mkdir(at_home(sub), 0755), 0, "%s", sub);
}

static void init(void)
{
	char tmpl[] = "/tmp/cordon-toolroot-XXXXXX", canon[PATH_BUF];

	cr_assert(mkdtemp(tmpl));
	cr_assert_eq(path_resolve(AT_FDCWD, tmpl, 0, canon), 0);
	snprintf(home, sizeof(home), "%s", canon);
	memset(&p, 0, sizeof(p));
	p.home = strdup(home);
	cr_assert_eq(policy_add_root(&p, "/usr", RIGHT_R | RIGHT_X,
				     ORIGIN_DEFAULT, true),
		     0);
}

static void fini(void)
{
	policy_free(&p);
	tmptree_remove(home);
}

TestSuite(toolroot, .init = init, .fini = fini);

/* toolroot_of() of ~/@sub: the root's path below $HOME, or NULL. */
static const char *root_of(const char *sub, const struct toolroot **tr)
{
	static char out[PATH_BUF];
	char path[PATH_BUF + 64];

	snprintf(path, sizeof(path), "%s/%s", home, sub);
	*tr = toolroot_of(home, path, out);
	if (!*tr)
		return NULL;
	cr_assert(path_is_within(out, home));
	return out + strlen(home) + 1;
}

Test(toolroot, the_most_specific_root_holds_a_path)
{
	const struct toolroot *tr;

	cr_assert_str_eq(root_of(".rustup/toolchains/s/bin/rustc", &tr),
			 ".rustup");
	cr_assert_eq(tr->right, RIGHT_X);
	cr_assert_str_eq(tr->profile, "cargo");
	cr_assert_str_eq(root_of(".npm/_npx/ab/node_modules/.bin/x", &tr),
			 ".npm/_npx");
	cr_assert_eq(tr->right, RIGHT_X);
	cr_assert_str_eq(root_of(".npm/_cacache/index-v5/b8/65", &tr), ".npm");
	cr_assert_eq(tr->right, RIGHT_W);
	cr_assert_str_eq(root_of(".cargo/bin/cargo", &tr), ".cargo/bin");
	cr_assert_str_eq(root_of(".cargo/registry/index/x", &tr), ".cargo");
	cr_assert_str_eq(root_of(".pyenv/shims/python3", &tr), ".pyenv");
	cr_assert_str_eq(tr->profile, "pyenv");
	cr_assert_str_eq(root_of(".cache/pip/http/a", &tr), ".cache/pip");
	cr_assert_str_eq(tr->profile, "pip");
	/* XDG's cache: the tool's own directory, no profile */
	cr_assert_str_eq(root_of(".cache/sometool/x/y", &tr),
			 ".cache/sometool");
	cr_assert_null(tr->profile);
	cr_assert_str_eq(root_of(".cache/sometool", &tr), ".cache/sometool");
}

Test(toolroot, none_outside_the_tools)
{
	const struct toolroot *tr;
	char out[PATH_BUF];

	cr_assert_null(root_of(".demo/config", &tr));
	cr_assert_null(root_of(".cache", &tr));
	cr_assert_null(root_of(".npmx/a", &tr));
	cr_assert_null(root_of(".rustupx", &tr));
	cr_assert_null(root_of(".gitconfig", &tr));
	cr_assert_null(toolroot_of(home, home, out));
	cr_assert_null(toolroot_of(home, "/usr/bin/cc", out));
	cr_assert_null(toolroot_of(NULL, "/root/.rustup/x", out));
	cr_assert_null(toolroot_of("/", "/.rustup/x", out));
}

Test(toolroot, the_need_of_a_grant_there)
{
	const struct toolroot *tr;

	root_of(".rustup/x", &tr);
	cr_assert_eq(toolroot_need(tr, RIGHT_R), RIGHT_R | RIGHT_X);
	cr_assert_eq(toolroot_need(tr, 0), RIGHT_R | RIGHT_X);
	cr_assert_eq(toolroot_need(tr, RIGHT_R | RIGHT_W), RIGHT_R | RIGHT_W);
	root_of(".npm/x", &tr);
	cr_assert_eq(toolroot_need(tr, RIGHT_R), RIGHT_R | RIGHT_W);
	cr_assert_eq(toolroot_need(tr, RIGHT_R | RIGHT_X), RIGHT_R | RIGHT_X);
}

/* rule_put_option() of @need on ~/@sub by @op, the home shown as "~". */
static const char *option(const char *op, unsigned int need, const char *sub)
{
	static char out[PATH_BUF], shown[PATH_BUF];
	char path[PATH_BUF + 64], *at;
	struct strbuf sb = STRBUF(out, sizeof(out));

	snprintf(path, sizeof(path), "%s/%s", home, sub);
	if (!rule_put_option(&sb, &p, op, need, path))
		return "";
	at = strstr(out, home);
	if (!at)
		return out;
	snprintf(shown, sizeof(shown), "%.*s~%s", (int)(at - out), out,
		 at + strlen(home));
	return shown;
}

Test(toolroot, a_toolchain_is_granted_whole_with_exec)
{
	mk(".rustup");
	mk(".rustup/toolchains");
	cr_assert_str_eq(option("execve", RIGHT_X, ".rustup/toolchains/rustc"),
			 "--exec ~/.rustup");
	/* its libraries, mapped by the loader, read: exec too */
	cr_assert_str_eq(option("open", RIGHT_R, ".rustup/toolchains"),
			 "--exec ~/.rustup");
	/* seen (stat) */
	mk(".pyenv");
	cr_assert_str_eq(option("stat", 0, ".pyenv/shims/python3"),
			 "--exec ~/.pyenv");
}

Test(toolroot, a_cache_is_granted_whole_with_write)
{
	mk(".npm");
	mk(".npm/_cacache");
	cr_assert_str_eq(option("rename", RIGHT_W, ".npm/_cacache/index/b8/65"),
			 "--write ~/.npm");
	cr_assert_str_eq(option("open", RIGHT_R, ".npm/_cacache"),
			 "--write ~/.npm");
}

Test(toolroot, a_cache_not_there_yet_is_created)
{
	mk(".cache");
	cr_assert_str_eq(option("mkdir", RIGHT_W, ".cache/pip"),
			 "--create ~/.cache/pip");
	cr_assert_str_eq(option("open", RIGHT_W, ".cache/pip/http/x"),
			 "--create ~/.cache/pip");
	/* ~/.cache itself missing: made, never $HOME */
	cr_assert_eq(rmdir(at_home(".cache")), 0);
	cr_assert_str_eq(option("mkdir", RIGHT_W, ".cache"),
			 "--create ~/.cache");
}

Test(toolroot, a_directory_made_in_home_is_created_not_home)
{
	cr_assert_str_eq(option("mkdir", RIGHT_W, ".demo"), "--create ~/.demo");
	cr_assert_str_eq(option("mkdirat", RIGHT_W, ".demo"),
			 "--create ~/.demo");
}

Test(toolroot, other_files_stay_exact)
{
	mk(".demo");
	cr_assert_eq(close(creat(at_home(".demo/config"), 0644)), 0);
	cr_assert_str_eq(option("open", RIGHT_R, ".demo/config"),
			 "--read ~/.demo/config");
}
