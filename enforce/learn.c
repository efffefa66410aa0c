/*
 * learn.c - `cordon learn -o PROFILE -- COMMAND`: a profile from a run.
 *
 * While learning, the kernel layer holds a wide policy: Landlock grants
 * the whole filesystem as the user may use it and the network; the
 * seccomp filter and the capability drop apply as always, the mount
 * and PID namespaces do not (the protected paths, the covered sockets
 * and secrets, the hiding of other processes are off).  The shim
 * checks every call against the policy the options give without
 * refusing any: what that policy would refuse is recorded ("verdict":
 * "learn").  At the end the records are folded into a minimal profile:
 *  - a cache's files into the cache (~/.cache/NAME, ~/.NAME, ~/go/...);
 *  - what was made, replaced or removed into its directory (which is
 *    there again at the next run); a program into its directory;
 *  - everything else stays the path itself;
 *  - never "/" nor all of $HOME: a path that would fold there stays as
 *    it is;
 *  - read, write and execute kept apart (writing implies reading);
 *  - TCP ports into "connect"; any other socket into "net": true.
 * What the shim cannot see (static binaries, raw system calls) is not
 * learned: the profile may then still fall short for them.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "enforce/learn.h"
#include "enforce/policy_edit.h"
#include "shim/core/path.h"
#include "enforce/roots.h"
#include "shim/core/strbuf.h"

#define LEARN_MAX 512

struct need {
	char path[PATH_BUF];
	unsigned int rights;
};

static struct need needs[LEARN_MAX];
static size_t nneeds;
static unsigned int ports[64];
static size_t nports;
static bool any_net;
static size_t dropped;

static void add_need(const char *path, unsigned int rights)
{
	for (size_t i = 0; i < nneeds; i++) {
		if (strcmp(needs[i].path, path) == 0) {
			needs[i].rights |= rights;
			return;
		}
	}
	if (nneeds == LEARN_MAX) {
		dropped++;
		return;
	}
	snprintf(needs[nneeds].path, PATH_BUF, "%s", path);
	needs[nneeds++].rights = rights;
}

void learn_note(json_t *record)
{
	const char *resolved =
		json_string_value(json_object_get(record, "resolved"));
	const char *dest =
		json_string_value(json_object_get(record, "destination"));
	const char *rule = json_string_value(json_object_get(record, "rule"));
	json_int_t need = json_integer_value(json_object_get(record, "need"));

	if (dest) {
		const char *colon = strrchr(dest, ':');
		unsigned long port = colon ? strtoul(colon + 1, NULL, 10) : 0;

		if ((rule && strncmp(rule, "not a TCP", 9) == 0) || !colon) {
			any_net = true;
			return;
		}
		for (size_t i = 0; i < nports; i++)
			if (ports[i] == port)
				return;
		if (nports < sizeof(ports) / sizeof(ports[0]))
			ports[nports++] = (unsigned int)port;
		return;
	}
	if (!resolved || resolved[0] != '/')
		return;
	add_need(resolved, (unsigned int)need); /* 0: only seen */
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* @path's directory, in @out. */
static void parent(const char *path, char out[PATH_BUF])
{
	char *slash;

	snprintf(out, PATH_BUF, "%s", path);
	slash = strrchr(out, '/');
	if (slash && slash != out)
		*slash = '\0';
	else
		snprintf(out, PATH_BUF, "/");
}

/* The cache that holds @path under $HOME, in @out: ~/.cache/NAME,
 * ~/.NAME, ~/go/pkg/mod.  False when it is none of them. */
static bool cache_of(const char *path, const char *home, char out[PATH_BUF])
{
	size_t hl = strlen(home);
	const char *rest, *end;

	if (!path_is_within(path, home) || strlen(path) <= hl + 1)
		return false;
	rest = path + hl + 1;
	if (strncmp(rest, ".cache/", 7) == 0)
		end = strchr(rest + 7, '/');
	else if (strncmp(rest, "go/pkg/mod/", 11) == 0 ||
		 strcmp(rest, "go/pkg/mod") == 0)
		end = rest + 10;
	else if (rest[0] == '.' && strcmp(rest, ".cache") != 0)
		end = strchr(rest, '/');
	else
		return false;
	/* the cache itself when @path is it */
	snprintf(out, PATH_BUF, "%.*s",
		 end ? (int)(end - path) : (int)strlen(path), path);
	return true;
}

/* @n's own path, in @out (it fits: both are PATH_BUF). */
static void own(const struct need *n, char out[PATH_BUF])
{
	struct strbuf sb = STRBUF(out, PATH_BUF);

	sb_puts(&sb, n->path);
}

/* Where the grant for @n goes, in @out. */
static void fold(const struct need *n, const char *home, char out[PATH_BUF])
{
	if (home && cache_of(n->path, home, out))
		return;
	if ((n->rights & RIGHT_X) && !is_dir(n->path)) {
		parent(n->path, out);
	} else if (n->rights & RIGHT_W) {
		/* a file or directory made (or replaced, removed) there:
		 * where it was made, which exists again at the next run */
		parent(n->path, out);
	} else {
		own(n, out);
	}
	/* never the whole filesystem nor the whole home */
	if (strcmp(out, "/") == 0 || (home && strcmp(out, home) == 0))
		own(n, out);
}

