/*
 * rule.c - why the policy refuses a path, and what would allow it: the
 * words of the shim's denial lines and of `cordon explain`, one
 * implementation for both layers.  Allocates nothing; async-signal-safe
 * (the shim calls it between vfork and exec).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/path.h"
#include "shim/core/rule.h"
#include "shim/core/toolroot.h"

/* Does a root with @rights grant @need?  A writable root lets its
 * sockets be connected to, as --connect-unix does. */
static bool grants(unsigned int rights, unsigned int need)
{
	if (need == RIGHT_U)
		return (rights & (RIGHT_W | RIGHT_U)) != 0;
	return (rights & need) == need;
}

const char *rule_word(unsigned int need)
{
	if (need == RIGHT_U)
		return "connect";
	if (need & RIGHT_W)
		return "write";
	if (need & RIGHT_X)
		return "exec";
	return need ? "read" : "see";
}

const char *rule_flag(unsigned int need)
{
	if (need & RULE_CREATE)
		return "--create";
	if (need == RIGHT_U)
		return "--connect-unix";
	if (need & RIGHT_W)
		return "--write";
	if (need & RIGHT_X)
		return "--exec";
	return "--read";
}

const char *rule_var(unsigned int need)
{
	if (need == RIGHT_U)
		return "CORDON_CONNECT_UNIX";
	if (need & RIGHT_W)
		return "CORDON_WRITE";
	if (need & RIGHT_X)
		return "CORDON_EXEC";
	return "CORDON_READ";
}

/* A root that grants nothing and protects nothing: a symbolic link on
 * the way to a root, seen so that paths through it resolve (roots.c). */
static bool is_link_root(const struct root *r)
{
	return r->rights == 0 && !r->is_dir && r->origin != ORIGIN_PROTECTED;
}

enum pick { ANY, NO_LINK, PROTECTED };

/* The most specific root containing @path (a protected one first), of
 * those @pick takes. */
static const struct root *closest(const struct policy *p, const char *path,
				  enum pick pick)
{
	const struct root *best = NULL;

	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		if ((pick == NO_LINK && is_link_root(r)) ||
		    (pick == PROTECTED && r->origin != ORIGIN_PROTECTED))
			continue;
		if ((r->is_dir ? path_is_within(path, r->path)
			       : strcmp(path, r->path) == 0) &&
		    (!best || strlen(r->path) > strlen(best->path) ||
		     (strlen(r->path) == strlen(best->path) &&
		      r->origin == ORIGIN_PROTECTED)))
			best = r;
	}
	return best;
}

const struct root *rule_closest_root(const struct policy *p, const char *path)
{
	return closest(p, path, ANY);
}

const struct root *rule_granting(const struct policy *p, const char *path,
				 unsigned int need)
{
	const struct root *best = rule_closest_root(p, path);

	/* the root that decides, when it grants @need (a protected one
	 * keeping it too); else the most specific one granting it */
	if (best && grants(best->rights, need))
		return best;
	best = NULL;
	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		if (grants(r->rights, need) && r->origin != ORIGIN_PROTECTED &&
		    path_is_within(path, r->path) &&
		    (!best || strlen(r->path) > strlen(best->path)))
			best = r;
	}
	return best;
}

/* Is @r worth naming in a message?  Devices and pseudo-filesystems are
 * defaults nobody asks about; a root inside one already named is noise. */
static bool worth_naming(const struct policy *p, const struct root *r,
			 unsigned int need, bool user)
{
	static const char *const quiet[] = { "/dev", "/proc", "/sys", NULL };

	if (!r->is_dir || !grants(r->rights, need) ||
	    (r->origin == ORIGIN_USER) != user)
		return false;
	for (size_t i = 0; quiet[i]; i++)
		if (path_is_within(r->path, quiet[i]))
			return false;
	for (size_t i = 0; i < p->nroots; i++) {
		const struct root *o = &p->roots[i];

		if (o != r && o->is_dir && grants(o->rights, need) &&
		    strcmp(o->path, r->path) != 0 &&
		    path_is_within(r->path, o->path))
			return false;
	}
	return true;
}

/* The roots granting @need: the user's first, at most three. */
static void put_roots_with(struct strbuf *sb, const struct policy *p,
			   unsigned int need)
{
	size_t shown = 0, more = 0;

	for (int user = 1; user >= 0; user--) {
		for (size_t i = 0; i < p->nroots; i++) {
			const struct root *r = &p->roots[i];

			if (!worth_naming(p, r, need, user))
				continue;
			if (shown == 3) {
				more++;
				continue;
			}
			sb_puts(sb, shown++ ? ", " : " ");
			sb_puts(sb, r->path);
		}
	}
	if (more)
		sb_puts(sb, ", ...");
	if (!shown)
		sb_puts(sb, ": there are none");
}

