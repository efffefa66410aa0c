/*
 * shimenv.c - load the shim into the command, on every OS: find its file
 * relative to cordon itself (so the build tree and `make install
 * PREFIX=... DESTDIR=` both work without configuration), and put the
 * loader's variable (preload.h: LD_PRELOAD, DYLD_INSERT_LIBRARIES) and
 * the policy snapshot into the command's environment.  platform.h names
 * the running executable and the shim's file.
 *
 * dyld honours DYLD_INSERT_LIBRARIES only for programs that are neither
 * SIP-protected nor hardened without the allow-dyld-environment
 * entitlement; the others run under Seatbelt alone (exec_env_darwin.c
 * names them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim/core/env.h"
#include "enforce/base/base.h"
#include "shim/core/preload.h"
#include "enforce/run/run.h"
#include "enforce/report/report.h"
#include "enforce/policy/policy.h"
#include "shim/core/snapshot.h"

int shimenv_locate(char out[PATH_BUF])
{
	static const char *const dirs[] = { "", "../lib/cordon/" };
	const char *file = platform_shim_file();
	char exe[PATH_BUF], *slash;
	int ret = platform_self_exe(exe);

	if (ret)
		return ret;
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char cand[PATH_BUF];

		if (snprintf(cand, sizeof(cand), "%s/%s%s", exe, dirs[i],
			     file) >= (int)sizeof(cand))
			continue;
		if (path_resolve(AT_FDCWD, cand, 0, out) == 0 &&
		    access(out, R_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* Index of @name in @envp, or the count when it is absent. */
static size_t find(char **envp, const char *name)
{
	size_t i = 0;

	while (envp[i] && !env_is_name(envp[i], name))
		i++;
	return i;
}

/* Put @entry (allocated; NULL when that failed) in place of @name in
 * @envp, or after the last; @cap counts the NULL. */
static int set_take(char **envp, size_t cap, const char *name, char *entry)
{
	size_t i = find(envp, name);

	if (!entry)
		return -ENOMEM;
	if (!envp[i]) {
		if (i + 2 > cap) {
			free(entry);
			return -E2BIG;
		}
		envp[i + 1] = NULL;
	}
	envp[i] = entry;
	return 0;
}

/* The shim first, then the libraries the command's own entry loads (the
 * first entry: the one ld.so and dyld read). */
static int set_preload(char **envp, size_t cap, const char *lib)
{
	const struct preload *pl = &preload_os;
	size_t i = find(envp, pl->var);
	const char *eq = envp[i] ? strchr(envp[i], '=') : NULL;
	const char *theirs = eq ? eq + 1 : "";
	char *entry = NULL;

	if (asprintf(&entry, "%s=%s%s%s", pl->var, lib, *theirs ? pl->join : "",
		     theirs) < 0)
		entry = NULL;
	return set_take(envp, cap, pl->var, entry);
}

static int set_asan(char **envp, size_t cap)
{
	char asan[PATH_BUF];
	size_t i = find(envp, ASAN_VAR);

	return set_take(envp, cap, ASAN_VAR,
			strdup(env_asan_entry(envp[i], asan, sizeof(asan))));
}

int shimenv_apply(char **envp, size_t cap, const char *lib,
		  const char *snapshot)
{
	char *policy = NULL;
	int ret = set_preload(envp, cap, lib);

	if (!ret && preload_os.asan)
		ret = set_asan(envp, cap);
	if (ret)
		return ret;
	if (asprintf(&policy, "%s=%s", SNAPSHOT_VAR, snapshot) < 0)
		policy = NULL;
	return set_take(envp, cap, SNAPSHOT_VAR, policy);
}

/* The command's environment, with room for the shim's three variables
 * (LD_PRELOAD, ASAN_OPTIONS, CORDON_POLICY). */
char **shimenv_scrubbed(const struct policy *p, char *const *from, size_t *cap)
{
	size_t n = 0;
	const char **out;

	while (from[n])
		n++;
	/* room for the proxy's variables, should capture fail in pid 1
	 * (shimenv_add_proxy) */
	n += p->nenv_sets + 4 + ENV_PROXY_N;
	out = calloc(n, sizeof(*out));
	if (!out || env_filter(p, from, out, n) < 0)
		return NULL;
	*cap = n;
	return (char **)out;
}

void shimenv_add_proxy(char **envp, size_t cap)
{
	size_t n = 0;

	while (envp[n])
		n++;
	for (size_t i = 0; env_proxy_sets[i] && n + 1 < cap; i++) {
		const char *set = env_proxy_sets[i];
		size_t len = (size_t)(strchr(set, '=') - set) + 1, j = 0;

		while (j < n && strncmp(envp[j], set, len) != 0)
			j++;
		if (j == n)
			envp[n++] = (char *)set;
	}
	envp[n] = NULL;
}

/*
 * A --write naming the audit log, or the report socket's directory (the
 * state directory) or a path in it, would lift their protection
 * (protect.c): the command could then rewrite its own records or take
 * the socket's place.  Refused as bad input: never granted.
 */
