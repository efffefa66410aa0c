/*
 * feature.h - what a policy needs from the kernel, and what it gets.
 *
 * Two lists.  The mechanisms: every enforcement layer (Landlock,
 * seccomp, the namespaces, the broker) describes what it can enforce
 * on this kernel as rows (struct feature).  The guarantees: what the
 * policy promises, in a user's words (struct guarantee), each naming
 * the rows that can hold it: a guarantee is held when any of them is
 * available here.  The launcher fails closed only on a needed guarantee
 * that nothing holds (and on a needed row that holds no guarantee at
 * all); `cordon probe` prints both lists.
 */
#ifndef CORDON_FEATURE_H
#define CORDON_FEATURE_H

#include <stdbool.h>
#include <stddef.h>

#define FEATURE_MAX	   48
#define FEATURE_GUARANTEES 32
#define GUARANTEE_BY_MAX   5

/* The rows guarantees name, one spelling for the layer that adds the
 * row and the table of guarantees (enforce/linux/guarantees.c). */
#define FEATURE_FS_RULES  "filesystem read, write and execute rules"
#define FEATURE_TRUNCATE  "truncation of files outside the writable roots"
#define FEATURE_TCP	  "TCP connect and bind rules"
#define FEATURE_IOCTL	  "device ioctls outside the writable roots"
#define FEATURE_ABSTRACT  "abstract UNIX sockets of processes outside"
#define FEATURE_SIGNALS	  "signals to processes outside"
#define FEATURE_PTRACE	  "ptrace of processes outside"
#define FEATURE_WORLD	  "only the granted roots in the command's world"
#define FEATURE_RO_MOUNTS "metadata of files outside the writable roots"
#define FEATURE_NOEXEC	  "programs mapped from non-exec roots"
#define FEATURE_SOCKETS	  "UNIX sockets of processes outside"
#define FEATURE_PROTECTED "protected paths in writable roots"
#define FEATURE_PIDNS	  "processes outside (/proc, pids)"
#define FEATURE_INIT	  "cordon's init: no tracing, environment or fds"
#define FEATURE_IPCNS	  "SysV IPC of processes outside"
#define FEATURE_SHM	  "POSIX shared memory outside (/dev/shm)"
#define FEATURE_PTS	  "terminals outside (/dev/pts)"
#define FEATURE_NETNS	  "the network: a namespace without a route out"
#define FEATURE_CAPTURE                                                        \
	"every program's connections and names captured for the proxy"
#define FEATURE_HOSTS	"hosts reached only through cordon's proxy (--allow-host)"
#define FEATURE_NON_TCP "UDP, raw and other non-TCP sockets"
#define FEATURE_SYSV	"SysV IPC calls (without an IPC namespace)"
#define FEATURE_TIOCSTI "terminal input injection (TIOCSTI)"
#define FEATURE_KERNEL	"io_uring, keyrings, modules, namespaces"
#define FEATURE_ABI32	"32-bit and x32 system calls"
#define FEATURE_BROKER	"UNIX socket files bound after the start"
#define FEATURE_CAPS	"a root user's capabilities"
#define FEATURE_RESOLVE_UNIX                                                   \
	"pathname UNIX sockets: connect and send (RESOLVE_UNIX)"
#define FEATURE_UDP	      "UDP bind, connect and send rules"
#define FEATURE_TSYNC	      "every thread of the process (TSYNC)"
#define FEATURE_QUIET	      "cordon's own expected denials kept out of the audit"
#define FEATURE_BROKER_LISTEN "TCP listen() on a port bind() did not give"

struct feature {
	const char *layer; /* "landlock", "seccomp", "mount", ... */
	const char *name;  /* what it enforces, in a user's words */
	const char *needs; /* what brings it: "Landlock ABI 3 (Linux 6.2)" */
	bool needed;	   /* by the policy at hand */
	bool available;	   /* on the running kernel */
	bool advisory;	   /* reported, never a reason to refuse */
	bool gap;	   /* no layer on any kernel here closes it: listed
			    * by the probe, never noted at each run */
};

/* A guarantee of the policy, and the rows (by name) that can hold it:
 * any one of them available holds it (a NULL entry is none). */
struct guarantee {
	const char *name; /* "no signal to processes outside" */
	bool needed;	  /* by the policy at hand */
	const char *by[GUARANTEE_BY_MAX];
};

struct feature_set {
	struct feature f[FEATURE_MAX];
	size_t n;
	struct guarantee g[FEATURE_GUARANTEES];
	size_t ng;
};

/* Append a feature (a guarantee); silently capped at FEATURE_MAX
 * (FEATURE_GUARANTEES): a programming error caught by the unit tests. */
void feature_add(struct feature_set *s, struct feature f);
void feature_guarantee(struct feature_set *s, struct guarantee g);

/* True when every feature of @layer is available. */
bool feature_layer_ok(const struct feature_set *s, const char *layer);

/* The row named @name (NULL: none), or NULL. */
const struct feature *feature_find(const struct feature_set *s,
				   const char *name);

/* The guarantee named @name, or NULL. */
const struct guarantee *guarantee_find(const struct feature_set *s,
				       const char *name);

/* Is @g held here: is one of its rows available, and needed (a row
 * the policy does not need is not applied)? */
bool guarantee_held(const struct feature_set *s, const struct guarantee *g);

/*
 * guarantee_holders - the mechanisms that hold @g here, in a user's
 * words ("Landlock", "the mount namespace": feature_mechanism()), each
 * once, in the order of @g's rows, into @words.
 * Return: how many (at most @max).
 */
size_t guarantee_holders(const struct feature_set *s, const struct guarantee *g,
			 const char **words, size_t max);

/* @n @words joined into @out: "A", "A@lastB", "A, B@lastC" (@last is
 * " and " or " or ").  Return: @out. */
const char *guarantee_join(const char *const *words, size_t n, const char *last,
			   char *out, size_t len);

/*
 * guarantee_would - what would hold @g, into @out: each of its
 * mechanisms with what brings it ("Landlock ABI 3 (Linux 6.2) or the
 * mount namespace (unprivileged user namespaces: ...)"), each once.
 * Return: @out.
 */
const char *guarantee_would(const struct feature_set *s,
			    const struct guarantee *g, char *out, size_t len);

/* The mechanism of @f in a user's words: "Landlock", "the PID
 * namespace", "the seccomp filter", "the broker", ... */
const char *feature_mechanism(const struct feature *f);

/* Is @f a reason to refuse: needed, not advisory, not available, and
 * a row of no guarantee (nothing else could hold what it enforces)? */
bool feature_alone_missing(const struct feature_set *s,
			   const struct feature *f);

/* Is @f unavailable, but each needed guarantee it serves held by
 * another row (and it serves one)? */
bool feature_stood_in(const struct feature_set *s, const struct feature *f);

/* Is @f one of the rows of @g? */
bool guarantee_serves(const struct guarantee *g, const struct feature *f);

/* Is @g needed and held by nothing here? */
bool guarantee_missing(const struct feature_set *s, const struct guarantee *g);

/* How many reasons to refuse: needed guarantees that nothing holds,
 * and rows that feature_alone_missing(). */
size_t feature_missing(const struct feature_set *s);

#endif
