/*
 * linux.h - the kernel boundary on Linux (enforce/linux/): namespaces,
 * mounts, devices, pid 1, the seccomp filters, capabilities, and the broker
 * and the proxy wired into a run; platform.h's Linux half.
 *
 * One header, the folder's whole interface: the rest of cordon includes
 * this and nothing else of enforce/linux/.  Its parts, each with the file
 * that implements it, follow.
 */
#ifndef CORDON_ENFORCE_LINUX_H
#define CORDON_ENFORCE_LINUX_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "enforce/cli/cli.h"
#include "enforce/proxy/proxy.h"
#include "shim/core/feature.h"
#include "shim/core/policy.h"

/*
 * caps.c - no capabilities inside the sandbox, for root as for a user.
 */

/* Describe the capability layer on this system: always available;
 * with @exact (cordon probe), needed when the launcher holds any
 * capability, as root does; otherwise counted as needed without asking
 * (the drop runs at every start anyway). */
void caps_features(struct feature_set *s, bool exact);

/**
 * caps_drop - empty every capability set of the calling thread: the
 * effective, permitted, inheritable and ambient sets and the bounding
 * set, so that nothing the command runs can regain one.  Uses
 * libcap-ng.  Return: 0, or -1 with @err set.
 */
int caps_drop(char *err, size_t errlen);

/*
 * devices.c - what the command's mount namespace gets of its own in
 * /dev: shared memory, terminals, and its controlling terminal by name.
 */

/* The name the controlling terminal gets inside (see devices.c). */
#define DEVICES_CONSOLE "/dev/console"

/**
 * devices_setup - in a new mount namespace, give the command a /dev/shm
 * and a devpts instance of its own, and its controlling terminal under
 * DEVICES_CONSOLE when @p grants that name.
 * Return: 0, or -1 with errno and in *@step what failed.
 */
int devices_setup(const struct policy *p, const char **step);

/**
 * devices_console_root - add DEVICES_CONSOLE to @p, with the rights of
 * /dev/tty, when this process has a controlling terminal: then inside
 * the namespace that name is the terminal, and ttyname(3) finds it.
 * Return: 0, -ENOMEM or -E2BIG.
 */
int devices_console_root(struct policy *p);

/*
 * hostgate.c - --allow-host wired into a run: the command's network
 * namespace with its loopback alone, the proxy's listening socket made
 * there by pid 1 and handed out through the platform gate (sockgate.c),
 * and the proxy (proxy.h) served by the supervisor, outside.
 */

/*
 * netcap.c - transparent capture: every program's TCP connections and
 * names reach cordon's proxy and resolver in the namespace of hosts
 * allowed (nft's redirect, the loopback's routes and name servers).
 */

#define NETCAP_SRC4	 "192.0.0.8"		  /* RFC 7600's dummy */
#define NETCAP_SRC6	 "fd63:6f72:646f:6e00::1" /* "cordon", a ULA */
#define NETCAP_SOCKS_MAX 32

/* The sockets pid 1 made for the supervisor, and whether the rules hold. */
struct netcap {
	struct proxy_socket socks[NETCAP_SOCKS_MAX];
	size_t n;
	bool captured; /* nft's rules and the routes are in place */
	char why[300]; /* when not, though wanted: why */
};

/* netcap_rules.c: nft's path among the system's own directories, or
 * NULL. */
const char *netcap_nft(void);

/* The name servers' addresses @ns (@nns) on the loopback @lo (ifindex)
 * when not its own; unless @extra_only, the dummy addresses and the
 * default routes through it too.  Return: 0 or -errno. */
int netcap_routes(int lo, bool extra_only, const struct sockaddr_storage *ns,
		  size_t nns);

/* nft's table (netcap.c's header says what it holds), @ns being the
 * name servers.  Return: 0, or -1 with @err set. */
int netcap_rules(const struct sockaddr_storage *ns, size_t nns, char *err,
		 size_t errlen);

/* The "capture" row: never needed (without it a program that ignores
 * the proxy variables reaches nothing), available with a network
 * namespace and nft. */
void netcap_features(const struct policy *p, bool netns_ok,
		     struct feature_set *s);

/**
 * netcap_setup - in pid 1, after hostgate_listen(): the name servers'
 * addresses on the loopback and the resolver's sockets; with
 * @p->capture, nft's rules, the routes and the capture's listeners; a
 * listener per loopback --allow-host.  Capture that fails is no error
 * (@nc->why says why).
 * Return: 0, or -1 with @err set (the sockets made are in @nc).
 */
int netcap_setup(const struct policy *p, struct netcap *nc, char *err,
		 size_t errlen);

/* The "hosts" row: needed with hosts allowed; a network namespace
 * (@netns_ok: ns.c tried one, which @needs brings) where the loopback
 * can be raised. */
void hostgate_features(const struct policy *p, bool netns_ok, const char *needs,
		       struct feature_set *s);

