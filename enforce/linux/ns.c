/*
 * ns.c - the namespaces that close what Landlock (ABI 7) leaves open,
 * and the way into them.
 *
 * The command runs in new mount, PID and IPC namespaces (and, for a
 * user, a user namespace with its own uid and gid mapped to themselves:
 * no new identity, no capability outside; root needs none).  The IPC
 * namespace keeps the SysV shared memory, message queues and semaphores
 * of processes outside out of reach (they are found by key, not path).  The
 * mounts are mounts.c's and covers.c's; pid 1 of the PID namespace is cordon's
 * own init (pid1.c).  Processes outside have no pid the command can name
 * (cmdline, renice, prlimit, kill) and are not listed.  With the network
 * off, a network namespace too: nothing outside is reachable through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce/linux/linux.h"
#include "enforce/linux/mounts.h"
#include "enforce/linux/world.h"
#include "enforce/base/base.h"

static int ns_flags(void)
{
	int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC;

	if (geteuid() != 0)
		flags |= CLONE_NEWUSER;
	return flags;
}

static int map_ids(uid_t uid, gid_t gid);

/* The user's ids mapped (for a user), and a first mount: a host may
 * allow the namespaces and still deny mounts in them (AppArmor's
 * restriction of unprivileged user namespaces).  Mount propagation
 * private from here on: nothing done inside reaches the host. */
