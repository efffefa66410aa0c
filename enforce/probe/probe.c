/*
 * probe.c - `cordon probe`: prove what this host enforces.
 *
 * Reading the ABI is not proof.  For each forbidden action (probe_checks.c)
 * a child attempts it twice: once without the sandbox (the twin: if the
 * action fails there, the row says it could not be tested) and once
 * inside the boundary the default policy installs.  The verdict is read
 * from outside, by the parent: the file is absent, the content unchanged,
 * the listener got nothing, the other process still lives.
 *
 * Exit: 0 when everything the default policy needs holds, 1 otherwise,
 * 125 when the probe itself could not run.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/linux/linux.h"
#include "shim/core/landlock.h"
#include "enforce/probe/probe.h"
#include "enforce/probe/probe_checks.h"
#include "enforce/base/base.h"
#include "enforce/policy/policy.h"

#define STATUS_SETUP_FAILED 254

struct row {
	const char *layer, *name, *state;
	char why[160];
	bool ok;
};

struct table {
	struct row rows[FEATURE_MAX + 32];
	size_t n;
};

static int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	ssize_t n;
	int in, out, ret = 0;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			ret = -EIO;
			break;
		}
	if (n < 0)
		ret = -errno;
	close(in);
	close(out);
	return ret;
}

static int make_dirs(struct ctx *c)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(c->base, sizeof(c->base), "%s/cordon-probe-XXXXXX",
		 tmp && *tmp == '/' && strlen(tmp) < 32 ? tmp : "/tmp");
	if (!mkdtemp(c->base))
		return -errno;
	snprintf(c->ws, sizeof(c->ws), "%s/ws", c->base);
	snprintf(c->out, sizeof(c->out), "%s/out", c->base);
	if (mkdir(c->ws, 0700) < 0 || mkdir(c->out, 0700) < 0)
		return -errno;
	return 0;
}

static int make_fixture(struct ctx *c)
{
	char p[128];
	int fd, ret = make_dirs(c);

	if (ret)
		return ret;
	snprintf(p, sizeof(p), "%s/secret", c->out);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, PROBE_SECRET, strlen(PROBE_SECRET)) < 0)
		ret = -errno;
	close(fd);
	snprintf(p, sizeof(p), "%s/sh", c->out);
	snprintf(c->late, sizeof(c->late), "%s/late.sock", c->out);
	return ret ? ret : copy_file("/bin/sh", p, 0755);
}

/* Whatever the checks left in it, through descriptors (rmtree.h): the
 * fixture is in the shared temp dir, where a sandbox may swap its
 * directories for links. */
static void remove_fixture(struct ctx *c)
{
	struct rmtree_left left;

	if (c->base[0] && rmtree_at(AT_FDCWD, c->base, &left) < 0)
		say_error("the probe's fixture '%s' was not removed whole: "
			  "%zu left, the first '%s': %s",
			  c->base, left.n, left.name, strerror(left.err));
}

static int listen_on(int type, struct sockaddr *addr, socklen_t len)
{
	int fd =
		socket(addr->sa_family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	if (bind(fd, addr, len) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 8) < 0) ||
	    getsockname(fd, addr, &len) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int make_listeners(struct ctx *c)
{
	c->tcp_addr = (struct sockaddr_in){ .sin_family = AF_INET,
					    .sin_addr.s_addr =
						    htonl(INADDR_LOOPBACK) };
	c->udp_addr = c->tcp_addr;
	c->tcp = listen_on(SOCK_STREAM, (struct sockaddr *)&c->tcp_addr,
			   sizeof(c->tcp_addr));
	c->udp = listen_on(SOCK_DGRAM, (struct sockaddr *)&c->udp_addr,
			   sizeof(c->udp_addr));
	c->unix_addr.sun_family = AF_UNIX;
	snprintf(c->unix_addr.sun_path + 1, sizeof(c->unix_addr.sun_path) - 1,
		 "cordon-probe-%d", (int)getpid());
	c->unix_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				  strlen(c->unix_addr.sun_path + 1));
	c->unix_fd = listen_on(SOCK_STREAM, (struct sockaddr *)&c->unix_addr,
			       c->unix_len);
	if (c->tcp < 0 || c->udp < 0 || c->unix_fd < 0)
		return -EADDRNOTAVAIL;
	return 0;
}

/* The probe's own attempts are expected denials: kept out of the
 * kernel's audit (Landlock ABI 10), its files and its listeners' ports. */
