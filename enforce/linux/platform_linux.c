/*
 * platform_linux.c - the kernel boundary on Linux (platform.h):
 * Landlock, then the seccomp filter and the capability drop, inside the
 * mount and PID namespaces where the host allows them.
 *
 * Only the order and the choice of layers live here; each layer is its
 * own module (landlock.c, sysfilter.c, caps.c, ns.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "enforce/linux/linux.h"
#include "shim/core/landlock.h"
#include "enforce/base/base.h"

/* The kernel's state platform_features() found, for a refusal that
 * the namespaces themselves decide (refuse()). */
static int kernel_abi;

int platform_features(const struct policy *p, struct feature_set *s)
{
	int abi = landlock_abi();

	kernel_abi = abi;
	landlock_features(p, abi, s);
	sockgate_features(p, s);
	caps_features(s, false);
	/* no trial namespace (~0.3 ms a start) but for --best-effort,
	 * which must know what it runs without before it starts */
	ns_features(p, s, p->best_effort);
	sysfilter_features(p, s);
	guarantees_add(p, s);
	return abi;
}

/* The namespaces, made with no trial, failed with @err: when the
 * kernel refuses them, the refusal a trial would have given. */
static bool refuse(const struct feature_set *s, int err)
{
	static struct feature_set now;

	now = *s;
	if (!ns_refused(&now, err))
		return false;
	notes_refusal(&now, kernel_abi);
	return true;
}

/* The namespaces narrow what learning must see: not while learning. */
static bool wants_namespaces(const struct feature_set *s, bool learning)
{
	return feature_layer_ok(s, "mount") && !learning;
}

int platform_roots(struct policy *p, const struct feature_set *s, bool learning)
{
	if (!wants_namespaces(s, learning))
		return 0;
	return devices_console_root(p);
}

pid_t platform_fork(const struct feature_set *s, bool learning)
{
	pid_t pid;

	if (!wants_namespaces(s, learning))
		return fork();
	pid = ns_fork();
	if (pid < 0 && refuse(s, errno))
		return -2;
	return pid;
}

bool platform_stays(void)
{
	return pid1_is_init();
}

void platform_relay(pid_t child)
{
	pid1_relay(child);
}

int platform_enforce(const struct policy *p, const struct feature_set *s,
		     int abi, const char *keep, bool learning, int gate,
		     char *err, size_t errlen)
{
	bool namespaces = wants_namespaces(s, learning);
	int ret = 0;

	if (namespaces) {
		ret = ns_enter(p, keep, err, errlen);
		if (ret == -2 && refuse(s, errno)) {
			err[0] = '\0'; /* said */
			return -1;
		}
		if (ret == -2)
			snprintf(err, errlen, "cannot make the namespaces: %s",
				 strerror(errno));
	}
	if (!ret && abi >= 1)
		ret = landlock_apply(p, abi, NULL, err, errlen);
	if (!ret && feature_layer_ok(s, "seccomp"))
		ret = sysfilter_apply(p, namespaces, err, errlen);
	if (!ret && gate >= 0)
		ret = sockgate_install(gate, sockgate_broker(s), p->net,
				       ns_proxy_listener(), ns_netcap(), err,
				       errlen);
	if (!ret)
		ret = caps_drop(err, errlen);
	return ret;
}

bool platform_gate(const struct feature_set *s, const struct policy *p,
		   bool learning)
{
	return !learning &&
	       (sockgate_broker(s) != SOCKGATE_NONE || p->net == NET_HOSTS);
}

int platform_gate_serve(int fd, const struct policy *p,
			void (*record)(void *arg, json_t *rec), void *arg,
			void **handle)
{
	return sockgate_serve(fd, p, record, arg, handle);
}

void platform_gate_stop(void *handle)
{
	sockgate_stop(handle);
}

void platform_hosts_ask(int (*ask)(const char *spec, unsigned int client_port,
				   bool udp))
{
	hostgate_ask(ask);
}

const char *platform_hosts_capture_why(void)
{
	const struct netcap *nc = ns_netcap();

	if (nc->captured)
		return NULL;
	return nc->why[0] ? nc->why : "no network namespace";
}

void platform_describe(int abi, char *buf, size_t len)
{
	static struct utsname u;
	const char *release = uname(&u) == 0 ? u.release : "unknown";

	if (abi >= 1)
		snprintf(buf, len, "Linux %s, Landlock ABI %d", release, abi);
	else if (abi == -EOPNOTSUPP)
		snprintf(buf, len, "Linux %s, Landlock disabled at boot",
			 release);
	else
		snprintf(buf, len, "Linux %s, no Landlock: %s", release,
			 strerror(-abi));
}

const char *platform_hint(int abi)
{
	if (abi == -EOPNOTSUPP)
		return "Landlock is built in but not enabled: add landlock to "
		       "the lsm= boot parameter";
	return NULL;
}

int platform_self_exe(char out[PATH_BUF])
{
	ssize_t n = readlink("/proc/self/exe", out, PATH_BUF - 1);

	if (n < 0)
		return -errno;
	if (n == 0)
		return -ENOENT;
	out[n] = '\0';
	return 0;
}

const char *platform_shim_file(void)
{
	return "libcordon.so";
}
