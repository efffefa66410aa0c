/*
 * rule.h - why the policy refuses a path, and what would allow it, in
 * the words of the denial lines; shared by the shim and the launcher.
 */
#ifndef CORDON_RULE_H
#define CORDON_RULE_H

#include "shim/core/path.h"
#include "shim/core/policy.h"
#include "shim/core/strbuf.h"
#include "shim/core/toolroot.h"

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

/**
 * rule_on_entry - does @operation (a hook's name, or a record's
 * "operation") change the name it is given in its directory: remove it
 * (unlink, rmdir), rename it or link it?  Then the kernel asks the
 * directory (Landlock's REMOVE_* and REFER; a file root is a mount point
 * in the sandbox, which no rename or removal replaces), not the file.
 * What makes a new name asks the directory anyway: the name is not
 * there, and rule_grant_path() names the nearest existing directory.
 */
bool rule_on_entry(const char *operation);

/**
 * rule_grant_path - the path of the least option that lets @operation
 * (NULL: an access to the file), refused for want of @need on the
 * canonical @resolved, succeed through every layer, into @out
 * (PATH_BUF): the directory of an entry it changes (rule_on_entry()
 * with RIGHT_W), "/proc" for a process's own files (/proc/PID/...: the
 * pid is another one at the next run), else rule_put_grant()'s path.
 * Under a protection of @p (NULL: none known), the path that lifts it
 * (policy.c lifted(), protect.c, gitguard.c): the hidden path itself
 * for a secret; the protected path or one below it, or the git
 * directory of git's files.
 *
 * A hard link (link, linkat) with its other end @peer (canonical; NULL:
 * not known) needs its two ends on one mount: the path is the deepest
 * directory holding both ends' directories, the same for both lines.
 *
 * Return: false when no option can: a protected file renamed over or
 * removed (in the sandbox it is a mount point, and a --write of its
 * directory leaves its protection); a hard link whose ends stay on two
 * mounts whatever is granted (a root's mount between them, or two file
 * systems).
 */
bool rule_grant_path(const struct policy *p, const char *operation,
		     unsigned int need, const char *resolved, const char *peer,
		     char out[PATH_BUF]);

/* A need only an option's flag has: the directory is not there, and
 * --create makes it before the run (with RIGHT_R | RIGHT_W). */
#define RULE_CREATE TOOLROOT_CREATE

/**
 * rule_grant - rule_grant_path(), and in *@flag the need the option's
 * flag must grant: @need, or more where a tool's root decides (a read
 * under ~/.rustup is an --exec of it, one under ~/.npm a --write:
 * toolroot.h), or RULE_CREATE for a directory not there yet (a cache,
 * a directory made right in $HOME), which --create makes.
 */
bool rule_grant(const struct policy *p, const char *operation,
		unsigned int need, const char *resolved, const char *peer,
		char out[PATH_BUF], unsigned int *flag);

/* Why rule_grant_path() finds no option (RULE_NO_OPTION, RULE_NO_LINK,
 * RULE_TOO_LONG), or NULL when it finds one. */
const char *rule_why_none(const struct policy *p, const char *operation,
			  unsigned int need, const char *resolved,
			  const char *peer);

/**
 * rule_put_cross - for a rename refused at the canonical @resolved
 * whose other end is @peer: when the least option would still leave
 * the two ends on two mounts (each root granting write or execute is a
 * mount of its own in the sandbox), "; " and RULE_RENAME_CROSS, so that
 * the line says what the option does and does not do.
 */
void rule_put_cross(struct strbuf *sb, const struct policy *p,
		    const char *operation, unsigned int need,
		    const char *resolved, const char *peer);

/**
 * rule_put_option - that least option, ready to paste: the flag of
 * @need and the path shell-quoted (sb_shell()): "--write /x",
 * "--read '/a b'".  Return: false, with nothing appended, when no
 * option can (see rule_grant_path()).
 */
bool rule_put_option(struct strbuf *sb, const struct policy *p,
		     const char *operation, unsigned int need,
		     const char *resolved);

/* The option of @need naming @grant, quoted; false, with nothing
 * appended, when it does not fit. */
bool rule_put_flag(struct strbuf *sb, unsigned int need, const char *grant);

/* Why no option can allow it, when rule_grant_path() says none can. */
#define RULE_NO_OPTION                                                         \
	"no option allows this: a protected file is a mount point in the "     \
	"sandbox, which no rename or removal replaces"

/* Why no option can allow a hard link across mounts. */
#define RULE_NO_LINK                                                           \
	"no option allows this: a hard link cannot cross mounts, and its "     \
	"two ends are on different mounts in the sandbox whatever is "         \
	"granted (each root granting write or execute is a mount of its own)"

/* Why, with hosts allowed (--allow-host), a program that goes round the
 * proxy reaches nothing beyond the loopback. */
#define RULE_PROXY_ONLY                                                        \
	"only the allowed hosts are reached, through cordon's proxy "          \
	"(HTTPS_PROXY, ALL_PROXY), and this program went round it"

/**
 * rule_link_crosses - are the canonical @a and @b, the ends of a hard
 * link, on two mounts of the sandbox of @p (and on one file system of
 * the host's: else the link fails without cordon too)?  Then the kernel
 * refuses the link with EXDEV whatever @p grants.
 */
bool rule_link_crosses(const struct policy *p, const char *a, const char *b);

/* Why the kernel refused a link that the policy allows. */
#define RULE_LINK_CROSSES "its two ends are on two mounts of the sandbox"

/* What the option does not do for a rename across mounts. */
#define RULE_RENAME_CROSS                                                      \
	"with the option its ends stay on two mounts: rename(2) says EXDEV, "  \
	"mv copies"

/* Why no option is named when the one that would allow it does not
 * fit a line (a path of PATH_BUF bytes, quoted). */
#define RULE_TOO_LONG "the option is too long for this line: see cordon explain"

/* Why no option is named for cordon's own audit log and state (the
 * report socket's directory): the launcher never grants them. */
#define RULE_CORDONS                                                           \
	"no option grants this: it is cordon's own audit log or state"

/* Why the kernel (Landlock's RESOLVE_UNIX, or the broker) refuses a
 * pathname UNIX socket the policy's roots allow: one a process outside
 * bound in a temp dir shared with the host. */
#define RULE_UNIX_SHARED                                                       \
	"a socket of a process outside, in a temp dir shared with the host"

/* ... one that is not the socket granted at the start: Landlock holds
 * the socket a file grant named then, not one bound at its path later. */
#define RULE_UNIX_REBOUND                                                      \
	"not the socket that was there at the start: a grant of a socket "     \
	"file holds that socket, one bound at its path later needs its "       \
	"directory"

/* Why a listen() is refused (policy_listen_allowed()). */
#define RULE_LISTEN                                                            \
	"listen() on a TCP socket that no bind() gave an allowed port would "  \
	"listen on a random port on every address: bind() it to a --bind "     \
	"port first"

/* Why @p refuses TCP (@bind or connect) to @port: "network is off",
 * "TCP port 80 is not among the connect ports 443, 8080". */
void rule_put_tcp(struct strbuf *sb, const struct policy *p, bool bind,
		  unsigned int port);

/* The same for UDP: "network is off", "no UDP connect port is allowed",
 * "UDP port 54 is not among the UDP connect ports 53". */
void rule_put_udp(struct strbuf *sb, const struct policy *p, bool bind,
		  unsigned int port);

#endif
