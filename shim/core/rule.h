/*
 * rule.h - why the policy refuses a path, and what would allow it, in
 * the words of the denial lines; shared by the shim and the launcher.
 */
#ifndef CORDON_RULE_H
#define CORDON_RULE_H

#include "shim/core/policy.h"
#include "shim/core/strbuf.h"

/* "read", "write", "exec", or "see" (@need 0). */
const char *rule_word(unsigned int need);

/* The option that grants @need: "--read", "--write", "--exec". */
const char *rule_flag(unsigned int need);

/* The same for the shim used alone: "CORDON_READ", ... */
const char *rule_var(unsigned int need);

/* The most specific root of @p containing @path (a protected one
 * first), or NULL. */
const struct root *rule_closest_root(const struct policy *p, const char *path);

/* The root an allowed access is granted by, for a message: the one
 * rule_closest_root() names when it grants @need, else the most
 * specific unprotected root granting it.  NULL when none does. */
const struct root *rule_granting(const struct policy *p, const char *path,
				 unsigned int need);

/**
 * rule_put - why @p does not grant @need on the canonical @resolved:
 * "/etc is granted rx only", "/r/lnk is a symbolic link, seen only so
 * that paths through it resolve" (a link root, roots.c, alone there), or
 * "outside the writable roots /tmp, ..." (the user's roots first, at most
 * three).
 */
void rule_put(struct strbuf *sb, const struct policy *p, unsigned int need,
	      const char *resolved);

/**
 * rule_put_grant - the path to name in the option that would allow it:
 * @resolved itself, or the nearest existing directory above it for a
 * path that does not exist yet (a root must exist) and for a symbolic
 * link (a root naming it would grant its target; the link itself, to
 * remove or rename it, is the directory's).
 */
void rule_put_grant(struct strbuf *sb, const char *resolved);

/* Why @p refuses TCP (@bind or connect) to @port: "network is off",
 * "TCP port 80 is not among the connect ports 443, 8080". */
void rule_put_tcp(struct strbuf *sb, const struct policy *p, bool bind,
		  unsigned int port);

#endif