static int apply_landlock(struct ctx *c, char *err, size_t errlen)
{
	uint16_t ports[2] = { ntohs(c->tcp_addr.sin_port),
			      ntohs(c->udp_addr.sin_port) };
	struct landlock_opts o = {
		.quiet = true,
		.quiet_ports = ports,
		.nquiet_ports = 2,
	};

	return landlock_apply(&c->policy, c->abi, &o, err, errlen);
}

/* The host's network, one UDP port granted: the listener's (@listener)
 * or another. */
static void grant_udp(struct ctx *c, bool listener)
{
	unsigned int port = ntohs(c->udp_addr.sin_port);

	c->policy.net = NET_PORTS;
	c->policy.connect_udp[0] = (uint16_t)(listener ? port : port ^ 1);
	c->policy.nconnect_udp = 1;
}

/* Put this process (a child of the probe's) in the sandbox @how says
 * (probe_checks.h). */
static int sandbox_self(struct ctx *c, const struct feature_set *fs,
			enum probe_how how)
{
	char err[512];

	if (how == PROBE_THREADS)
		return 0; /* the attempt applies Landlock itself */
	/* The network off to Landlock and the filter alike, but no
	 * namespace of its own (ns.c makes one for NET_OFF only). */
	if (how == PROBE_NO_NETNS)
		c->policy.net = NET_PORTS;
	if (how == PROBE_UDP_OTHER || how == PROBE_UDP_GRANTED)
		grant_udp(c, how == PROBE_UDP_GRANTED);
	if (feature_layer_ok(fs, "mount") &&
	    ns_enter(&c->policy, NULL, err, sizeof(err)))
		return -1;
	if (how == PROBE_NETNS_ALONE)
		return 0;
	if (c->abi >= 1 && apply_landlock(c, err, sizeof(err)))
		return -1;
	if (feature_layer_ok(fs, "seccomp") &&
	    sysfilter_apply(&c->policy, feature_layer_ok(fs, "pid"), err,
			    sizeof(err)))
		return -1;
	if (c->gate >= 0 && sockgate_install(c->gate, sockgate_broker(fs),
					     c->policy.net, ns_proxy_listener(),
					     ns_netcap(), err, sizeof(err)))
		return -1;
	if (feature_layer_ok(fs, "caps") && caps_drop(err, sizeof(err)))
		return -1;
	/* as a command is run: the child of the namespace's pid 1 */
	if (pid1_is_init()) {
		pid_t pid = fork();

		if (pid < 0)
			return -1;
		if (pid > 0)
			pid1_relay(pid);
	}
	return 0;
}

static void drop_record(void *arg, json_t *rec)
{
	(void)arg;
	json_decref(rec);
}

/* The broker's gate for a sandboxed attempt of a check that needs it
 * (one with something bound late), as main.c makes it for a command. */
static int open_gate(const struct check *k, bool sandboxed,
		     const struct feature_set *fs, int gate[2])
{
	int on = 1;

	gate[0] = gate[1] = -1;
	if (!sandboxed || !(k->how == PROBE_HOSTS ||
			    (k->late && sockgate_broker(fs) != SOCKGATE_NONE)))
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, gate) < 0)
		return -1;
	return setsockopt(gate[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
}

/* Run @k in a child; return its errno (0: done), or -1 on setup failure. */
static int attempt(struct ctx *c, const struct check *k, bool sandboxed,
		   const struct feature_set *fs)
{
	void *served = NULL;
	int st, gate[2];
	pid_t pid;

	if (open_gate(k, sandboxed, fs, gate))
		return -1;
	/* the one host allowed, for the child's boundary and the proxy
	 * served here alike; put back below */
	if (sandboxed && k->how == PROBE_HOSTS) {
		c->policy.net = NET_HOSTS;
		c->policy.hosts[0] = c->hosts_rule;
		c->policy.nhosts = 1;
		c->policy.quiet = true; /* the proxy's lines: the row says */
	}
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		c->inside = sandboxed;
		c->gate = gate[1];
		if (gate[0] >= 0) {
			close(gate[0]);
			fcntl(gate[1], F_SETFD, 0); /* kept by pid1_seal() */
		}
		if (sandboxed && sandbox_self(c, fs, k->how))
			_exit(STATUS_SETUP_FAILED);
		_exit(k->attempt(c) & 0xff);
	}
	if (gate[0] >= 0) {
		close(gate[1]);
		if (sockgate_serve(gate[0], &c->policy, drop_record, NULL,
				   &served))
			kill(pid, SIGKILL);
	}
	if (k->late)
		k->late(c);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) == STATUS_SETUP_FAILED)
		st = -1;
	sockgate_stop(served);
	if (k->how == PROBE_HOSTS) {
		c->policy.net = NET_OFF;
		c->policy.nhosts = 0; /* hosts_rule is the fixture's */
		c->policy.quiet = false;
	}
	return st < 0 ? -1 : WEXITSTATUS(st);
}

