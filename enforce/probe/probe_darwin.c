/*
 * probe_darwin.c - `cordon probe [--json]` on macOS (probe.h).
 *
 * Lists what Seatbelt holds for the default policy and proves it as the
 * Linux probe does: a child attempts a forbidden action once without
 * the sandbox (the action works at all) and once inside a profile of a
 * scratch workspace, and the parent checks the effect from outside.
 * The actions: create and read a file outside the roots.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/cli/cli.h"
#include "enforce/darwin/darwin.h"
#include "enforce/base/base.h"
#include "enforce/probe/probe.h"
#include "enforce/policy/policy.h"

#define SECRET "cordon-probe-secret\n"

struct ctx {
	char base[64];	      /* the scratch directory */
	char ws[96], out[96]; /* granted, and not */
	char made[128], secret[128];
	struct policy policy;
};

struct row {
	const char *layer, *name, *state;
	bool ok;
	char why[160];
};

/* In a child: 0 when the action went through, else its errno. */
static int try_create(const struct ctx *c)
{
	int fd = open(c->made, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int try_read(const struct ctx *c)
{
	char buf[sizeof(SECRET)];
	int fd = open(c->secret, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? 0 : EIO;
}

static const struct {
	const char *name;
	int (*attempt)(const struct ctx *c);
} checks[] = {
	{ "create a file outside the writable roots", try_create },
	{ "read a file outside the readable roots", try_read },
};

/* Run check @k in a child, sandboxed or not: 0 it went through, > 0
 * the errno that refused it, < 0 the sandbox did not start. */
static int attempt(const struct ctx *c, size_t k, bool sandboxed)
{
	char err[512];
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (sandboxed &&
		    platform_enforce(&c->policy, NULL, 1, NULL, false, -1, err,
				     sizeof(err)) != 0) {
			fprintf(stderr, "cordon: probe: %s\n", err);
			_exit(255);
		}
		_exit(checks[k].attempt(c) & 0x7f);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 255)
		return -1;
	return WEXITSTATUS(st);
}

static void run_check(struct ctx *c, size_t k, struct row *r)
{
	int res;
	bool seen;

	*r = (struct row){ .layer = "seatbelt", .name = checks[k].name };
	unlink(c->made);
	res = attempt(c, k, false);
	unlink(c->made);
	if (res != 0) {
		r->state = "untested";
		r->ok = true;
		snprintf(r->why, sizeof(r->why), "fails unsandboxed too");
		return;
	}
	res = attempt(c, k, true);
	seen = access(c->made, F_OK) == 0;
	unlink(c->made);
	r->ok = res > 0 && !seen;
	r->state = r->ok ? "enforced" : "NOT ENFORCED";
	if (res < 0)
		snprintf(r->why, sizeof(r->why), "the sandbox failed to start");
	else if (r->ok)
		snprintf(r->why, sizeof(r->why),
			 "denied (%s), no effect outside; works unsandboxed",
			 strerror(res));
	else
		snprintf(r->why, sizeof(r->why), "went through");
}

static int setup(struct ctx *c)
{
	int fd, ret = 0;

	snprintf(c->base, sizeof(c->base), "/tmp/cordon-probe.XXXXXX");
	if (!mkdtemp(c->base))
		return -errno;
	snprintf(c->ws, sizeof(c->ws), "%s/ws", c->base);
	snprintf(c->out, sizeof(c->out), "%s/out", c->base);
	snprintf(c->made, sizeof(c->made), "%s/made", c->out);
	snprintf(c->secret, sizeof(c->secret), "%s/secret", c->out);
	if (mkdir(c->ws, 0700) < 0 || mkdir(c->out, 0700) < 0)
		return -errno;
	fd = open(c->secret, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, SECRET, strlen(SECRET)) < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (!ret)
		ret = roots_add_system(&c->policy);
	if (!ret)
		ret = policy_add_root(&c->policy, c->ws, RIGHT_ALL,
				      ORIGIN_DEFAULT, true);
	return ret;
}

static void teardown(struct ctx *c)
{
	unlink(c->made);
	unlink(c->secret);
	rmdir(c->out);
	rmdir(c->ws);
	rmdir(c->base);
	policy_free(&c->policy);
}

static void print_json(const struct row *rows, size_t n, int kernel, bool ok)
{
	json_t *root = json_object(), *list = json_array();
	char host[128];
	char *s;

	platform_describe(kernel, host, sizeof(host));
	json_object_set_new(root, "kernel", json_string(host));
	json_object_set_new(root, "ok", json_boolean(ok));
	for (size_t i = 0; i < n; i++)
		json_array_append_new(
			list, json_pack("{s:s, s:s, s:s, s:b, s:s}", "layer",
					rows[i].layer, "feature", rows[i].name,
					"state", rows[i].state, "ok",
					rows[i].ok, "why", rows[i].why));
	json_object_set_new(root, "features", list);
	s = json_dumps(root, JSON_INDENT(2));
	json_decref(root);
	if (s)
		puts(s);
	free(s);
}

int probe_run(const struct cli *cli)
{
	static struct ctx c;
	static struct row rows[FEATURE_MAX + 4];
	struct feature_set fs = { .n = 0 };
	bool ok = true;
	size_t n = 0;
	int kernel, ret = setup(&c);

	if (ret) {
		fprintf(stderr, "cordon: probe: cannot set up in '%s': %s\n",
			c.base, strerror(-ret));
		teardown(&c);
		return 125;
	}
	kernel = platform_features(&c.policy, &fs);
	for (size_t i = 0; i < fs.n; i++) {
		const struct feature *f = &fs.f[i];
		struct row *r = &rows[n++];

		*r = (struct row){ .layer = f->layer, .name = f->name };
		r->ok = f->available || !f->needed || f->advisory;
		r->state = f->gap	  ? "not contained"
			   : f->available ? "available"
					  : "MISSING";
		snprintf(r->why, sizeof(r->why), "needs %s", f->needs);
	}
	for (size_t k = 0; k < sizeof(checks) / sizeof(checks[0]); k++)
		run_check(&c, k, &rows[n++]);
	teardown(&c);
	for (size_t i = 0; i < n; i++)
		ok = ok && rows[i].ok;
	if (cli->json) {
		print_json(rows, n, kernel, ok);
	} else {
		printf("%-9s %-46s %-14s %s\n", "LAYER", "FEATURE", "STATE",
		       "WHY");
		for (size_t i = 0; i < n; i++)
			printf("%-9s %-46s %-14s %s\n", rows[i].layer,
			       rows[i].name, rows[i].state, rows[i].why);
	}
	return ok ? 0 : 1;
}