void rule_put(struct strbuf *sb, const struct policy *p, unsigned int need,
	      const char *resolved)
{
	const struct root *r = closest(p, resolved, NO_LINK);
	const struct root *link = rule_closest_root(p, resolved);
	const struct root *prot = closest(p, resolved, PROTECTED);
	char rights[POLICY_RIGHTS_STR];

	/* granted there, and refused all the same: a protection above it
	 * that the root does not lift (policy.c) */
	if (r && prot && need && grants(r->rights, need))
		r = prot;

	/* a link root alone: the link is there to be walked through, and
	 * a root naming it would grant its target, never the link */
	if (!r && link && is_link_root(link)) {
		sb_puts(sb, link->path);
		sb_puts(sb, " is a symbolic link, seen only so that paths "
			    "through it resolve");
		return;
	}
	if (r && r->origin == ORIGIN_PROTECTED) {
		sb_puts(sb, r->path);
		sb_puts(sb, " is protected");
		return;
	}
	if (r) {
		sb_puts(sb, r->path);
		sb_puts(sb, " is granted ");
		sb_puts(sb, policy_rights_str(r->rights, rights));
		sb_puts(sb, " only");
		return;
	}
	sb_puts(sb, "outside the ");
	sb_puts(sb, need == RIGHT_U  ? "writable and --connect-unix"
		    : need & RIGHT_W ? "writable"
		    : need & RIGHT_X ? "executable"
				     : "readable");
	sb_puts(sb, " roots");
	put_roots_with(sb, p, need ? need : RIGHT_R);
}

/* Is the canonical @path a symbolic link?  Followed, it reads else
 * (or loops).  @buf: PATH_BUF bytes of scratch. */
static bool is_link(const char *path, char *buf)
{
	int ret = path_resolve(AT_FDCWD, path, 0, buf);

	return ret == -ELOOP || (ret == 0 && strcmp(buf, path) != 0);
}

/* The directory of the canonical @path, or its nearest existing
 * ancestor (a root must exist): cut in @sb's own buffer, no copy on
 * the stack (this runs in the shim's hooks). */
static void put_dir_of(struct strbuf *sb, const char *path)
{
	size_t start = sb->len;
	char *dir = sb->buf + start, *slash = NULL;

	sb_puts(sb, path);
	if (sb->full)
		return;
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (path_exists(dir))
			break;
	}
	if (slash == dir)
		dir[1] = '\0'; /* "/" */
	sb->len = start + strlen(dir);
}

/* Kept out of line: its buffer is off the stack of what follows. */
static __attribute__((noinline)) bool is_plain(const char *resolved)
{
	char buf[PATH_BUF];

	return path_exists(resolved) && !is_link(resolved, buf);
}

void rule_put_grant(struct strbuf *sb, const char *resolved)
{
	/* a root names what it resolves to: an existing path, but not a
	 * link, which it would follow to its target */
	if (is_plain(resolved))
		sb_puts(sb, resolved);
	else
		put_dir_of(sb, resolved);
}

bool rule_on_entry(const char *operation)
{
	static const char *const names[] = {
		"unlink",   "unlinkat",	 "rmdir", "remove", "rename",
		"renameat", "renameat2", "link",  "linkat", NULL,
	};

	for (size_t i = 0; operation && names[i]; i++)
		if (strcmp(operation, names[i]) == 0)
			return true;
	return false;
}

/* /proc/PID/... (or /proc/self, /proc/thread-self, as the launcher
 * outside would resolve them): a process's own, another pid next time. */
static bool is_process_file(const char *path)
{
	const char *s = path + 6;

	if (strncmp(path, "/proc/", 6) != 0)
		return false;
	if (strncmp(s, "self", 4) == 0 && (!s[4] || s[4] == '/'))
		return true;
	if (strncmp(s, "thread-self", 11) == 0 && (!s[11] || s[11] == '/'))
		return true;
	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9')
		s++;
	return !*s || *s == '/';
}

/* Is @name, the last component of @path, one of git's protected files
 * right in @dir? */
static bool is_git_file_in(const char *path, const char *dir)
{
	char pin[PATH_BUF];

	return policy_git_pin(path, pin) && strcmp(pin, dir) == 0;
}

/* @grant, which contains @resolved, moved to where it lifts the
 * protection of @p over @resolved, if any; false when nothing does. */