/**
 * hostgate_listen - in pid 1, just after unshare(CLONE_NEWNET): raise the
 * loopback and listen on 127.0.0.1:POLICY_PROXY_PORT.
 * Return: the listening socket (close-on-exec), or -errno with @err set.
 */
int hostgate_listen(char *err, size_t errlen);

/**
 * hostgate_serve - in the supervisor: serve @listen_fd (taken) with the
 * rules of @p's hosts.  Each refusal is a denial line on stderr (once
 * per destination, unless quiet) and a record to @record(@arg).
 * Return: 0 with *@handle, or -errno.
 */
int hostgate_serve(int listen_fd, struct netcap *nc, const struct policy *p,
		   void (*record)(void *arg, json_t *rec), void *arg,
		   void **handle);

void hostgate_stop(void *handle);

/* --ask: what hostgate_serve() gives the proxy to call before a
 * refusal (platform_hosts_ask()). */
void hostgate_ask(int (*ask)(const char *spec, unsigned int client_port,
			     bool udp));

/**
 * hostgate_line - the denial line of the proxy's refusal @rec, ended by
 * a newline and a NUL, escaped for a terminal, in @buf (@cap: 1024 is
 * enough).
 * Return: its length, or 0 when @rec is no refusal of the proxy.
 */
size_t hostgate_line(const json_t *rec, char *buf, size_t cap);

/*
 * guarantees.c - the policy's guarantees, each with the rows that can
 * hold it (feature.h).
 */

/* Add the guarantees of @p to @s, whose rows every layer has added. */
void guarantees_add(const struct policy *p, struct feature_set *s);

/*
 * notes.c - what cordon says before a run (notes.c).
 */

/* The refusal (exit 125 follows): what the kernel in @state cannot
 * enforce of what the policy needs, and the hints. */
void notes_refusal(const struct feature_set *fs, int state);

/* --best-effort: the one loud line of what is not enforced. */
void notes_best_effort(const struct feature_set *fs, int state);

/* Before a run, unless quiet: what is advisory and missing, a
 * workspace that is the whole home, git directories past the limit. */
void notes_before_run(const struct cli *c, const struct feature_set *fs);

/*
 * ns.c - the mount and PID namespaces that close what Landlock leaves
 * open: metadata of read-only files, programs mapped from roots without
 * the execute right, sockets under /run, processes outside.
 */

/*
 * Describe the namespace layer on this system: with @trial, from one
 * trial unshare in a thrown-away child (cordon probe, --best-effort,
 * which must know before it chooses); without, as available, and the
 * real namespaces (ns_fork(), ns_enter()) are the trial: what they
 * cannot make is refused there (ns_refused()), never run without.
 */
void ns_features(const struct policy *p, struct feature_set *s, bool trial);

/* ns_features()' rows, from what it found: the namespaces can be made
 * (@ok), a network namespace too (@net_ok), the command's world of the
 * granted roots is built (@world); @needs: what brings them. */
void ns_add_rows(const struct policy *p, struct feature_set *s, bool ok,
		 bool net_ok, bool world, const char *needs);

/*
 * ns_refused - after ns_fork() or ns_enter() failed with @err: when
 * ns_features() made no trial and @err says the kernel refuses the
 * namespaces (EPERM, EINVAL, ENOSPC, EUSERS, EACCES), mark the layer's
 * rows of @s unavailable (the refusal then names them, as the trial's
 * would have) and return true.
 */
bool ns_refused(struct feature_set *s, int err);

/**
 * ns_fork - fork() into new mount and PID namespaces (and a user
 * namespace for a user): the child is pid 1 there, and its ns_enter()
 * makes no namespace of its own.
 * Return: as fork(), -1 with errno when the namespaces cannot be made.
 */
pid_t ns_fork(void);

/**
 * ns_enter - put the calling process into new namespaces: a user
 * namespace when not root (the caller's uid and gid mapped to
 * themselves), a mount namespace where every mount is read-only and
 * noexec but the roots granting write or execute, the sockets under
 * /run outside the writable roots masked (but @keep, the launcher's
 * report socket, when not NULL), and a PID namespace with its own
 * /proc.  Unless ns_fork() made it, the caller forks on the way and
 * stays behind to relay signals and the exit status.  The process that
 * returns is pid 1 of the new namespace (pid1_is_init(), pid1.h): it installs
 * the rest of the boundary, then forks the command and relays for it
 * (spawn_exec, pid1_relay).
 *
 * Return: 0 in pid 1; -1 with @err set when a namespace cannot be made
 * (nothing has run); -2 with errno, @err unset, when the namespaces
 * made without a trial prove unusable (for ns_refused()).  The process left
 * behind never returns.
 */
int ns_enter(const struct policy *p, const char *keep, char *err,
	     size_t errlen);

/* Did ns_enter() give this process a network namespace of its own (the
 * network off)?  Then a TCP socket reaches nothing outside, whatever
 * Landlock misses (sysfilter.c lets TCP sockets be made). */
