/*
 * sbpl_base.c - the part of the Seatbelt profile that does not depend
 * on the roots: the head, the sysctls, the C library's services, the
 * loader and the system volume, the terminal; preferences and POSIX IPC
 * only as the policy's roots allow them (sbpl.c renders the rest).
 *
 * Pure, as sbpl.c is: it writes what the host facts and the policy
 * say and looks nothing up.  It must never name a user path outside a
 * string literal.
 */
#include <stdbool.h>
#include <stdio.h>

#include "enforce/darwin/sbpl_gen.h"

static const char head[] =
	"(version 1)\n"
	"; cordon: the policy of one run, for Seatbelt.  What no rule allows\n"
	"; is denied; where rules overlap, the last one that matches "
	"decides.\n"
	"(deny default)\n"
	"\n"
	"; Processes: start children; signal and inspect only the processes\n"
	"; of this sandbox (Landlock's signal scope and the PID namespace "
	"on\n"
	"; Linux).\n"
	"(allow process-fork)\n"
	"(allow signal (target same-sandbox))\n"
	"(allow process-info* (target same-sandbox))\n";

/* What the C library and language runtimes read at start: the CPU and
 * memory, the OS version, limits; nothing about other processes. */
static const char *const sysctl_prefixes[] = { "hw.", "machdep.cpu.", NULL };
static const char *const sysctl_names[] = {
	"kern.argmax",
	"kern.boottime",
	"kern.hostname",
	"kern.maxfiles",
	"kern.maxfilesperproc",
	"kern.ngroups",
	"kern.osproductversion",
	"kern.osrelease",
	"kern.ostype",
	"kern.osvariant_status",
	"kern.osversion",
	"kern.secure_kernel",
	"kern.usrstack64",
	"kern.version",
	"security.mac.lockdown_mode_state",
	"sysctl.proc_cputype",
	"sysctl.proc_translated",
	"vm.loadavg",
	NULL,
};

static void put_sysctls(struct gen *g)
{
	sb_puts(g->out, "\n; System facts libSystem and language runtimes "
			"read: CPU, memory, OS\n; version, limits.\n");
	sbpl_open_rule(g, "allow", "sysctl-read");
	for (size_t i = 0; sysctl_prefixes[i]; i++)
		sbpl_next_filter(g, "sysctl-name-prefix", sysctl_prefixes[i]);
	for (size_t i = 0; sysctl_names[i]; i++)
		sbpl_next_filter(g, "sysctl-name", sysctl_names[i]);
	sbpl_close_rule(g);
}

static void put_services(struct gen *g)
{
	sb_puts(g->out,
		"\n; Services of the C library: user and group names "
		"(getpwuid, id),\n; notifications (time zone changes) and "
		"their shared page, the\n; per-user temp and cache "
		"directories (confstr).\n");
	sbpl_open_rule(g, "allow", "mach-lookup");
	sbpl_next_filter(g, "global-name",
			 "com.apple.system.opendirectoryd.libinfo");
	sbpl_next_filter(g, "global-name",
			 "com.apple.system.opendirectoryd.membership");
	sbpl_next_filter(g, "global-name",
			 "com.apple.system.notification_center");
	sbpl_next_filter(g, "global-name", "com.apple.bsd.dirhelper");
	sbpl_close_rule(g);
	sbpl_rule(g, "allow", "ipc-posix-shm-read-data", "ipc-posix-name",
		  "apple.shm.notification_center");
	sb_puts(g->out, "; UNIX sockets may be made (where they may connect "
			"is below).\n"
			"(allow system-socket (socket-domain AF_UNIX))\n");
}

/* Preferences are read through cfprefsd, not as files: only when the
 * policy lets the command read the user's Library/Preferences. */
static void put_preferences(struct gen *g)
{
	char dir[SBPL_PATH], buf[SBPL_PATH];
	int n;

	if (!g->h->home)
		return;
	n = snprintf(dir, sizeof(dir), "%s/Library/Preferences", g->h->home);
	if (n < 0 || n >= (int)sizeof(dir) ||
	    !(policy_rights(&g->pol, sbpl_host_path(g, dir, buf)) & RIGHT_R))
		return;
	sb_puts(g->out, "\n; Preferences (CFPreferences, through cfprefsd): "
			"the policy reads\n; ~/Library/Preferences.\n"
			"(allow user-preference-read)\n");
	sbpl_open_rule(g, "allow", "mach-lookup");
	sbpl_next_filter(g, "global-name", "com.apple.cfprefsd.daemon");
	sbpl_next_filter(g, "global-name", "com.apple.cfprefsd.agent");
	sbpl_next_filter(g, "local-name", "com.apple.cfprefsd.agent");
	sbpl_close_rule(g);
	sbpl_rule(g, "allow", "ipc-posix-shm-read*", "ipc-posix-name-prefix",
		  "apple.cfprefs.");
}

