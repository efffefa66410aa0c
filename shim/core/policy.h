/*
 * policy.h - the one policy model shared by the launcher and the shim.
 *
 * A policy is a set of roots, each with rights R (read), W (write) and
 * X (execute), a network policy and an environment policy.  A path gets
 * the union of the rights of every root that contains it, exactly as
 * Landlock computes it, so that a verdict here predicts the kernel's.
 *
 * Nothing here allocates on the decision path: policy_rights() may be
 * called between vfork and exec.
 */
#ifndef CORDON_POLICY_H
#define CORDON_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RIGHT_R	  0x1u
#define RIGHT_W	  0x2u
#define RIGHT_X	  0x4u
#define RIGHT_ALL (RIGHT_R | RIGHT_W | RIGHT_X)
/* Connect and send to the UNIX sockets beneath (--connect-unix): no
 * file right, and none of RIGHT_ALL. */
#define RIGHT_U 0x8u

#define POLICY_MAX_ROOTS 256
#define POLICY_MAX_PORTS 64
#define POLICY_MAX_ENV	 128
#define POLICY_MAX_HOSTS 64
/* The port of cordon's egress proxy on the loopback of the command's
 * network namespace (--allow-host): the namespace is the command's
 * own, so the port is always free there. */
#define POLICY_PROXY_PORT 3128
/* where transparent capture sends TCP, on the namespace's loopback */
#define POLICY_CAPTURE_PORT 3129

/* Where a root came from: decides the wording of messages. */
enum root_origin {
	ORIGIN_USER,	  /* a --read/--write/--exec flag */
	ORIGIN_DEFAULT,	  /* the mode's defaults (system, workspace, temp) */
	ORIGIN_PROTECTED, /* a path kept from writing inside a writable
			   * root (.git/hooks, a shell rc file, cordon's
			   * own files) or hidden inside a readable one
			   * (/etc/shadow); its rights are what it keeps */
};

struct root {
	char *path; /* canonical, absolute, no trailing slash but for "/" */
	unsigned int rights;
	enum root_origin origin;
	bool is_dir;
};

enum net_mode {
	NET_OFF,   /* no network at all */
	NET_PORTS, /* TCP (and UDP, where granted) only, to and from the
		    * listed ports: the host's network */
	NET_ON,	   /* unrestricted */
	NET_HOSTS, /* only the hosts allowed, through cordon's proxy: a
		    * network namespace of its own, loopback alone */
};

/* Does the command share the host's network namespace?  The network
 * on, or TCP ports; off and hosts-only, it has one of its own. */
static inline bool policy_net_shared(enum net_mode net)
{
	return net == NET_ON || net == NET_PORTS;
}

enum env_mode {
	ENV_SCRUB,   /* the allowlist plus --env names */
	ENV_INHERIT, /* everything, minus nothing */
};

struct policy {
	size_t nroots;

	enum net_mode net;
	uint16_t connect_ports[POLICY_MAX_PORTS];
	size_t nconnect;
	uint16_t bind_ports[POLICY_MAX_PORTS];
	size_t nbind;
	/* UDP ports (--connect udp:53, --bind udp:5353): only with the
	 * host's network (NET_PORTS), held by Landlock ABI 10 */
	uint16_t connect_udp[POLICY_MAX_PORTS];
	size_t nconnect_udp;
	uint16_t bind_udp[POLICY_MAX_PORTS];
	size_t nbind_udp;
	/* --allow-host HOST[:PORT], as given (checked by the launcher);
	 * the shim's copy of the policy holds none */
	char *hosts[POLICY_MAX_HOSTS];
	size_t nhosts;

	enum env_mode env;
	char *env_names[POLICY_MAX_ENV]; /* NAME or glob like LC_* */
	size_t nenv_names;
	char *env_sets[POLICY_MAX_ENV]; /* NAME=VALUE */
	size_t nenv_sets;

	bool best_effort;
	/* hosts allowed, captured in the namespace (enforce/linux/netcap.c):
	 * set by the launcher where the kernel and nft allow it */
	bool capture;
	/* --ask: the command in a process group of its own, the terminal's
	 * foreground, which the supervisor takes back to ask */
	bool ask_fg;
	bool quiet;
	/* the home directory, canonical (NULL: none): where the tools'
	 * roots lie (toolroot.h), and a grant never to suggest whole */
	char *home;

	/* Last: a process touches only the entries in use (the shim's
	 * policy is static; each page touched is a page fault). */
	struct root roots[POLICY_MAX_ROOTS];
};

/**
 * policy_rights - the union of the rights of every root containing @path,
 * limited inside a protected root to that root's own rights (none for a
 * secret, no writing for .git/hooks), unless a root the user gave that
 * grants write, at or below the protected path, covers @path (as the
 * mounts lift it; never below a secret, which is covered whole).
 * @path is absolute and canonical (see path_resolve()).
 * Async-signal-safe; allocates nothing.
 */
unsigned int policy_rights(const struct policy *p, const char *path);

/**
 * policy_unix_allowed - may a pathname UNIX socket at @path (absolute,
 * canonical: the socket file itself) be connected or sent to?  Under a
 * root granting write, or one given with --connect-unix (RIGHT_U).
 * Async-signal-safe; allocates nothing.
 */