static bool lift(const struct policy *p, const char *resolved,
		 unsigned int need, char grant[PATH_BUF])
{
	const struct root *prot = p ? closest(p, resolved, PROTECTED) : NULL;
	bool secret = prot && !(prot->rights & RIGHT_R);

	/* a protection keeps writes out (and a secret, reads too) */
	if (!prot || (!(need & RIGHT_W) && !secret))
		return true;
	/* a secret, covered whole: only a root naming it uncovers it */
	if (secret) {
		if (path_is_within(grant, prot->path))
			memmove(grant, prot->path, strlen(prot->path) + 1);
		return true;
	}
	/* at or below the protection, a --write lifts it there */
	if (path_is_within(grant, prot->path))
		return true;
	/* above it: only the git directory of git's own files */
	return is_git_file_in(prot->path, grant);
}

/* Does @operation make a hard link (its two ends on one mount)? */
static bool is_link_op(const char *operation)
{
	return operation && (strcmp(operation, "link") == 0 ||
			     strcmp(operation, "linkat") == 0);
}

static bool is_rename_op(const char *operation)
{
	return operation && strncmp(operation, "rename", 6) == 0 &&
	       rule_on_entry(operation);
}

/* Is @r a mount of its own in the sandbox (enforce/linux/mounts.c): a root
 * granting write or execute, or a protected path, outside /proc; a
 * protected file of git's pins its directory as a mount too (@pin,
 * PATH_BUF, receives it, else ""). */
static bool is_mount(const struct root *r, char pin[PATH_BUF])
{
	pin[0] = '\0';
	if (!policy_root_is_mount(r))
		return false;
	if (r->origin == ORIGIN_PROTECTED && !policy_git_pin(r->path, pin))
		pin[0] = '\0';
	return true;
}

static bool holds(const char *mnt, bool is_dir, const char *path)
{
	return is_dir ? path_is_within(path, mnt) : strcmp(path, mnt) == 0;
}

/* How many of @a and @b the mount at @mnt holds. */
static int held(const char *mnt, bool is_dir, const char *a, const char *b)
{
	if (!mnt[0])
		return 0;
	return holds(mnt, is_dir, a) + holds(mnt, is_dir, b);
}

/* Does a --write of @grant lift the protection @r (lift())?  Then it is
 * no mount of its own any more. */
static bool is_lifted(const struct root *r, const char *grant)
{
	return r->origin == ORIGIN_PROTECTED && (r->rights & RIGHT_R) &&
	       grant[0] &&
	       (path_is_within(grant, r->path) ||
		is_git_file_in(r->path, grant));
}

/* The length of the deepest of the sandbox's mounts, with @grant
 * added, that holds @count of @a and @b (0: none but the host's). */
static size_t deepest(const struct policy *p, const char *grant, const char *a,
		      const char *b, int count)
{
	size_t best = held(grant, true, a, b) == count ? strlen(grant) : 0;
	char pin[PATH_BUF];

	for (size_t i = 0; p && i < p->nroots; i++) {
		const struct root *r = &p->roots[i];

		if (!is_mount(r, pin) || is_lifted(r, grant))
			continue;
		if (held(r->path, r->is_dir, a, b) == count &&
		    strlen(r->path) > best)
			best = strlen(r->path);
		if (held(pin, true, a, b) == count && strlen(pin) > best)
			best = strlen(pin);
	}
	return best;
}

/*
 * Are @a and @b on one mount of the sandbox once @grant (a --write of a
 * directory) is added?  Each lies on the deepest mount holding it; they
 * differ just when a mount holding one end alone lies deeper than the
 * deepest holding both.
 */
static bool same_mount(const struct policy *p, const char *grant, const char *a,
		       const char *b)
{
	return deepest(p, grant, a, b, 1) <= deepest(p, grant, a, b, 2);
}

/* Are the directories @a and @b on one file system of the host's?  (A
 * bind mount keeps the device: only different file systems differ.)
 * Unknown (hidden from this process) is taken as one. */
static bool same_device(const char *a, const char *b)
{
	struct stat sa, sb;
	int saved = errno;
	bool known = syscall(SYS_newfstatat, AT_FDCWD, a, &sa, 0) == 0 &&
		     syscall(SYS_newfstatat, AT_FDCWD, b, &sb, 0) == 0;

	errno = saved;
	return !known || sa.st_dev == sb.st_dev;
}

/* Cut @dir (canonical) to the deepest directory that also holds @other. */
static void cut_to_common(char *dir, const char *other)
{
	char *slash;

	while (!path_is_within(other, dir) && (slash = strrchr(dir, '/'))) {
		if (slash == dir) {
			dir[1] = '\0';
			return;
		}
		*slash = '\0';
	}
}

