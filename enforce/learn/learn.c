/*
 * learn.c - `cordon learn -o PROFILE -- COMMAND`: a profile from a run.
 *
 * While learning, the kernel layer holds a wide policy: Landlock grants
 * the whole filesystem as the user may use it, the workspace and the
 * temp directories writable, and the network; the seccomp filter and
 * the capability drop apply as always, the mount and PID namespaces do
 * not (the protected paths, the covered sockets and secrets, the hiding
 * of other processes are off).  The shim checks every call against the
 * policy the options give without refusing any: what that policy would
 * refuse is recorded ("verdict": "learn").  The launcher itself notes
 * what no shim sees: before the run, the command (the launcher execs
 * it); after it, for the command and every program the run executed,
 * the interpreters of "#!" lines (the kernel checks them, the shim
 * decides on the script) and what the dynamic loader maps from the
 * program's own run path (learn_elf.c).  At the end the records are
 * folded into a minimal profile (learn_fold.c).  Every record, and
 * every path read from a file the command could write (a "#!" line, a
 * run path), is untrusted: kept only clean and normal, else counted
 * (learn_check.c); the profile is written through its directory, held
 * from before the run (learn_out.c).  The fold:
 *  - a cache's files into the cache (~/.cache/NAME, ~/.NAME, ~/go/...);
 *  - what was made, replaced or removed into its directory; a program
 *    into its directory; what was read stays the path itself;
 *  - what the run made itself into the nearest directory that was there
 *    before it (the profile must rerun on a clean tree), or, right
 *    under / or $HOME or for a cache, the directory to be made
 *    ("create");
 *  - never "/", $HOME or above it, nor cordon's or git's protected
 *    files (learn_check.c), unless --allow-broad: what the records
 *    name is the command's to forge; left out, and said loudly;
 *  - read, write and execute kept apart (writing implies reading);
 *  - the workspace as ".", the temp directory as "$TMPDIR", the home
 *    as "~";
 *  - the network: ports, hosts, or all of it (learn_net.c);
 *  - the options' --mode kept as "mode".
 * What the shim cannot see (static binaries, raw system calls, the
 * libraries the loader finds by LD_LIBRARY_PATH or dlopen) is not
 * learned: the profile may then still fall short for them.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "enforce/learn/learn.h"
#include "enforce/report/report.h"
#include "enforce/learn/learn_elf.h"
#include "enforce/learn/learn_check.h"
#include "enforce/learn/learn_fold.h"
#include "enforce/learn/learn.h"
#include "enforce/learn/learn_net.h"
#include "enforce/learn/learn_store.h"
#include "enforce/policy/policy.h"
#include "enforce/base/base.h"
#include "shim/core/path.h"
#include "shim/core/shebang.h"
#include "shim/core/strbuf.h"

#define SHEBANG_HOPS 4 /* interpreters of interpreters: the kernel's */
#define ELF_DEPTH    8 /* libraries of libraries */

static struct learn_run run;
static const char *mode_name;	 /* the options' --mode, or NULL */
static struct learn_guard guard; /* what no grant may reach */
static bool allow_broad;	 /* --allow-broad */
/* records that held nothing valid, and paths from the command's files */
static size_t invalid;

/* Add @rights at @path, a path the command could name (a record, a
 * "#!" line or a run path in a file it wrote): kept only clean
 * (learn_check.c), else counted.  False when not kept. */
static bool note(const char *path, unsigned int rights)
{
	char clean[PATH_BUF];

	if (!learn_path_clean(path, clean)) {
		invalid++;
		return false;
	}
	return learn_store_add(clean, rights);
}

/* The variables the scrub removed that the command asked for: the
 * profile's "env", so that the next run passes them. */
static json_t *vars;

static void note_var(const char *name)
{
	size_t i;
	json_t *v;

	if (!vars)
		vars = json_array();
	if (!vars || json_array_size(vars) >= POLICY_MAX_ENV) {
		invalid += vars != NULL;
		return;
	}
	json_array_foreach(vars, i, v)
	{
		if (strcmp(json_string_value(v), name) == 0)
			return;
	}
	json_array_append_new(vars, json_string(name));
}