bool policy_unix_allowed(const struct policy *p, const char *path);

/**
 * policy_unix_shared - is @path in a temp dir the command shares with
 * the host's processes (/tmp, /var/tmp, /dev/shm), where no root the
 * user gave (--write, --connect-unix) grants it?  Their sockets there
 * (ssh-agent, X11, tmux) are not the command's for lying under a
 * default writable root: covers.c hides those bound at the start, the
 * broker refuses those bound outside later.
 */
bool policy_unix_shared(const struct policy *p, const char *path);

/* May TCP @port be connected to (or bound, with @bind)?  The network
 * on, the port in the --connect (--bind) list, or with hosts allowed
 * any port: the command's network namespace has its loopback alone. */
bool policy_tcp_allowed(const struct policy *p, bool bind, unsigned int port);

/* May UDP @port be sent to (connected to), or bound with @bind?  The
 * network on, or the port in the UDP --connect (--bind) list; bind()
 * of port 0 (an ephemeral port, as the first send takes) wherever a
 * UDP port is granted.  Off and with hosts allowed, no UDP at all. */
bool policy_udp_allowed(const struct policy *p, bool bind, unsigned int port);

/**
 * policy_add_ports - add the ports @s names to @p's connect lists (its
 * bind lists with @bind), each once: "80,443,8000-8010" (TCP), a
 * protocol's prefix for the items after it ("udp:53,5353",
 * "tcp:80,udp:53") or its suffix for one ("53/udp").  The network mode
 * is the caller's.  Async-signal-safe; allocates nothing.
 * Return: 0, -EINVAL (malformed: the lists may hold a part), or -E2BIG
 * (more than POLICY_MAX_PORTS in a list).
 */
int policy_add_ports(struct policy *p, const char *s, bool bind);

/* Does the policy grant any UDP port (with the host's network)? */
static inline bool policy_has_udp(const struct policy *p)
{
	return p->net == NET_PORTS && (p->nconnect_udp || p->nbind_udp);
}

/**
 * policy_listen_allowed - may a TCP socket whose port is @port (0: none
 * yet) listen?  Landlock checks the port bind() gives, not the one a
 * listen() takes when there is none (an ephemeral port, on every
 * address) nor one a failed connect() left: with TCP ports allowed, only
 * a --bind port, or any with --bind 0 (any ephemeral port).  A socket
 * listening already (@listening) may listen again (a new backlog).
 */
bool policy_listen_allowed(const struct policy *p, unsigned int port,
			   bool listening);

/**
 * policy_child_rights - the rights of every entry directly inside the
 * directory @dir (absolute, canonical), in *@rights, when no root lies
 * strictly below @dir: then they are all alike, and an entry that has
 * none is not on the way to a root either.  False, and *@rights
 * untouched, when some root lies below (ask policy_rights() of each).
 * Async-signal-safe; allocates nothing.
 */
bool policy_child_rights(const struct policy *p, const char *dir,
			 unsigned int *rights);

/**
 * policy_is_visible - true when @path has some right, or lies on the way
 * to a root (an ancestor of one): a stat there reveals nothing hidden.
 */
bool policy_is_visible(const struct policy *p, const char *path);

/**
 * policy_allows - the decision: may @need (RIGHT_*) be had at @path
 * (absolute, canonical)?  @need 0 asks whether the path may be seen at
 * all (stat, access): policy_is_visible(); RIGHT_U whether a socket
 * there may be connected to: policy_unix_allowed().  The one answer the
 * shim's hooks, `cordon explain`, the launcher's exec refusal and learn
 * all ask.  Async-signal-safe; allocates nothing.
 */
bool policy_allows(const struct policy *p, unsigned int need, const char *path);

/**
 * path_is_within - true when @path is @root or lies beneath it, on a
 * component boundary ("/a/bc" is not within "/a/b").
 */
bool path_is_within(const char *path, const char *root);

/* Devices every program may read and write as files (/dev/null, the
 * terminal, ...): granted by the launcher's defaults and by the shim
 * used alone.  NULL-terminated. */
extern const char *const policy_rw_devices[];

/* The names git's protections cover in a git directory (gitguard.c):
 * a --write of the git directory lifts them all; NULL-ended. */
#define POLICY_NGIT_FILES 4
extern const char *const policy_git_files[POLICY_NGIT_FILES + 1];

/**
 * policy_root_is_mount - is @r a mount of its own in the sandbox: a root
 * granting write or execute, or a protected path, outside /proc.  What
 * enforce/linux/mounts.c mounts, and what rule.c reasons about links with.
 */
bool policy_root_is_mount(const struct root *r);

/**
 * policy_git_pin - when @path is one of git's protected files in a git
 * directory (policy_git_files), that directory into @pin (PATH_BUF
 * bytes: the mount that pins it, so no other .git takes its place).
 */
bool policy_git_pin(const char *path, char *pin);

/* "r", "rw", "rx", "rwx", "w", "c" (RIGHT_U), ... for messages; "-"
 * for none. */
#define POLICY_RIGHTS_STR 5
const char *policy_rights_str(unsigned int rights, char buf[POLICY_RIGHTS_STR]);

#endif
