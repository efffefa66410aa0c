/*
 * profile.c - policies kept in files: `--profile FILE|NAME`.
 *
 * A profile is a JSON object (parsed by jansson), every key optional:
 *
 *   {
 *     "mode": "read-only" | "workspace-write" | "workspace-net" |
 *             "full-dev" | "ci",
 *     "read":  ["~/datasets", "/srv/data"],
 *     "write": ["~/.cache/pip"],
 *     "exec":  ["~/.cargo/bin"],
 *     "create": ["~/.cache/tool"],
 *     "net": true | false,
 *     "connect": [443, "8000-8010"],
 *     "bind": [8000],
 *     "connect_unix": ["/run/user/1000/bus"],
 *     "allow_hosts": ["registry.npmjs.org", "*.example.com:8443"],
 *     "env": ["CARGO_*", "CI=1"],
 *     "inherit_env": false
 *   }
 *
 * Paths are as on the command line (~ and . expand; a relative path is
 * the workspace's), and "$TMPDIR" at the start of one is the temp
 * directory ($TMPDIR, else /tmp): what `cordon learn` writes, so that a
 * profile moves with the workspace.  "create" names directories that a
 * run makes (a cache in $HOME): made (with their parents, as mkdir -p)
 * before a run or a learning run when missing, then writable; `cordon
 * explain` makes nothing and skips the missing ones, and the profile's
 * other paths inside them.  Profiles and flags
 * compose: the roots, ports and variables add up; for "mode", "net" and
 * "inherit_env" a flag wins over every profile, and a later profile over
 * an earlier one.  A NAME without a slash that is not a file is one of
 * the built-in profiles below; a profile is never read from the
 * workspace unless named on the command line.  The paths of a built-in
 * profile that do not exist on this machine are skipped; those of a
 * file must exist, as for the flags.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "enforce/base/base.h"
#include "enforce/policy/policy.h"
#include "shim/core/path.h"
#include "shim/core/policy.h"

/* The built-in profiles; @tool: the program whose presence on PATH
 * makes full-dev make the profile's caches ("create") before the run,
 * so that a first use finds them (they are made whenever the profile
 * is named).  No profile here makes writable what a shell or PATH runs
 * outside (toolroot.h's protected files: roots.c keeps them read-only
 * whatever a profile grants). */
static const struct builtin {
	const char *name;
	const char *json;
	const char *tool;
} builtins[] = {
	{ "read-only", "{\"mode\": \"read-only\"}", NULL },
	{ "workspace-write", "{\"mode\": \"workspace-write\"}", NULL },
	{ "workspace-net", "{\"mode\": \"workspace-net\"}", NULL },
	{ "full-dev", "{\"mode\": \"full-dev\"}", NULL },
	{ "ci", "{\"mode\": \"ci\"}", NULL },
	{ "cargo",
	  "{\"write\": [\"~/.cargo\"], \"create\": [\"~/.cargo\"],"
	  " \"exec\": [\"~/.cargo/bin\", \"~/.rustup\"],"
	  " \"env\": [\"CARGO_*\", \"RUSTUP_*\", \"RUSTC_*\", \"RUSTFLAGS\","
	  " \"RUSTDOCFLAGS\"],"
	  " \"allow_hosts\": [\"crates.io\", \"index.crates.io\","
	  " \"static.crates.io\", \"static.rust-lang.org\"]}",
	  "cargo" },
	{ "pyenv", "{\"exec\": [\"~/.pyenv\"], \"env\": [\"PYENV_*\"]}", NULL },
	{ "nvm", "{\"exec\": [\"~/.nvm\"], \"env\": [\"NVM_*\"]}", NULL },
	{ "sdkman",
	  "{\"exec\": [\"~/.sdkman\"], \"env\": [\"SDKMAN_*\", \"JAVA_HOME\"]}",
	  NULL },
	{ "local", "{\"exec\": [\"~/.local/bin\", \"~/.local/lib\"]}", NULL },
	{ "npm",
	  "{\"write\": [\"~/.npm\"], \"exec\": [\"~/.npm/_npx\"],"
	  " \"create\": [\"~/.npm\", \"~/.npm/_npx\"],"
	  " \"read\": [\"~/.npmrc\"],"
	  " \"env\": [\"NPM_CONFIG_*\", \"npm_config_*\"],"
	  " \"allow_hosts\": [\"registry.npmjs.org\"]}",
	  "npm" },
	{ "pip",
	  "{\"write\": [\"~/.cache/pip\"], \"create\": [\"~/.cache/pip\"],"
	  " \"read\": [\"~/.config/pip\", \"~/.pip\"], \"env\": [\"PIP_*\"],"
	  " \"allow_hosts\": [\"pypi.org\", \"files.pythonhosted.org\"]}",
	  "pip3" },
	{ "go",
	  "{\"write\": [\"~/go/pkg/mod\", \"~/.cache/go-build\"],"
	  " \"create\": [\"~/go/pkg/mod\", \"~/.cache/go-build\"],"
	  " \"exec\": [\"~/go/bin\"], \"env\": [\"GO*\"],"
	  " \"allow_hosts\": [\"proxy.golang.org\", \"sum.golang.org\"]}",
	  "go" },
	{ "git-hosts",
	  "{\"allow_hosts\": [\"github.com\", \"*.github.com\","
	  " \"*.githubusercontent.com\", \"gitlab.com\","
	  " \"bitbucket.org\", \"codeberg.org\"]}",
	  NULL },
	{ "ccache",
	  "{\"write\": [\"~/.ccache\"], \"create\": [\"~/.cache/ccache\"],"
	  " \"read\": [\"~/.config/ccache\"], \"env\": [\"CCACHE_*\"]}",
	  "ccache" },
	{ "gradle",
	  "{\"write\": [\"~/.gradle\"], \"create\": [\"~/.gradle\"],"
	  " \"env\": [\"GRADLE_*\", \"JAVA_HOME\"]}",
	  "gradle" },
	{ "maven",
	  "{\"write\": [\"~/.m2\"], \"create\": [\"~/.m2\"],"
	  " \"env\": [\"MAVEN_*\", \"JAVA_HOME\"],"
	  " \"allow_hosts\": [\"repo.maven.apache.org\","
	  " \"repo1.maven.org\"]}",
	  "mvn" },
};