static void run_check(struct ctx *c, const struct check *k,
		      const struct feature_set *fs, struct row *r)
{
	const struct feature *f = feature_find(fs, k->feature);
	bool by = f && feature_stood_in(fs, f);
	struct check whole;
	char words[256];
	int twin, res;
	bool happened;

	/* a grant that cannot work here (refused at the start), or a right
	 * that holds no guarantee of the policy: nothing to prove */
	if (f && !f->available && (k->positive || (f->advisory && !by))) {
		*r = (struct row){ .layer = k->layer, .name = k->name };
		r->ok = true;
		r->state = "not tested";
		snprintf(r->why, sizeof(r->why), "needs %s", f->needs);
		return;
	}
	if (by) { /* Landlock lacks it here: what holds it is tried */
		whole = *k;
		whole.how = PROBE_WHOLE;
		k = &whole;
	}
	*r = (struct row){ .layer = k->layer, .name = k->name };
	twin = attempt(c, k, false, fs);
	happened = k->happened(c);
	if (k->reset)
		k->reset(c);
	if (twin != 0 || !happened) {
		r->state = "untested";
		snprintf(r->why, sizeof(r->why),
			 "fails even without the sandbox (%s)",
			 twin > 0 ? strerror(twin) : "no effect");
		return;
	}
	if (k->how == PROBE_HOSTS && (!feature_layer_ok(fs, "hosts") ||
				      !feature_layer_ok(fs, "mount"))) {
		r->ok = true; /* not needed unless hosts are allowed */
		r->state = "not needed";
		snprintf(r->why, sizeof(r->why),
			 "no network namespace here: --allow-host is refused");
		return;
	}
	res = attempt(c, k, true, fs);
	happened = k->happened(c);
	if (k->reset)
		k->reset(c);
	if (k->positive) {
		r->ok = res == 0 && happened;
		r->state = r->ok ? "works" : "BROKEN";
		if (r->ok)
			snprintf(r->why, sizeof(r->why),
				 "reached, seen from outside");
		else
			snprintf(r->why, sizeof(r->why), "not reached: %s",
				 res < 0   ? "the sandbox failed to start"
				 : res > 0 ? strerror(res)
					   : "nothing arrived");
		return;
	}
	r->ok = res > 0 && !happened;
	r->state = r->ok ? (by ? "held" : "enforced") : "NOT ENFORCED";
	if (res < 0)
		snprintf(r->why, sizeof(r->why), "the sandbox failed to start");
	else if (r->ok && by)
		snprintf(r->why, sizeof(r->why),
			 "Landlock lacks it; %s denied it (%s), no effect "
			 "outside; works unsandboxed",
			 probe_stood_in_by(fs, f, k->guarantee, words,
					   sizeof(words)),
			 strerror(res));
	else if (r->ok)
		snprintf(r->why, sizeof(r->why),
			 "denied (%s), no effect "
			 "outside; works unsandboxed",
			 strerror(res));
	else
		snprintf(r->why, sizeof(r->why), "went through: %s",
			 happened ? "seen from outside" : "the call succeeded");
}

static void feature_rows(const struct feature_set *fs, int abi, struct table *t)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct feature *f = &fs->f[i];
		struct row *r = &t->rows[t->n++];
		bool by = feature_stood_in(fs, f);
		char words[256];

		/* the broker where Landlock holds what it would */
		bool idle = f->available && !f->needed &&
			    strcmp(f->layer, "broker") == 0;

		*r = (struct row){ .layer = f->layer, .name = f->name };
		r->ok = f->available || !f->needed || f->advisory || by;
		r->state = f->gap	  ? "not contained"
			   : idle	  ? "not installed"
			   : f->available ? "available"
			   : !f->needed	  ? "not needed"
			   : by		  ? "held"
			   : f->advisory  ? "missing (advisory)"
					  : "MISSING";
		if (idle)
			snprintf(r->why, sizeof(r->why), "%s",
				 strcmp(f->name, FEATURE_BROKER) == 0
					 ? "Landlock holds the UNIX sockets "
					   "here"
					 : "needed with TCP ports only");
		else if (f->available && strcmp(f->layer, "landlock") == 0)
			snprintf(r->why, sizeof(r->why), "Landlock ABI %d",
				 abi);
		else if (f->needed && by)
			snprintf(r->why, sizeof(r->why),
				 "held by %s; this needs %s",
				 probe_stood_in_by(fs, f, NULL, words,
						   sizeof(words)),
				 f->needs);
		else
			snprintf(r->why, sizeof(r->why), "needs %s", f->needs);
	}
}