static int refuse_own(const struct policy *p, const struct supervisor *sup,
		      char *err, size_t len)
{
	char dir[PATH_BUF];
	bool has_dir = supervise_socket_dir(sup, dir) == 0;

	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		if (r->origin != ORIGIN_USER || !(r->rights & RIGHT_W))
			continue;
		if (strcmp(r->path, sup->logpath) == 0 ||
		    (has_dir && path_is_within(r->path, dir))) {
			snprintf(err, len,
				 "--write '%s': cordon's own audit log and "
				 "state are never granted",
				 r->path);
			return -EPERM;
		}
	}
	return 0;
}

/* The names of @from the scrub removed, ':'-separated, as many as fit
 * in @out (@len bytes): the shim's getenv names them (hook_env.c).
 * cordon's own variables and the loader's are none of the user's. */
static char *gone_names(const struct policy *p, char *const *from, char *out,
			size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; from && p->env == ENV_SCRUB && from[i]; i++) {
		size_t k = env_name_len(from[i]);

		if (!strchr(from[i], '=') || env_name_allowed(p, from[i]) ||
		    strncmp(from[i], "CORDON_", 7) == 0 ||
		    strncmp(from[i], "LD_", 3) == 0 || k == 0 ||
		    memchr(from[i], ':', k) || n + k + 2 > len)
			continue;
		if (n)
			out[n++] = ':';
		memcpy(out + n, from[i], k);
		out[n += k] = '\0';
	}
	return out[0] ? out : NULL;
}

/* The shim: grant its file, preload it, bind the report socket. */
int shimenv_prepare(struct cli *c, char *const *from, char **envp, size_t cap,
		    struct supervisor *sup, const struct feature_set *fs)
{
	static char gone[4096];
	struct policy *p = &c->policy;
	const struct feature *udp = feature_find(fs, FEATURE_UDP),
			     *resolve = feature_find(fs, FEATURE_RESOLVE_UNIX);
	struct snapshot_extra x = {
		.log = NULL,
		.learn = c->cmd == CMD_LEARN,
		/* a UDP port is a grant to name only where it holds */
		.udp = udp && udp->available,
		.ll_unix = resolve && resolve->available,
		.captured = p->net == NET_HOSTS && p->capture,
	};
	char lib[PATH_BUF], log[sizeof(sup->sockpath) + 8], err[PATH_BUF + 256];
	char dir[PATH_BUF];
	static char snap[SNAPSHOT_MAX];
	int ret;

	if (shimenv_locate(lib)) {
		fprintf(stderr,
			"cordon: cannot find %s next to cordon or in "
			"../lib/cordon\n"
			"hint: --no-shim runs with the kernel layer only\n",
			platform_shim_file());
		return -ENOENT;
	}
	ret = policy_add_root(p, lib, RIGHT_R | RIGHT_X, ORIGIN_DEFAULT, false);
	if (!ret)
		ret = supervise_prepare(sup, c->log, err, sizeof(err));
	if (!ret) {
		ret = refuse_own(p, sup, err, sizeof(err));
		if (ret)
			supervise_close(sup); /* its socket: not left behind */
	}
	/* cordon's own files, where a writable root holds them */
	if (!ret)
		ret = protect_write(p, lib);
	if (!ret)
		ret = protect_write(p, sup->logpath);
	/* and its old files (auditlog.h), where they are */
	for (int n = 1; !ret && n <= AUDITLOG_KEEP; n++) {
		char old[PATH_BUF + 16];

		snprintf(old, sizeof(old), "%s.%d", sup->logpath, n);
		ret = protect_write(p, old);
	}
	/* the socket's directory, where a writable root holds it: the
	 * command must not unlink the socket or put its own in its place */
	if (!ret && supervise_socket_dir(sup, dir) == 0)
		ret = protect_write(p, dir);
	/* and no root may still reach it (a --connect-unix, a protection
	 * that cannot hold): a sandbox that can write or connect there can
	 * take the place of this run's socket, or of a session's */
	if (!ret && supervise_socket_dir(sup, dir) == 0 &&
	    rundir_reached(p, dir)) {
		snprintf(err, sizeof(err),
			 "cordon's socket directory '%s' is never granted: a "
			 "root of the policy would reach it",
			 dir);
		supervise_close(sup);
		ret = -EPERM;
	}
	if (ret == -ENOMEM || ret == -E2BIG)
		snprintf(err, sizeof(err), "cannot grant '%s': %s", lib,
			 strerror(-ret));
	if (!ret) {
		snprintf(log, sizeof(log), "unix:%s", sup->sockpath);
		x.log = log;
		x.log_dev = sup->sock_dev;
		x.log_ino = sup->sock_ino;
		x.gone = gone_names(p, from, gone, sizeof(gone));
		ret = snapshot_encode(p, &x, snap, sizeof(snap));
		if (ret < 0)
			snprintf(err, sizeof(err),
				 "the policy is too large "
				 "to pass to the shim");
	}
	if (ret >= 0) {
		ret = shimenv_apply(envp, cap, lib, snap);
		if (ret < 0)
			snprintf(err, sizeof(err),
				 "cannot pass the shim to the command: %s",
				 strerror(-ret));
	}
	if (ret < 0)
		say_error("%s", err);
	return ret < 0 ? ret : 0;
}
