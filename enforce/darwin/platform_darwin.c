/*
 * platform_darwin.c - the kernel boundary on macOS (platform.h): the
 * policy rendered as a Seatbelt profile (sbpl.c) and applied to the
 * launcher's own process with sandbox_init() just before it execs the
 * command; every process the command starts inherits it.
 *
 * Fail closed as on Linux: a profile that cannot be written, or that the
 * sandbox refuses (an operation this macOS does not know), is an error
 * (exit 125, nothing runs), --best-effort or not: it is a failure to
 * apply, not a missing feature.  sandbox_init() is in every macOS
 * cordon targets (deprecated since 10.8 as an API for apps, still the
 * one sandbox-exec and the browsers use).  What Seatbelt cannot
 * contain is listed as a gap, as `cordon probe` does on Linux.
 */
#include <errno.h>
#include <limits.h>
#include <mach-o/dyld.h>
#include <sandbox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/sysctl.h>
#include <unistd.h>

#include "enforce/darwin/darwin.h"
#include "enforce/base/base.h"

/* The kernel's state, as platform_features() returns it. */
#define SEATBELT 1

static const char needs[] = "Seatbelt (sandbox_init, macOS 10.5)";

int platform_features(const struct policy *p, struct feature_set *s)
{
	static const char *const held[] = {
		"filesystem read, write and execute rules",
		"metadata of files outside the writable roots",
		"protected paths in writable roots",
		"UNIX sockets of processes outside",
		"signals to processes outside",
		"processes outside (ps, sysctl)",
	};

	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		feature_add(s, (struct feature){ .layer = "seatbelt",
						 .name = held[i],
						 .needs = needs,
						 .needed = true,
						 .available = true });
	feature_add(s,
		    (struct feature){ .layer = "hosts",
				      .name = "hosts reached only through "
					      "cordon's proxy (--allow-host)",
				      .needs = "a network namespace (Linux)",
				      .needed = p->net == NET_HOSTS,
				      .available = false });
	feature_add(s, (struct feature){ .layer = "seatbelt",
					 .name = "TCP connect and bind rules",
					 .needs = needs,
					 .needed = p->net != NET_ON,
					 .available = true });
	feature_add(s, (struct feature){
			       .layer = "seatbelt",
			       .name = "UDP, raw and other non-TCP sockets",
			       .needs = needs,
			       .needed = p->net != NET_ON,
			       .available = true });
	/* The profile grants file-ioctl on the inherited terminal whatever
	 * the request (it filters by path): TIOCSTI is not refused there,
	 * as seccomp refuses it on Linux. */
	feature_add(s, (struct feature){
			       .layer = "seatbelt",
			       .name = "terminal input injection (TIOCSTI)",
			       .needs = "an ioctl filter by request (not in "
					"this profile)",
			       .needed = true,
			       .advisory = true,
			       .gap = true });
	/* dyld drops DYLD_INSERT_LIBRARIES for Apple's binaries. */
	feature_add(s, (struct feature){
			       .layer = "shim",
			       .name = "explanations inside Apple's programs",
			       .needs = "DYLD_INSERT_LIBRARIES, which SIP "
					"strips there",
			       .needed = true,
			       .advisory = true,
			       .gap = true });
	return SEATBELT;
}

/* sandbox_init() is marked deprecated for apps; it is the call. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
static int apply(const char *profile, char *err, size_t errlen)
{
	char *why = NULL;

	if (sandbox_init(profile, 0, &why) == 0)
		return 0;
	snprintf(err, errlen, "the sandbox refused the Seatbelt profile: %s",
		 why ? why : strerror(errno));
	if (why)
		sandbox_free_error(why);
	return -EPERM;
}
#pragma clang diagnostic pop

/* Seatbelt leaves no process behind: the launcher's child execs. */
bool platform_stays(void)
{
	return false;
}

void platform_relay(pid_t child)
{
	(void)child;
	_exit(EXIT_CORDON); /* never called: nothing stays */
}

/* Seatbelt's profile names the terminals itself: nothing to add. */
int platform_roots(struct policy *p, const struct feature_set *s, bool learning)
{
	(void)p;
	(void)s;
	(void)learning;
	return 0;
}

/* Seatbelt needs nothing made before sandbox_init(): a plain fork. */
pid_t platform_fork(const struct feature_set *s, bool learning)
{
	(void)s;
	(void)learning;
	return fork();
}

/*
 * Nothing less than the profile, or nothing: sandbox_init() applies
 * all of it or fails.  While learning, the policy main.c hands over is
 * already the wide one; Seatbelt has no part to leave out.
 */
int platform_enforce(const struct policy *p, const struct feature_set *s,
		     int state, const char *keep, bool learning, int gate,
		     char *err, size_t errlen)
{
	char *profile;
	int ret;

	(void)s;
	(void)state;
	(void)learning;
	(void)gate;
	profile = darwin_profile(p, keep, err, errlen);
	if (!profile)
		return -EINVAL;
	ret = apply(profile, err, errlen);
	free(profile);
	return ret;
}

/* Seatbelt decides connect() on socket files itself (sbpl.c's
 * network-outbound rules): nothing to serve. */
bool platform_gate(const struct feature_set *s, const struct policy *p,
		   bool learning)
{
	(void)p;
	(void)s;
	(void)learning;
	return false;
}

int platform_gate_serve(int fd, const struct policy *p,
			void (*record)(void *arg, json_t *rec), void *arg,
			void **handle)
{
	(void)p;
	(void)record;
	(void)arg;
	close(fd);
	*handle = NULL;
	return 0;
}

void platform_gate_stop(void *handle)
{
	(void)handle;
}

void platform_hosts_ask(int (*ask)(const char *spec, unsigned int client_port,
				   bool udp))
{
	(void)ask;
}

const char *platform_hosts_capture_why(void)
{
	return "no network namespace on macOS";
}

void platform_describe(int state, char *buf, size_t len)
{
	char version[64] = "unknown";
	size_t n = sizeof(version);

	if (sysctlbyname("kern.osproductversion", version, &n, NULL, 0) != 0)
		snprintf(version, sizeof(version), "unknown");
	(void)state;
	snprintf(buf, len, "macOS %s, Seatbelt", version);
}

const char *platform_hint(int state)
{
	(void)state;
	return NULL;
}

_Static_assert(PATH_MAX <= PATH_BUF, "realpath() writes up to PATH_MAX");

/* dyld's path of the executable may be relative or hold symlinks. */
int platform_self_exe(char out[PATH_BUF])
{
	char exe[PATH_BUF];
	uint32_t size = sizeof(exe);

	if (_NSGetExecutablePath(exe, &size) != 0)
		return -ENAMETOOLONG;
	if (!realpath(exe, out))
		return -errno;
	return 0;
}

const char *platform_shim_file(void)
{
	return "libcordon.dylib";
}