static void print_table(const struct table *t)
{
	printf("%-9s %-46s %-14s %s\n", "LAYER", "FEATURE", "STATE", "WHY");
	for (size_t i = 0; i < t->n; i++) {
		const struct row *r = &t->rows[i];

		printf("%-9s %-46s %-14s %s\n", r->layer, r->name, r->state,
		       r->why);
	}
}

static int print_json(const struct table *t, const struct feature_set *fs,
		      int abi, bool ok)
{
	json_t *root = json_object(), *rows = json_array();
	struct utsname u;
	char *s;

	uname(&u);
	json_object_set_new(root, "kernel", json_string(u.release));
	/* no Landlock: 0, not the -errno that landlock_abi() returned */
	json_object_set_new(root, "landlock_abi",
			    json_integer(abi > 0 ? abi : 0));
	json_object_set_new(root, "ok", json_boolean(ok));
	for (size_t i = 0; i < t->n; i++) {
		const struct row *r = &t->rows[i];

		json_array_append_new(
			rows, json_pack("{s:s, s:s, s:s, s:b, s:s}", "layer",
					r->layer, "feature", r->name, "state",
					r->state, "ok", r->ok, "why", r->why));
	}
	json_object_set_new(root, "features", rows);
	json_object_set_new(root, "guarantees", probe_guarantees_json(fs));
	s = json_dumps(root, JSON_INDENT(2));
	json_decref(root);
	if (!s)
		return -ENOMEM;
	puts(s);
	free(s);
	return 0;
}

static int setup(struct ctx *c)
{
	int ret;

	ret = make_fixture(c);
	if (!ret)
		ret = make_listeners(c);
	if (!ret)
		ret = roots_add_system(&c->policy);
	if (!ret)
		ret = policy_add_root(&c->policy, c->ws, RIGHT_ALL,
				      ORIGIN_DEFAULT, true);
	if (!ret)
		ret = probe_iso_setup(c);
	if (!ret)
		ret = probe_hosts_setup(c);
	c->victim = probe_start_victim();
	return ret ? ret : c->victim < 0 ? -errno : 0;
}

static void teardown(struct ctx *c)
{
	if (c->victim > 0) {
		kill(c->victim, SIGKILL);
		waitpid(c->victim, NULL, 0);
	}
	probe_iso_teardown(c);
	probe_hosts_teardown(c);
	remove_fixture(c);
	policy_free(&c->policy);
}

int probe_run(const struct cli *cli)
{
	static struct ctx c;
	static struct table t;
	static struct feature_set fs;
	bool ok;
	int ret;

	if (cli->mode_set)
		return probe_mode_run((struct cli *)cli);
	c.tcp = c.udp = c.unix_fd = c.pty = c.shm_id = c.late_fd = -1;
	c.gate = c.hosts_fd = -1;
	ret = setup(&c);
	if (ret) {
		say_error("probe: cannot set up in '%s': %s", c.base,
			  strerror(-ret));
		teardown(&c);
		return 125;
	}
	c.abi = landlock_abi();
	landlock_features(&c.policy, c.abi, &fs);
	sockgate_features(&c.policy, &fs);
	caps_features(&fs, true);
	ns_features(&c.policy, &fs, true);
	sysfilter_features(&c.policy, &fs);
	guarantees_add(&c.policy, &fs);
	feature_rows(&fs, c.abi, &t);
	for (size_t i = 0; i < probe_nchecks; i++)
		run_check(&c, &probe_checks[i], &fs, &t.rows[t.n++]);
	for (size_t i = 0; i < probe_iso_nchecks; i++)
		run_check(&c, &probe_iso_checks[i], &fs, &t.rows[t.n++]);
	for (size_t i = 0; i < probe_unix_nchecks; i++)
		run_check(&c, &probe_unix_checks[i], &fs, &t.rows[t.n++]);
	for (size_t i = 0; i < probe_landlock_nchecks; i++)
		run_check(&c, &probe_landlock_checks[i], &fs, &t.rows[t.n++]);
	for (size_t i = 0; i < probe_hosts_nchecks; i++)
		run_check(&c, &probe_hosts_checks[i], &fs, &t.rows[t.n++]);
	teardown(&c);
	ok = probe_guarantees_ok(&fs);
	for (size_t i = 0; i < t.n; i++)
		ok = ok && t.rows[i].ok;
	if (cli->json) {
		ret = print_json(&t, &fs, c.abi, ok);
	} else {
		probe_guarantees_print(&fs);
		print_table(&t);
	}
	return ret ? 125 : ok ? 0 : 1;
}