static bool leads_to_another(const struct need *n)
{
	for (size_t i = 0; i < nneeds; i++)
		if (&needs[i] != n && needs[i].rights &&
		    path_is_within(needs[i].path, n->path))
			return true;
	return false;
}

static void add_unique(json_t *list, const char *path)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v) if (strcmp(json_string_value(v), path) ==
					   0) return;
	json_array_append_new(list, json_string(path));
}

/* Drop an entry inside another entry of the same list. */
static void prune(json_t *list)
{
	for (size_t i = 0; i < json_array_size(list);) {
		const char *p = json_string_value(json_array_get(list, i));
		bool inside = false;

		for (size_t j = 0; j < json_array_size(list) && !inside; j++) {
			const char *q =
				json_string_value(json_array_get(list, j));

			inside = i != j && strcmp(p, q) != 0 &&
				 path_is_within(p, q);
		}
		if (inside)
			json_array_remove(list, i);
		else
			i++;
	}
}

/* The run really used all of / or $HOME: granted, and said loudly. */
static void warn_wide(json_t *list, const char *home, const char *what)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
	{
		const char *path = json_string_value(v);

		if (strcmp(path, "/") == 0 || (home && strcmp(path, home) == 0))
			fprintf(stderr,
				"cordon: WARNING: the profile lets the command "
				"%s all of %s: the run used it itself\n",
				what, path);
	}
}

int learn_write(const char *out, const struct policy *p, char *err,
		size_t errlen)
{
	json_t *prof = json_object();
	json_t *read = json_array(), *write = json_array(),
	       *exec = json_array(), *connect = json_array();
	const char *home = roots_home();
	char where[PATH_BUF];
	size_t total;
	int ret = 0;

	for (size_t i = 0; i < nneeds; i++) {
		struct need *n = &needs[i];

		/* granted already; or only seen, on the way to a path
		 * granted anyway: a root below makes it visible */
		if (n->rights ? policy_allows(p, n->rights, n->path)
			      : leads_to_another(n))
			continue;
		fold(n, home, where);
		if (n->rights & RIGHT_W)
			add_unique(write, where);
		else if (n->rights & RIGHT_X)
			add_unique(exec, where);
		else
			add_unique(read, where);
	}
	prune(read);
	prune(write);
	prune(exec);
	for (size_t i = 0; i < nports; i++)
		json_array_append_new(connect, json_integer(ports[i]));
	if (json_array_size(read))
		json_object_set(prof, "read", read);
	if (json_array_size(write))
		json_object_set(prof, "write", write);
	if (json_array_size(exec))
		json_object_set(prof, "exec", exec);
	if (any_net)
		json_object_set_new(prof, "net", json_true());
	else if (nports)
		json_object_set(prof, "connect", connect);
	total = json_array_size(read) + json_array_size(write) +
		json_array_size(exec);
	warn_wide(read, home, "read");
	warn_wide(write, home, "write");
	warn_wide(exec, home, "execute");
	if (json_dump_file(prof, out, JSON_INDENT(2) | JSON_SORT_KEYS) < 0) {
		snprintf(err, errlen, "cannot write the profile '%s'", out);
		ret = -EIO;
	} else {
		fprintf(stderr,
			"cordon: learned %zu path%s and %zu port%s%s into %s; "
			"run it with --profile %s\n",
			total, total == 1 ? "" : "s", nports,
			nports == 1 ? "" : "s",
			any_net ? " (and the network)" : "", out, out);
		if (dropped)
			fprintf(stderr,
				"cordon: WARNING: %zu more paths were not "
				"kept (more than %d): the profile may fall "
				"short\n",
				dropped, LEARN_MAX);
	}
	json_decref(read);
	json_decref(write);
	json_decref(exec);
	json_decref(connect);
	json_decref(prof);
	return ret;
}

/*
 * What the kernel layer holds while learning: the options' own roots,
 * the whole filesystem readable and executable, $HOME writable, and the
 * network (the seccomp filter and the capability drop as always; no
 * namespaces).  The system directories stay unwritable even to root:
 * a build that would install into /usr fails there, as it should.  The
 * shim records what the options' policy alone would refuse.
 */
const struct policy *learn_kernel_policy(const struct policy *p)
{
	static struct policy wide;
	const char *home = roots_home();
	int ret = 0;

	if (wide.nroots)
		return &wide;
	for (size_t i = 0; !ret && i < p->nroots; i++)
		/* protections are not kept while learning */
		if (p->roots[i].origin != ORIGIN_PROTECTED)
			ret = policy_add_root(
				&wide, p->roots[i].path, p->roots[i].rights,
				ORIGIN_DEFAULT, p->roots[i].is_dir);
	if (!ret)
		ret = policy_add_root(&wide, "/", RIGHT_R | RIGHT_X,
				      ORIGIN_DEFAULT, true);
	if (!ret && home && strcmp(home, "/") != 0 && access(home, F_OK) == 0)
		ret = policy_add_root(&wide, home, RIGHT_ALL, ORIGIN_DEFAULT,
				      true);
	wide.net = NET_ON;
	return &wide;
}