/* What full-dev adds to the toolchains' profiles: git's own
 * configuration (read only: roots.c keeps it from writes) and the
 * variables builds take from the environment. */
static const char full_dev_extra[] =
	"{\"read\": [\"~/.gitconfig\", \"~/.config/git\"],"
	" \"env\": [\"PKG_CONFIG_PATH\", \"PKG_CONFIG_LIBDIR\","
	" \"PKG_CONFIG_SYSROOT_DIR\", \"CC\", \"CXX\", \"CPP\", \"LD\","
	" \"AR\", \"CFLAGS\", \"CXXFLAGS\", \"CPPFLAGS\", \"LDFLAGS\","
	" \"LDLIBS\", \"MAKEFLAGS\", \"CMAKE_*\", \"ACLOCAL_PATH\","
	" \"LD_LIBRARY_PATH\", \"LIBRARY_PATH\", \"CPATH\", \"C_INCLUDE_PATH\","
	" \"CPLUS_INCLUDE_PATH\", \"PYTHONPATH\", \"VIRTUAL_ENV\", "
	"\"NODE_PATH\","
	" \"JAVA_HOME\", \"CLASSPATH\", \"PERL5LIB\", \"PERL_MB_OPT\","
	" \"PERL_MM_OPT\", \"GIT_AUTHOR_*\", \"GIT_COMMITTER_*\"]}";

static const char *const keys[] = {
	"mode",	   "read", "write", "exec",	   "create",	   "net",
	"connect", "bind", "env",   "inherit_env", "connect_unix", "allow_hosts"
};

#define TMP_TOKEN "$TMPDIR"

static int bad(char *err, size_t errlen, const char *name, const char *what)
{
	snprintf(err, errlen, "profile '%s': %s", name, what);
	return -EINVAL;
}

/* A copy of @path with "$TMPDIR" expanded; lives as long as the run. */
static char *expand_tmp(const char *path)
{
	const char *tmp = getenv("TMPDIR");
	size_t n = strlen(TMP_TOKEN);
	char *out;

	if (strncmp(path, TMP_TOKEN, n) != 0 ||
	    (path[n] != '\0' && path[n] != '/'))
		return strdup(path);
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if (asprintf(&out, "%s%s", tmp, path + n) < 0)
		return NULL;
	return out;
}

/* The paths of the profile's roots @from.. that lie inside one of its
 * "create" directories: skipped when missing (`cordon explain`). */
static void optional_inside(struct cli *c, size_t from, json_t *list)
{
	for (size_t r = from; r < c->nreqs; r++) {
		size_t i;
		json_t *v;

		json_array_foreach(list, i, v)
		{
			char *dir = expand_tmp(json_string_value(v));

			if (dir && path_is_within(c->reqs[r].path, dir))
				c->reqs[r].optional = true;
			free(dir);
		}
	}
}