/* POSIX shared memory and semaphores live in a global namespace: what
 * the writable /dev/shm gives on Linux, with the writable temp dirs. */
static void put_ipc(struct gen *g)
{
	if (!(policy_rights(&g->pol, sbpl_tmp_of(g)) & RIGHT_W))
		return;
	sb_puts(g->out, "\n; POSIX shared memory and semaphores, as the "
			"writable /dev/shm on\n; Linux (the temp dirs are "
			"writable).\n"
			"(allow ipc-posix-shm ipc-posix-sem)\n");
}

/* What every process needs to start, whatever the policy: the loader
 * and the shared cache (in the OS cryptex since macOS 13), the OS's own
 * libraries and resources on the sealed system volume; then time zones
 * (localtime) and the shell /bin/sh runs (/var/select/sh). */
static const struct base_path {
	const char *kind, *path;
} loader[] = {
	{ "literal", "/usr/lib/dyld" },
	{ "subpath", "/System/Library" },
	{ "subpath", "/System/Cryptexes" },
	{ "subpath", "/System/Volumes/Preboot/Cryptexes" },
}, readable[] = {
	{ "subpath", "/var/db/timezone" },
	{ "subpath", "/var/select" },
};

static void put_paths(struct gen *g, const char *ops, const struct base_path *v,
		      size_t n)
{
	char buf[SBPL_PATH];

	sbpl_open_rule(g, "allow", ops);
	for (size_t i = 0; i < n; i++)
		sbpl_next_filter(g, v[i].kind,
				 sbpl_host_path(g, v[i].path, buf));
	sbpl_close_rule(g);
}

static void put_system(struct gen *g)
{
	sb_puts(g->out,
		"\n; The loader, the shared cache (in the OS cryptex since "
		"macOS 13) and\n; the OS's own libraries and resources, on "
		"the sealed system volume.\n");
	put_paths(g, "file-read* file-map-executable", loader,
		  sizeof(loader) / sizeof(loader[0]));
	sb_puts(g->out, "; Time zones (localtime), and the shell /bin/sh "
			"runs (/var/select/sh).\n");
	put_paths(g, "file-read*", readable,
		  sizeof(readable) / sizeof(readable[0]));
	sb_puts(g->out, "; The process's own descriptors (/dev/stdout, "
			"<(...)): a dup of what it\n; holds.\n");
	sbpl_rule(g, "allow", "file-read* file-write*", "subpath", "/dev/fd");
}

/* The terminal the command inherits, and the pseudo-terminals it opens
 * itself (script, expect) where the policy grants /dev/ptmx: the pty
 * extension marks those it made. */
static void put_terminal(struct gen *g)
{
	char buf[SBPL_PATH];
	bool pty = policy_rights(&g->pol, "/dev/ptmx") & RIGHT_W;

	if (!g->h->tty && !pty)
		return;
	sb_puts(g->out, "\n; Terminals: the one the command inherits, and "
			"those it opens through\n; /dev/ptmx.\n");
	if (g->h->tty)
		sbpl_rule(g, "allow", "file-read* file-write* file-ioctl",
			  "literal", sbpl_host_path(g, g->h->tty, buf));
	if (!pty)
		return;
	sb_puts(g->out, "(allow pseudo-tty)\n"
			"(allow file-read* file-write* file-ioctl\n"
			"\t(require-all (regex #\"^/dev/ttys[0-9]+$\")\n"
			"\t\t     (extension \"com.apple.sandbox.pty\")))\n");
}
const char *sbpl_base_path(size_t i)
{
	const size_t nloader = sizeof(loader) / sizeof(loader[0]);
	const size_t nreadable = sizeof(readable) / sizeof(readable[0]);

	if (i < nloader)
		return loader[i].path;
	if (i < nloader + nreadable)
		return readable[i - nloader].path;
	return NULL;
}

void sbpl_base_put(struct gen *g)
{
	sb_puts(g->out, head);
	put_sysctls(g);
	put_services(g);
	put_preferences(g);
	put_ipc(g);
	put_system(g);
	put_terminal(g);
}