/*
 * A hard link's two ends must lie on one mount, and in the sandbox each
 * root granting write or execute is a mount of its own: the least grant
 * is the deepest directory holding both ends' directories (@grant, cut
 * in place), and none does when a mount lies between it and an end (the
 * workspace, /tmp, ...) or the ends are on two file systems.
 */
static bool link_grant(const struct policy *p, const char *resolved,
		       const char *peer, char grant[PATH_BUF])
{
	char other[PATH_BUF];
	struct strbuf sb = STRBUF(other, sizeof(other));

	put_dir_of(&sb, peer);
	if (sb.full)
		return false;
	cut_to_common(grant, other);
	return same_device(grant, other) &&
	       same_mount(p, grant, resolved, peer);
}

/* The least option's path, or why there is none (RULE_NO_OPTION, ...);
 * *@flag: the need its flag grants. */
static const char *grant_or_why(const struct policy *p, const char *operation,
				unsigned int need, const char *resolved,
				const char *peer, char out[PATH_BUF],
				unsigned int *flag)
{
	struct strbuf sb = STRBUF(out, PATH_BUF);

	*flag = need;
	out[0] = '\0';
	if (is_process_file(resolved))
		sb_puts(&sb, "/proc");
	else if ((need & RIGHT_W) && rule_on_entry(operation))
		put_dir_of(&sb, resolved);
	else
		rule_put_grant(&sb, resolved);
	if (sb.full)
		return RULE_TOO_LONG;
	if (peer && (need & RIGHT_W) && is_link_op(operation) &&
	    !link_grant(p, resolved, peer, out))
		return RULE_NO_LINK;
	if (!peer && !is_process_file(resolved) && p && need != RIGHT_U)
		toolroot_grant(p->home, operation, need, resolved, out, flag);
	return lift(p, resolved, need, out) ? NULL : RULE_NO_OPTION;
}

bool rule_grant(const struct policy *p, const char *operation,
		unsigned int need, const char *resolved, const char *peer,
		char out[PATH_BUF], unsigned int *flag)
{
	return !grant_or_why(p, operation, need, resolved, peer, out, flag);
}

bool rule_grant_path(const struct policy *p, const char *operation,
		     unsigned int need, const char *resolved, const char *peer,
		     char out[PATH_BUF])
{
	unsigned int flag;

	return !grant_or_why(p, operation, need, resolved, peer, out, &flag);
}

const char *rule_why_none(const struct policy *p, const char *operation,
			  unsigned int need, const char *resolved,
			  const char *peer)
{
	char grant[PATH_BUF];
	unsigned int flag;

	return grant_or_why(p, operation, need, resolved, peer, grant, &flag);
}

bool rule_link_crosses(const struct policy *p, const char *a, const char *b)
{
	char da[PATH_BUF], db[PATH_BUF];
	struct strbuf sa = STRBUF(da, sizeof(da));
	struct strbuf sb = STRBUF(db, sizeof(db));

	put_dir_of(&sa, a);
	put_dir_of(&sb, b);
	return !sa.full && !sb.full && same_device(da, db) &&
	       !same_mount(p, "", a, b);
}

void rule_put_cross(struct strbuf *sb, const struct policy *p,
		    const char *operation, unsigned int need,
		    const char *resolved, const char *peer)
{
	char grant[PATH_BUF], other[PATH_BUF];
	struct strbuf gb = STRBUF(grant, sizeof(grant));
	struct strbuf ob = STRBUF(other, sizeof(other));

	if (!peer || !(need & RIGHT_W) || !is_rename_op(operation))
		return;
	put_dir_of(&gb, resolved);
	put_dir_of(&ob, peer);
	if (gb.full || ob.full)
		return;
	if (same_device(grant, other) && same_mount(p, grant, resolved, peer))
		return;
	sb_puts(sb, "; " RULE_RENAME_CROSS);
}

bool rule_put_option(struct strbuf *sb, const struct policy *p,
		     const char *operation, unsigned int need,
		     const char *resolved)
{
	char grant[PATH_BUF];
	unsigned int flag;

	return rule_grant(p, operation, need, resolved, NULL, grant, &flag) &&
	       rule_put_flag(sb, flag, grant);
}

bool rule_put_flag(struct strbuf *sb, unsigned int need, const char *grant)
{
	size_t len = sb->len;
	bool full = sb->full;

	sb_puts(sb, rule_flag(need));
	sb_puts(sb, " ");
	sb_shell(sb, grant);
	if (!sb->full)
		return true;
	/* too long: none rather than half of one */
	sb->len = len;
	sb->full = full;
	if (sb->cap)
		sb->buf[len] = '\0';
	return false;
}
