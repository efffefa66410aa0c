/*
 * snapshot.h - the policy as one environment value, from the launcher to
 * the shim of every process of the tree.
 *
 * The launcher encodes its policy once (snapshot_encode); each shim
 * decodes it in its constructor into static storage (snapshot_decode,
 * no malloc) and re-injects its own load-time copy on every exec, so a
 * child that edits the variable cannot loosen what its children get.
 *
 * Format (version 1): fields separated by '|', each "key=value", in
 * this order, the first seven always, sa and learn only when set, log
 * only when there is one, then a root field per root:
 *   v=1|net=0|con=80,443|bnd=|env=0|names=FOO,BAR*|q=0|sa=1|learn=1
 *   |log=unix:/run/x.sock
 *   |root=rwx,d,u,/usr  (rights as policy_rights_str(): "-" for none;
 *                        d(ir)/f(ile); u(ser)/d(efault)/p(rotected);
 *                        the path)
 * Numbers are decimal without leading zeros.  In paths and names, the
 * bytes '|', '%', ',', C0 and DEL (and only those) are written "%XX",
 * upper-case hex.  The decoder takes nothing else: a value the encoder
 * cannot write (a field repeated or out of order, "%00", an unknown
 * right, a trailing comma, ...) is refused.
 */
#ifndef CORDON_SNAPSHOT_H
#define CORDON_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

#include "shim/core/policy.h"

#define SNAPSHOT_VAR "CORDON_POLICY"
#define SNAPSHOT_MAX 65536 /* bytes of an encoded snapshot, NUL included */

/* What travels with the policy but is not part of the decision. */
struct snapshot_extra {
	char *log; /* where audit records go (a socket or a file) */
	/* the report socket's file, as the launcher bound it: the shim
	 * sends to no other (0, 0: unchecked, the shim used alone) */
	unsigned long log_dev, log_ino;
	bool standalone; /* from CORDON_* variables: hints name them */
	bool learn;	 /* cordon learn: record what would be refused,
			  * refuse nothing */
	bool udp;	 /* the kernel holds UDP ports (Landlock ABI 10):
			  * --connect udp:PORT is a grant to name */
	/* the variables the launcher's scrub removed, by name,
	 * comma-separated (NULL: none): a program asking for one is
	 * told the option that passes it */
	char *gone;
	bool ll_unix;  /* Landlock holds the pathname UNIX sockets
			* (RESOLVE_UNIX, ABI 9): the kernel decides a
			* connect or send, the shim explains a refusal */
	bool captured; /* hosts allowed and captured (netcap.c): no proxy
			* variables to carry; names resolve inside */
};

/**
 * snapshot_encode - write @p and @x as a snapshot value into @buf.
 * Return: the length, or -ENAMETOOLONG when @len is too small.
 */
int snapshot_encode(const struct policy *p, const struct snapshot_extra *x,
		    char *buf, size_t len);

/**
 * snapshot_decode - parse @value into @p and @x.  Strings are decoded
 * into @store (@len bytes) and @p, @x point into it; nothing is
 * allocated, so @p is never freed (its strings live in @store).
 * Return: 0, or -EINVAL (malformed, unknown version, or anything the
 * encoder would not have written), -E2BIG (too many roots, ports or
 * names), -ENAMETOOLONG (@store too small for the strings, a root's
 * path included).  errno is left alone.
 */
int snapshot_decode(const char *value, struct policy *p,
		    struct snapshot_extra *x, char *store, size_t len);

#endif