/* The directories and files a learned variable names (PKG_CONFIG_PATH,
 * CPATH: ':'-separated absolute paths, as the user set it outside):
 * the run that passes it reads them, which the learning run, without
 * it, never did.  Read only, each through the guard like any grant. */
static void note_var_paths(void)
{
	char path[PATH_BUF];
	size_t i;
	json_t *v;

	json_array_foreach(vars, i, v)
	{
		const char *val = getenv(json_string_value(v));

		while (val && *val) {
			size_t n = strcspn(val, ":");

			if (val[0] == '/' && n < sizeof(path)) {
				memcpy(path, val, n);
				path[n] = '\0';
				if (access(path, F_OK) == 0 &&
				    !learn_grant_risk(&guard, path, false))
					note(path, RIGHT_R);
			}
			val += n;
			val += *val == ':';
		}
	}
}

void learn_note(json_t *record)
{
	const char *resolved =
		json_string_value(json_object_get(record, "resolved"));
	const char *dest =
		json_string_value(json_object_get(record, "destination"));
	const char *allow = json_string_value(json_object_get(record, "allow"));
	const char *op =
		json_string_value(json_object_get(record, "operation"));
	json_int_t need = json_integer_value(json_object_get(record, "need"));

	const char *var =
		json_string_value(json_object_get(record, "variable"));

	/* the command can forge any record: what is not valid is counted,
	 * never learned (a variable's name record.c checked) */
	if (var) {
		note_var(var);
		return;
	}
	if (dest) {
		if (!learn_net_note(dest, allow, op))
			invalid++;
		return;
	}
	/* an access() asking whether it could write: while learning the
	 * kernel says yes, and what the command then does is recorded on
	 * its own; the question grants nothing.  (A bind to port 0 is
	 * learned: the socket it binds is used.) */
	if (json_is_true(json_object_get(record, "probe")) && need != 0)
		return;
	/* 0: seen */
	note(resolved, (unsigned int)need & (RIGHT_ALL | RIGHT_U));
}

/* A library or interpreter the loader maps for a program: noted as
 * executed (a non-exec root is mounted noexec), with its own. */
static void note_dep(const char *dep, void *depth)
{
	struct learn_need *n = learn_store_find(dep);
	int d = *(int *)depth + 1;

	if ((n && (n->rights & RIGHT_X)) || d > ELF_DEPTH ||
	    !note(dep, RIGHT_X))
		return;
	learn_elf_deps(dep, note_dep, &d);
}

/* @file executed, and the interpreter of each "#!" line on the way
 * (a relative one only when @relative_ok: from the working directory,
 * which is the command's, not a child's). */
static void note_exec(const char *file, bool relative_ok)
{
	char path[PATH_BUF], line[SHEBANG_BUF];
	int depth = 0;

	snprintf(path, sizeof(path), "%s", file);
	for (int hop = 0; hop <= SHEBANG_HOPS; hop++) {
		int fd;
		ssize_t n;

		/* a path from a record is untrusted: a FIFO or a device
		 * is never opened */
		if (!note(path, RIGHT_X))
			return;
		fd = learn_open_file(path);
		if (fd < 0)
			return;
		learn_elf_deps(path, note_dep, &depth);
		n = read(fd, line, sizeof(line) - 1);
		close(fd);
		if (!shebang_parse(line, n) ||
		    (line[0] != '/' && !relative_ok) ||
		    path_resolve(AT_FDCWD, line, 0, path) != 0)
			return;
	}
}

/* The command: the launcher execs it, where no shim sees it. */
static void note_command(const char *cmd)
{
	char path[PATH_BUF];

	if (spawn_locate(cmd, path))
		note_exec(path, true);
}

/* The interpreters of the scripts the run executed: the shim decides
 * on the script, and the kernel on its interpreter as well. */
static void note_interpreters(void)
{
	char path[PATH_BUF];
	size_t n = learn_store_count();

	for (size_t i = 0; i < n; i++) {
		/* a copy: the store may grow (and move) meanwhile */
		if (!(learn_store_at(i)->rights & RIGHT_X))
			continue;
		snprintf(path, sizeof(path), "%s", learn_store_at(i)->path);
		note_exec(path, false);
	}
}