bool ns_own_net(void);

/* The proxy's listening socket that ns_enter() made in pid 1's network
 * namespace with hosts allowed (hostgate_listen()), else -1. */
int ns_proxy_listener(void);

/* The capture's sockets ns_enter() made with hosts allowed (netcap.c);
 * none otherwise. */
struct netcap *ns_netcap(void);

/*
 * pid1.c - pid 1 of the command's PID namespace: cordon's own init,
 * which relays signals to the command and leaves with its status.
 */

/* Forward the signals an init receives (TERM, HUP, USR1, USR2) to the
 * command once there is one; before that, they stop the start. */
void pid1_catch_signals(void);

/**
 * pid1_seal - close the descriptors of cordon's own (close-on-exec
 * ones) and make this process undumpable: not traceable, its /proc
 * entries unreadable, by anything without a capability in the user
 * namespace that owns its memory (the launcher's, outside).
 * Return: 0, or -1 with errno.
 */
int pid1_seal(void);

/**
 * pid1_scatter_pids - make the next pid of this (new) PID namespace a
 * random one, as pids are on a busy host: without it every command
 * would be pid 2, and two sandboxes side by side that name a file in
 * the shared /tmp after their pid ($$) would take the same.  Needs
 * this namespace's /proc and CAP_SYS_ADMIN in it; a failure leaves the
 * pids as they are.
 */
void pid1_scatter_pids(void);

/* This process is pid 1 of the command's namespace from now on. */
void pid1_become(void);

/* True in pid 1 of the command's namespace, made by ns_enter(): it
 * must outlive the command, its child, and leave with its status. */
bool pid1_is_init(void);

/**
 * pid1_relay - in pid 1: forward signals to @child, reap every child, and
 * _exit() with @child's status (128 + the signal that killed it).
 */
void pid1_relay(pid_t child) __attribute__((noreturn));

/*
 * sockgate.c - on Linux, the broker (broker.h) put between the command
 * and every connect or send that names an address: its feature, its
 * hand-over from the sandboxed process to the supervisor, and its
 * service there.  platform_linux.c's part of the platform gate.
 */

/* The "broker" rows, after landlock_features(): seccomp user
 * notification, needed for connects and sends where Landlock does not
 * hold the UNIX sockets, for listen() with TCP ports. */
void sockgate_features(const struct policy *p, struct feature_set *s);

/* The same rows, the broker @available or not (its tests' hosts). */
void sockgate_rows(const struct policy *p, struct feature_set *s,
		   bool available);

/* What of the broker a run installs (sockgate_broker()). */
enum { SOCKGATE_NONE, SOCKGATE_ALL, SOCKGATE_LISTEN };

/* The part of the broker the rows of @s need, available: SOCKGATE_*. */
int sockgate_broker(const struct feature_set *s);

/**
 * sockgate_install - in the sandboxed process, after the seccomp filter
 * and before the capability drop: install the broker's filter (@broker,
 * SOCKGATE_*; @net: the policy's, broker_install()) and hand its listener
 * over @gate (the child's end of the platform gate), then the proxy's
 * listening socket @proxy (-1: none; hostgate.h) and, with it, the
 * capture's sockets @nc (netcap.c), then close them all.
 * Nothing here may connect or send with an address before the
 * supervisor serves the listener.
 * Return: 0, or -errno with @err set.
 */
int sockgate_install(int gate, int broker, enum net_mode net, int proxy,
		     struct netcap *nc, char *err, size_t errlen);

/**
 * sockgate_serve - in the supervisor: take the listener and the proxy's
 * socket from @gate (the parent's end; waits until the child gave them
 * or ended) and serve them with @p, the broker and the proxy.
 * Return: 0, or -errno.
 */
int sockgate_serve(int gate, const struct policy *p,
		   void (*record)(void *arg, json_t *rec), void *arg,
		   void **handle);

void sockgate_stop(void *handle);

/*
 * sysfilter.c - what Landlock leaves open, closed with a seccomp filter.
 */

/* Describe what the seccomp layer enforces for @p on this kernel;
 * after ns_features() (its SysV rule holds where the IPC namespace is
 * not). */
void sysfilter_features(const struct policy *p, struct feature_set *s);

/**
 * sysfilter_apply - install the filter for @p in the calling thread.
 * Requires NO_NEW_PRIVS (landlock_apply() sets it).  With network off,
 * no IPv4 or IPv6 socket can be created; with only TCP ports allowed,
 * only TCP sockets can (Landlock then filters their ports).  With
 * @own_pidns (the command has its own PID and IPC namespaces, where no
 * process outside has a pid or a SysV key), the limits and priority of
 * other processes are left to them (the command may renice its own
 * children), and SysV IPC is allowed; without, every SysV call fails.
 *
 * Return: 0, or -errno with @err set.
 */
int sysfilter_apply(const struct policy *p, bool own_pidns, char *err,
		    size_t errlen);

#endif