static int add_roots(struct cli *c, json_t *list, unsigned int rights,
		     const char *key, const char *name, bool builtin, char *err,
		     size_t errlen)
{
	static char flag[CLI_MAX_PROFILES][300];
	static size_t nflags;
	const char *label = name;
	char *copy;
	size_t i;
	json_t *v;
	int ret;

	if (!json_is_array(list))
		return bad(err, errlen, name,
			   "\"read\", \"write\", \"exec\" and \"create\" "
			   "take a list of paths");
	if (nflags < CLI_MAX_PROFILES) {
		snprintf(flag[nflags], sizeof(flag[0]), "profile '%s' \"%s\"",
			 name, key);
		label = flag[nflags++];
	}
	json_array_foreach(list, i, v)
	{
		const char *path = json_string_value(v);

		if (!path)
			return bad(err, errlen, name, "a path is not a string");
		copy = expand_tmp(path); /* lives as long as the run */
		if (!copy)
			return -ENOMEM;
		ret = cli_add_req(c, copy, rights, label, err, errlen);
		if (ret) {
			free(copy);
			return ret;
		}
		c->reqs[c->nreqs - 1].optional = builtin;
	}
	return 0;
}

/* "create": writable, made first (roots.c); the profile's paths from the
 * root request @from on that lie inside them need not exist yet. */
static int add_created(struct cli *c, json_t *list, size_t from,
		       const char *name, char *err, size_t errlen)
{
	size_t first = c->nreqs;
	int ret = add_roots(c, list, RIGHT_R | RIGHT_W, "create", name, false,
			    err, errlen);

	for (size_t r = first; !ret && r < c->nreqs; r++)
		c->reqs[r].create = true;
	if (!ret)
		optional_inside(c, from, list);
	return ret;
}