void learn_start(const struct cli *c)
{
	const char *tmpdir = getenv("TMPDIR");

	learn_fold_mark(&run.start);
	learn_guard_init(&guard, home_dir(), c->output);
	run.home = guard.home[0] ? guard.home : NULL;
	allow_broad = c->allow_broad;
	learn_out_hold(c->output);
	if (path_resolve(AT_FDCWD, ".", 0, run.cwd) != 0)
		run.cwd[0] = '\0';
	if (!tmpdir || tmpdir[0] != '/')
		tmpdir = "/tmp";
	if (path_resolve(AT_FDCWD, tmpdir, 0, run.tmp) != 0)
		run.tmp[0] = '\0';
	mode_name = c->mode_set ? cli_mode_name(c->mode) : NULL;
	if (c->argv && c->argv[0])
		note_command(c->argv[0]);
	tally_learn_to(learn_note);
}

/* Mark each path only seen on the way to a path with rights: a root
 * below makes it visible. */
static void mark_leads(void)
{
	char up[PATH_BUF];

	for (size_t i = 0; i < learn_store_count(); i++) {
		struct learn_need *n = learn_store_at(i), *a;
		char *slash;

		if (!n->rights)
			continue;
		snprintf(up, sizeof(up), "%s", n->path);
		while ((slash = strrchr(up, '/')) && slash != up) {
			*slash = '\0';
			a = learn_store_find(up);
			if (a)
				a->leads = true;
		}
	}
}

/* The profile's lists, absolute until written. */
enum { L_READ, L_WRITE, L_EXEC, L_CREATE, L_UNIX, L_N };
static const char *const list_key[L_N] = { "read", "write", "exec", "create",
					   "connect_unix" };

static void add_unique(json_t *list, const char *path)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
	{
		if (strcmp(json_string_value(v), path) == 0)
			return;
	}
	json_array_append_new(list, json_string(path));
}

static bool is_inside(const char *p, json_t *list, bool self)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
	{
		const char *q = json_string_value(v);

		if ((!self || strcmp(p, q) != 0) && path_is_within(p, q))
			return true;
	}
	return false;
}

/* Drop an entry of @list inside another entry of @list, or inside an
 * entry of @wider (which grants at least as much). */
static void prune(json_t *list, json_t *wider, json_t *wider2)
{
	for (size_t i = 0; i < json_array_size(list);) {
		const char *p = json_string_value(json_array_get(list, i));

		if (is_inside(p, list, true) ||
		    (wider && is_inside(p, wider, false)) ||
		    (wider2 && is_inside(p, wider2, false)))
			json_array_remove(list, i);
		else
			i++;
	}
}

/* Say @path escaped for a terminal: it came from inside. */
static void warn(const char *what, const char *path, const char *why)
{
	char line[PATH_BUF + 256];
	struct strbuf sb = STRBUF(line, sizeof(line));

	sb_puts(&sb, "cordon: WARNING: ");
	sb_puts(&sb, what);
	sb_escape(&sb, path, SB_TERM, PATH_BUF);
	sb_puts(&sb, why);
	fprintf(stderr, "%s\n", line);
}

/*
 * Leave out of @list (a list of @what) every grant learn_check.c names,
 * with a WARNING line each; with --allow-broad keep it, still warned.
 * Before the lists are pruned: nothing is dropped as inside a grant that
 * is then left out.
 */
static void guard_list(json_t *list, const char *what, bool writes)
{
	char line[PATH_BUF + 256];

	for (size_t i = 0; i < json_array_size(list);) {
		const char *p = json_string_value(json_array_get(list, i));
		const char *why = learn_grant_risk(&guard, p, writes);
		struct strbuf sb = STRBUF(line, sizeof(line));

		if (!why) {
			i++;
			continue;
		}
		sb_puts(&sb, "cordon: WARNING: ");
		sb_puts(&sb, allow_broad ? "kept by --allow-broad: "
					 : "left out of the profile: ");
		sb_puts(&sb, what);
		sb_puts(&sb, " ");
		sb_escape(&sb, p, SB_TERM, PATH_BUF);
		sb_puts(&sb, " (");
		sb_puts(&sb, why);
		sb_puts(&sb, allow_broad ? ")" : "); --allow-broad keeps it");
		fprintf(stderr, "%s\n", line);
		if (allow_broad)
			i++;
		else
			json_array_remove(list, i);
	}
}