static int make_usable(uid_t uid, gid_t gid, const char **step)
{
	*step = "map the user into its namespace";
	if (uid != 0 && map_ids(uid, gid) < 0)
		return -1;
	*step = "make the mounts private";
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* Can this process make the namespaces?  Tried in a vfork child (no
 * copy of the address space); it only makes system calls and writes
 * /proc files from its stack.  @extra: more CLONE_NEW* flags to try. */
static bool can_unshare(int extra)
{
	pid_t pid = vfork();
	int st;

	if (pid < 0)
		return false;
	if (pid == 0) {
		/* taken outside: inside a new user namespace they read
		 * 65534 until they are mapped */
		uid_t uid = geteuid();
		gid_t gid = getegid();
		const char *step;

		if (unshare(ns_flags() | extra) < 0 ||
		    make_usable(uid, gid, &step) < 0)
			_exit(1);
		_exit(0);
	}
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0;
}

/* The rows of the namespace layer.  FEATURE_WORLD: a root holding the
 * granted roots alone (a tmpfs, each root bound in, pivot_root:
 * world.c), which holds reading, writing, executing and devices; built
 * where Landlock is absent (where it is, the host's tree stays, for the
 * shim's explanations), and so a row only there. */

static const struct {
	const char *layer, *name;
} rows[] = {
	{ "mount", FEATURE_WORLD },	{ "mount", FEATURE_RO_MOUNTS },
	{ "mount", FEATURE_NOEXEC },	{ "mount", FEATURE_SOCKETS },
	{ "mount", FEATURE_PROTECTED }, { "pid", FEATURE_PIDNS },
	{ "pid", FEATURE_INIT },	{ "ipc", FEATURE_IPCNS },
	{ "mount", FEATURE_SHM },	{ "mount", FEATURE_PTS },
};

/* The first line of /proc/sys/@name is "0" (@want '0') or "1". */
static bool sysctl_is(const char *name, char want)
{
	char path[128], c = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == want;
}

/* What brings the namespaces to a user, and why this host has them not
 * when a switch says so: a sysctl, or Ubuntu's AppArmor restriction. */
static const char *userns_needs(void)
{
	if (sysctl_is("user/max_user_namespaces", '0'))
		return "unprivileged user namespaces: off here, the sysctl "
		       "user.max_user_namespaces is 0";
	if (sysctl_is("kernel/unprivileged_userns_clone", '0'))
		return "unprivileged user namespaces: off here, the sysctl "
		       "kernel.unprivileged_userns_clone is 0";
	if (sysctl_is("kernel/apparmor_restrict_unprivileged_userns", '1'))
		return "unprivileged user namespaces: restricted here by "
		       "AppArmor, kernel.apparmor_restrict_unprivileged_userns "
		       "is 1";
	return "unprivileged user namespaces";
}

/* ns_features() without a trial: the real namespaces are the trial
 * (ns_refused()). */
static bool deferred;

void ns_add_rows(const struct policy *p, struct feature_set *s, bool ok,
		 bool net_ok, bool world, const char *needs)
{
	hostgate_features(p, net_ok, needs, s);
	netcap_features(p, net_ok, s);
	feature_add(s, (struct feature){
			       .layer = "net",
			       .name = FEATURE_NETNS,
			       .needs = needs,
			       .needed = p->net == NET_OFF,
			       .available = net_ok,
		       });
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (world || strcmp(rows[i].name, FEATURE_WORLD) != 0)
			feature_add(s, (struct feature){
					       .layer = rows[i].layer,
					       .name = rows[i].name,
					       .needs = needs,
					       .needed = true,
					       .available = ok,
				       });
}

void ns_features(const struct policy *p, struct feature_set *s, bool trial)
{
	bool ok = !trial || can_unshare(0);
	bool own_net = p->net == NET_OFF || p->net == NET_HOSTS;
	/* the network namespace: with a trial, tried then only (without,
	 * pid 1's refuses: ns_enter(), or the filter stands in: sysfilter.c) */
	bool net_ok = ok && (!trial || !own_net || can_unshare(CLONE_NEWNET));

	deferred = !trial;
	ns_add_rows(p, s, ok, net_ok, world_stands_in(),
		    geteuid() == 0 ? "namespaces, which a container may refuse"
				   : userns_needs());
}

bool ns_refused(struct feature_set *s, int err)
{
	if (!deferred || (err != EPERM && err != EINVAL && err != ENOSPC &&
			  err != EUSERS && err != EACCES))
		return false;
	for (size_t i = 0; i < s->n; i++) {
		bool ours = strcmp(s->f[i].name, FEATURE_NETNS) == 0 ||
			    strcmp(s->f[i].name, FEATURE_HOSTS) == 0;

		for (size_t j = 0; j < sizeof(rows) / sizeof(rows[0]); j++)
			ours = ours || s->f[i].name == rows[j].name;
		if (ours)
			s->f[i].available = false;
		/* the filter's SysV rule goes on where the IPC namespace
		 * is not (sysfilter.c): as its other rules */
		if (strcmp(s->f[i].name, FEATURE_SYSV) == 0)
			s->f[i].needed = true;
	}
	return true;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int map_ids(uid_t uid, gid_t gid)
{
	char buf[64];

	if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
		return -1;
	snprintf(buf, sizeof(buf), "%u %u 1\n", uid, uid);
	if (write_file("/proc/self/uid_map", buf) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%u %u 1\n", gid, gid);
	return write_file("/proc/self/gid_map", buf);
}

/* Set in ns_fork()'s child: born in the namespaces, as pid 1, with the
 * ids it had outside (inside a new user namespace they read 65534 until
 * they are mapped). */
static bool born_inside;
static bool own_net;		/* ns_own_net() */
static int proxy_listener = -1; /* ns_proxy_listener() */
static struct netcap netcap;	/* ns_netcap() */
static uid_t outer_uid;
static gid_t outer_gid;

pid_t ns_fork(void)
{
	pid_t pid;
	int parent;

	outer_uid = geteuid();
	outer_gid = getegid();
	fflush(NULL);
	/* fork() straight into the namespaces (the same stack, a copy of
	 * the memory): no process in between to relay the exit status,
	 * one fork fewer at every start.  The raw system call runs no
	 * pthread_atfork handler: the one library here that has one,
	 * libcap-ng, is told its new pid (caps_drop). */
	parent = (int)syscall(SYS_pidfd_open, getpid(), 0);
	pid = (pid_t)syscall(SYS_clone, SIGCHLD | ns_flags(), NULL, NULL, NULL,
			     NULL);
	if (pid == 0) {
		born_inside = true;
		/* pid 1 dies with the launcher (and the namespace with it);
		 * set first, before the id maps and the mounts, and then
		 * checked: a launcher killed before that left a pid 1 that
		 * nothing would end, running the command on its own */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (parent >= 0 &&
		    poll(&(struct pollfd){ .fd = parent, .events = POLLIN }, 1,
			 0) > 0)
			_exit(EXIT_CORDON);
	}
	if (parent >= 0)
		close(parent);
	return pid;
}

int ns_enter(const struct policy *p, const char *keep, char *err, size_t errlen)
{
	uid_t uid = born_inside ? outer_uid : geteuid();
	gid_t gid = born_inside ? outer_gid : getegid();
	const char *step;
	pid_t pid;

	if (!born_inside && unshare(ns_flags()) < 0) {
		snprintf(err, errlen, "cannot make the namespaces: %s",
			 strerror(errno));
		return -1;
	}
	if (make_usable(uid, gid, &step) < 0) {
		if (deferred)
			return -2; /* errno for ns_refused() */
		snprintf(err, errlen, "cannot %s: %s", step, strerror(errno));
		return -1;
	}
	if (!born_inside) {
		fflush(NULL);
		pid = fork(); /* the child is pid 1 of the new namespace */
		if (pid < 0) {
			snprintf(err, errlen, "cannot fork: %s",
				 strerror(errno));
			return -1;
		}
		if (pid > 0)
			pid1_relay(pid);
	}
	pid1_catch_signals();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (pid1_seal() < 0) {
		fprintf(stderr, "cordon: cannot make pid 1 undumpable: %s\n",
			strerror(errno));
		_exit(EXIT_CORDON);
	}
	if (mounts_setup(p, keep, err, errlen) < 0) {
		say_error("%s", err);
		_exit(EXIT_CORDON);
	}
	/* With the network off, a network namespace of its own: a loopback
	 * that is down and that nothing inside may raise (no capability).
	 * Made after the mounts, which cover the sockets the host's lists;
	 * where it cannot be made, the filter refuses TCP sockets too. */
	if (p->net == NET_OFF)
		own_net = unshare(CLONE_NEWNET) == 0;
	/* With hosts allowed, the same, or nothing runs; the proxy's
	 * socket listens on its loopback (hostgate.c) */
	if (p->net == NET_HOSTS) {
		if (unshare(CLONE_NEWNET) < 0) {
			say_error("cannot make the network namespace of hosts "
				  "reached only through cordon's proxy "
				  "(--allow-host): %s",
				  strerror(errno));
			_exit(EXIT_CORDON);
		}
		own_net = true;
		proxy_listener = hostgate_listen(err, errlen);
		if (proxy_listener < 0 ||
		    netcap_setup(p, &netcap, err, errlen) < 0) {
			say_error("%s", err);
			_exit(EXIT_CORDON);
		}
	}
	/* The rest of the boundary goes on this process too: the command
	 * will be its child (spawn_exec), made just before the exec. */
	pid1_become();
	return 0;
}

bool ns_own_net(void)
{
	return own_net;
}

int ns_proxy_listener(void)
{
	return proxy_listener;
}

struct netcap *ns_netcap(void)
{
	return &netcap;
}