static int add_ports(struct cli *c, json_t *list, bool connect,
		     const char *name, char *err, size_t errlen)
{
	char buf[32];
	size_t i;
	json_t *v;
	int ret;

	if (!json_is_array(list))
		return bad(err, errlen, name,
			   "\"connect\" and \"bind\" take a "
			   "list of ports");
	json_array_foreach(list, i, v)
	{
		if (json_is_integer(v))
			snprintf(buf, sizeof(buf), "%lld",
				 (long long)json_integer_value(v));
		else if (json_is_string(v))
			snprintf(buf, sizeof(buf), "%s", json_string_value(v));
		else
			return bad(err, errlen, name, "a port is not a number");
		ret = cli_add_ports(c, buf, connect, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

static int add_hosts(struct cli *c, json_t *list, const char *name, char *err,
		     size_t errlen)
{
	size_t i;
	json_t *v;
	int ret;

	if (!json_is_array(list))
		return bad(err, errlen, name,
			   "\"allow_hosts\" takes a list of hosts");
	json_array_foreach(list, i, v)
	{
		if (!json_is_string(v))
			return bad(err, errlen, name, "a host is not a string");
		ret = cli_add_host(&c->policy, json_string_value(v), err,
				   errlen);
		if (ret)
			return ret;
	}
	return 0;
}

static int apply(struct cli *c, json_t *root, const char *name, bool builtin,
		 char *err, size_t errlen)
{
	const char *key;
	json_t *v;
	size_t i, from = c->nreqs;
	int ret = 0;

	if (!json_is_object(root))
		return bad(err, errlen, name, "not a JSON object");
	json_object_foreach(root, key, v)
	{
		bool known = false;

		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			known |= strcmp(key, keys[i]) == 0;
		if (!known) {
			snprintf(err, errlen, "profile '%s': unknown key '%s'",
				 name, key);
			return -EINVAL;
		}
	}
	v = json_object_get(root, "mode");
	if (v && !c->mode_set) {
		const char *m = json_string_value(v);

		if (!m || cli_set_mode(c, m))
			return bad(err, errlen, name,
				   "\"mode\" is read-only, workspace-write, "
				   "workspace-net, full-dev or ci");
	}
	if ((v = json_object_get(root, "read")))
		ret = add_roots(c, v, RIGHT_R, "read", name, builtin, err,
				errlen);
	if (!ret && (v = json_object_get(root, "write")))
		ret = add_roots(c, v, RIGHT_R | RIGHT_W, "write", name, builtin,
				err, errlen);
	if (!ret && (v = json_object_get(root, "exec")))
		ret = add_roots(c, v, RIGHT_R | RIGHT_X, "exec", name, builtin,
				err, errlen);
	if (!ret && (v = json_object_get(root, "connect_unix")))
		ret = add_roots(c, v, RIGHT_U, "connect_unix", name, builtin,
				err, errlen);
	if (!ret && (v = json_object_get(root, "create")))
		ret = add_created(c, v, from, name, err, errlen);
	if (ret)
		return ret;
	v = json_object_get(root, "net");
	if (v && !json_is_boolean(v))
		return bad(err, errlen, name, "\"net\" is true or false");
	if (v && !c->net_set)
		c->policy.net = json_is_true(v) ? NET_ON : NET_OFF;
	if ((v = json_object_get(root, "connect")))
		ret = add_ports(c, v, true, name, err, errlen);
	if (!ret && (v = json_object_get(root, "bind")))
		ret = add_ports(c, v, false, name, err, errlen);
	if (!ret && (v = json_object_get(root, "allow_hosts")))
		ret = add_hosts(c, v, name, err, errlen);
	if (ret)
		return ret;
	if ((v = json_object_get(root, "env"))) {
		if (!json_is_array(v))
			return bad(err, errlen, name,
				   "\"env\" takes a list of names");
		for (i = 0; !ret && i < json_array_size(v); i++) {
			const char *e = json_string_value(json_array_get(v, i));

			if (!e)
				return bad(err, errlen, name,
					   "a variable is not a string");
			ret = cli_add_env(&c->policy, e, err, errlen);
		}
	}
	v = json_object_get(root, "inherit_env");
	if (v && !json_is_boolean(v))
		return bad(err, errlen, name,
			   "\"inherit_env\" is true or false");
	if (v && json_is_true(v) && !c->env_set)
		c->policy.env = ENV_INHERIT;
	return ret;
}

static const struct builtin *builtin_entry(const char *name);

static const char *builtin(const char *name)
{
	const struct builtin *b = builtin_entry(name);

	return b ? b->json : NULL;
}

/* A name that is neither a file nor a built-in profile: the built-in
 * ones listed, from the table. */
static int unknown(const char *name, char *err, size_t errlen)
{
	int n = snprintf(err, errlen,
			 "--profile '%s': no such file, and not a built-in "
			 "profile (",
			 name);

	for (size_t i = 0; n >= 0 && (size_t)n < errlen &&
			   i < sizeof(builtins) / sizeof(builtins[0]);
	     i++)
		n += snprintf(err + n, errlen - (size_t)n, "%s%s",
			      i ? ", " : "", builtins[i].name);
	if (n >= 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n, ")");
	return -ENOENT;
}

bool profile_is_file(const char *name)
{
	return strchr(name, '/') || !builtin(name);
}

static int apply_all(struct cli *c, char *err, size_t errlen)
{
	for (size_t i = 0; i < c->nprofiles; i++) {
		const char *name = c->profiles[i];
		const char *text = strchr(name, '/') ? NULL : builtin(name);
		json_error_t je;
		json_t *root;
		int ret;

		if (text) {
			root = json_loads(text, 0, &je);
		} else {
			root = json_load_file(name, JSON_REJECT_DUPLICATES,
					      &je);
			if (!root && !strchr(name, '/') && !strchr(name, '.'))
				return unknown(name, err, errlen);
		}
		if (!root) {
			snprintf(err, errlen, "--profile '%s': line %d: %s",
				 name, je.line, je.text);
			return -EINVAL;
		}
		ret = apply(c, root, name, text != NULL, err, errlen);
		json_decref(root);
		if (ret && !strstr(err, name)) {
			/* a flag's message (a bad port, a bad variable):
			 * say which profile it came from */
			char flagmsg[512];

			snprintf(flagmsg, sizeof(flagmsg), "%s", err);
			snprintf(err, errlen, "profile '%s': %s", name,
				 flagmsg);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* The toolchains' built-in profiles, which the full-dev mode holds. */
static const char *const toolchains[] = { "cargo",  "pyenv",  "nvm",  "sdkman",
					  "local",  "npm",    "pip",  "go",
					  "ccache", "gradle", "maven" };

static const struct builtin *builtin_entry(const char *name)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(builtins[i].name, name) == 0)
			return &builtins[i];
	return NULL;
}

/* full-dev: every toolchain's roots, caches and variables, as if each
 * were named with --profile (their paths skipped where this host lacks
 * them; their caches made only for a tool on PATH), and full_dev_extra. */
static int apply_full_dev(struct cli *c, char *err, size_t errlen)
{
	char found[PATH_BUF];
	json_error_t je;
	int ret = 0;

	for (size_t i = 0;
	     !ret && i < sizeof(toolchains) / sizeof(toolchains[0]); i++) {
		const struct builtin *b = builtin_entry(toolchains[i]);
		json_t *root = b ? json_loads(b->json, 0, &je) : NULL;

		if (!root)
			return -ENOMEM;
		if (!b->tool || !spawn_locate(b->tool, found))
			json_object_del(root, "create");
		ret = apply(c, root, "full-dev", true, err, errlen);
		json_decref(root);
	}
	if (!ret) {
		json_t *root = json_loads(full_dev_extra, 0, &je);

		if (!root)
			return -ENOMEM;
		ret = apply(c, root, "full-dev", true, err, errlen);
		json_decref(root);
	}
	return ret;
}

int profile_apply(struct cli *c, char *err, size_t errlen)
{
	int ret = apply_all(c, err, errlen);

	if (!ret && c->mode == MODE_FULL_DEV)
		ret = apply_full_dev(c, err, errlen);
	/* a key or a value of the profile may hold a newline or an escape:
	 * the message stays one line, for a terminal */
	if (ret)
		say_oneline(err);
	return ret;
}