/* Where each need goes (learn_fold()); -1: granted already, or only
 * seen on the way to a path granted anyway. */
static void fold_all(const struct policy *p, json_t *made)
{
	char where[PATH_BUF];

	note_interpreters();
	mark_leads();
	for (size_t i = 0; i < learn_store_count(); i++) {
		struct learn_need *n = learn_store_at(i);

		n->grant = -1;
		if (n->rights ? policy_allows(p, n->rights, n->path) : n->leads)
			continue;
		n->grant = (int)learn_fold(&run, n->path, n->rights, where);
		n->where = strdup(where);
		if (!n->where)
			n->grant = -1;
		else if (n->grant == GRANT_CREATE)
			add_unique(made, where);
	}
}

/* A directory the run made, which a directory to be made below it
 * (one of @made) makes as well (mkdir -p): the run's own mkdir then
 * finds it there, and fails quietly, as mkdir -p expects.  No grant
 * needed. */
static bool made_with_create(const struct learn_need *n, json_t *made)
{
	size_t i;
	json_t *v;

	if (n->grant != GRANT_CREATE || !learn_is_dir(n->path))
		return false;
	json_array_foreach(made, i, v)
	{
		const char *m = json_string_value(v);

		if (strcmp(m, n->where) != 0 && path_is_within(m, n->path))
			return true;
	}
	return false;
}

static void add_grant(const struct learn_need *n, json_t *lists[L_N])
{
	if (n->grant == GRANT_NONE) {
		warn("not learned: ", n->path,
		     " was made by the run right under / or $HOME, "
		     "which the profile does not grant whole");
		return;
	}
	if (n->grant == GRANT_CREATE)
		add_unique(lists[L_CREATE], n->where);
	if (n->rights & RIGHT_X)
		add_unique(lists[L_EXEC], n->where);
	else if (n->grant == GRANT_CREATE)
		return;
	else if (n->rights & RIGHT_W)
		add_unique(lists[L_WRITE], n->where);
	else if (n->rights == RIGHT_U)
		add_unique(lists[L_UNIX], n->where);
	else
		add_unique(lists[L_READ], n->where);
}

static void collect(const struct policy *p, json_t *lists[L_N])
{
	json_t *made = json_array();

	fold_all(p, made);
	for (size_t i = 0; i < learn_store_count(); i++) {
		struct learn_need *n = learn_store_at(i);

		if (n->grant >= 0 && !made_with_create(n, made))
			add_grant(n, lists);
	}
	json_decref(made);
	guard_list(lists[L_READ], "read", false);
	guard_list(lists[L_WRITE], "write", true);
	guard_list(lists[L_EXEC], "exec", false);
	guard_list(lists[L_CREATE], "create", true);
	guard_list(lists[L_UNIX], "connect_unix", false);
	prune(lists[L_CREATE], NULL, NULL);
	prune(lists[L_WRITE], lists[L_CREATE], NULL);
	prune(lists[L_EXEC], NULL, NULL);
	prune(lists[L_READ], lists[L_WRITE], lists[L_CREATE]);
	prune(lists[L_READ], lists[L_EXEC], NULL);
	prune(lists[L_UNIX], lists[L_WRITE], lists[L_CREATE]);
}

/* @list written with tokens (learn_fold.h), in the profile @prof. */
static size_t put_paths(json_t *prof, const char *key, json_t *list)
{
	json_t *out = json_array();
	char tok[PATH_BUF];
	size_t i, n = json_array_size(list);
	json_t *v;

	json_array_foreach(list, i, v)
	{
		learn_token(&run, json_string_value(v), tok);
		json_array_append_new(out, json_string(tok));
	}
	if (n)
		json_object_set(prof, key, out);
	json_decref(out);
	return n;
}

int learn_write(const char *out, const struct policy *p, char *err,
		size_t errlen)
{
	json_t *prof = json_object(), *lists[L_N];
	struct learn_net_sum net;
	size_t total = 0;
	int ret = 0;

	for (int l = 0; l < L_N; l++)
		lists[l] = json_array();
	if (vars)
		note_var_paths();
	collect(p, lists);
	for (int l = 0; l < L_N; l++)
		total += put_paths(prof, list_key[l], lists[l]);
	learn_net_put(prof, &net);
	if (vars && json_array_size(vars))
		json_object_set(prof, "env", vars);
	if (mode_name)
		json_object_set_new(prof, "mode", json_string(mode_name));
	if (learn_out_write(prof) < 0) {
		snprintf(err, errlen, "cannot write the profile '%s'", out);
		ret = -EIO;
	} else {
		char nhosts[48] = "";

		if (net.hosts)
			snprintf(nhosts, sizeof(nhosts), " and %zu host%s",
				 net.hosts, net.hosts == 1 ? "" : "s");
		fprintf(stderr,
			"cordon: learned %zu path%s%s %zu port%s%s%s%s into "
			"%s; run it with --profile %s\n",
			total, total == 1 ? "" : "s", *nhosts ? "," : " and",
			net.ports, net.ports == 1 ? "" : "s", nhosts,
			net.net ? " (and the network)" : "",
			vars && json_array_size(vars) ? " (and variables)" : "",
			out, out);
		if (invalid)
			fprintf(stderr,
				"cordon: WARNING: %zu record%s from the "
				"command held no valid path, port or host: "
				"not learned\n",
				invalid, invalid == 1 ? "" : "s");
		if (learn_store_dropped())
			fprintf(stderr,
				"cordon: WARNING: %zu more paths were not "
				"kept (more than %d): the profile may fall "
				"short\n",
				learn_store_dropped(), LEARN_MAX);
	}
	for (int l = 0; l < L_N; l++)
		json_decref(lists[l]);
	json_decref(prof);
	return ret;
}

static int add_writable(struct policy *wide, const char *path)
{
	/* never the whole filesystem (a workspace or $TMPDIR of "/") */
	if (!path[0] || strcmp(path, "/") == 0 || access(path, F_OK) != 0)
		return 0;
	return policy_add_root(wide, path, RIGHT_ALL, ORIGIN_DEFAULT, true);
}

/*
 * What the kernel layer holds while learning: the options' own roots,
 * the whole filesystem readable and executable, $HOME, the workspace
 * and the temp directories writable, and the network (the seccomp
 * filter and the capability drop as always; no namespaces).  The
 * system directories stay unwritable even to root: a build that would
 * install into /usr fails there, as it should.  The shim records what
 * the options' policy alone would refuse.
 */
const struct policy *learn_kernel_policy(const struct policy *p)
{
	static struct policy wide;
	int ret = 0;

	if (wide.nroots)
		return &wide;
	for (size_t i = 0; !ret && i < p->nroots; i++)
		/* protections are not kept while learning */
		if (p->roots[i].origin != ORIGIN_PROTECTED)
			ret = policy_add_root(
				&wide, p->roots[i].path, p->roots[i].rights,
				ORIGIN_DEFAULT, p->roots[i].is_dir);
	/* every UNIX socket too (Landlock's RESOLVE_UNIX): learning sees
	 * the command reach what it needs, and records it */
	if (!ret)
		ret = policy_add_root(&wide, "/", RIGHT_R | RIGHT_X | RIGHT_U,
				      ORIGIN_DEFAULT, true);
	if (!ret && run.home)
		ret = add_writable(&wide, run.home);
	if (!ret)
		ret = add_writable(&wide, run.cwd);
	if (!ret)
		ret = add_writable(&wide, run.tmp);
	if (!ret)
		ret = add_writable(&wide, "/var/tmp");
	wide.net = NET_ON;
	return &wide;
}
