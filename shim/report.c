/*
 * report.c - turn a denial into one line a person can act on, and an
 * audit record the launcher keeps.
 *
 * The line goes to stderr once per distinct (operation, path) in each
 * process, unless the policy is quiet.  The record goes to the log the
 * snapshot names: "unix:PATH", a datagram socket the launcher reads
 * from outside the sandbox (so the command cannot erase what was sent,
 * and a closed fd or a cleared environment loses nothing: the socket is
 * found again by path on every record), or "file:PATH" when the shim is
 * used alone.  Raw syscalls only: this runs in vfork children.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "shim.h"
#include "strbuf.h"

#define SEEN_SLOTS 1024
#define LINE_MAX_  4096
#define RULE_MAX   1024

/* Keys carry the pid, so a child (even a vfork child, which shares this
 * table with its parent) has lines of its own and nothing is cleared. */
static unsigned long seen[SEEN_SLOTS];

static unsigned long hash(const char *name, unsigned int need, const char *key)
{
	unsigned long h = 14695981039346656037UL ^ need;

	h = (h ^ (unsigned long)syscall(SYS_getpid)) * 1099511628211UL;

	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211UL;
	h = (h ^ ' ') * 1099511628211UL;
	for (const char *s = key; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211UL;
	return h | 1; /* 0 marks a free slot */
}

/* True the first time this process reports @h; lock-free. */
static bool first_time(unsigned long h)
{
	for (size_t i = 0; i < SEEN_SLOTS; i++) {
		unsigned long *slot = &seen[(h + i) % SEEN_SLOTS];
		unsigned long cur = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

		if (cur == h)
			return false;
		if (cur == 0 && __atomic_compare_exchange_n(
					slot, &cur, h, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
			return true;
		if (cur == h)
			return false;
	}
	return true; /* the table is full: say it again, never lose it */
}

static const char *right_word(unsigned int need)
{
	if (need & RIGHT_W)
		return "write";
	if (need & RIGHT_X)
		return "exec";
	return need ? "read" : "see";
}

static const char *right_flag(unsigned int need)
{
	if (need & RIGHT_W)
		return "--write";
	if (need & RIGHT_X)
		return "--exec";
	return "--read";
}

/* The same, for the shim used alone (shim/standalone.c). */
static const char *right_var(unsigned int need)
{
	if (need & RIGHT_W)
		return "CORDON_WRITE";
	if (need & RIGHT_X)
		return "CORDON_EXEC";
	return "CORDON_READ";
}

/* The most specific root containing @path, or NULL. */
static const struct root *closest_root(const char *path)
{
	const struct root *best = NULL;

	for (size_t i = 0; i < shim.policy.nroots; i++) {
		const struct root *r = &shim.policy.roots[i];

		if (r->is_dir && path_is_within(path, r->path) &&
		    (!best || strlen(r->path) > strlen(best->path)))
			best = r;
	}
	return best;
}

/* Is @r worth naming in a message?  Devices and pseudo-filesystems are
 * defaults nobody asks about; a root inside one already named is noise. */
static bool worth_naming(const struct root *r, unsigned int need, bool user)
{
	static const char *const quiet[] = { "/dev", "/proc", "/sys", NULL };

	if (!r->is_dir || (r->rights & need) != need ||
	    (r->origin == ORIGIN_USER) != user)
		return false;
	for (size_t i = 0; quiet[i]; i++)
		if (path_is_within(r->path, quiet[i]))
			return false;
	for (size_t i = 0; i < shim.policy.nroots; i++) {
		const struct root *o = &shim.policy.roots[i];

		if (o != r && o->is_dir && (o->rights & need) == need &&
		    strcmp(o->path, r->path) != 0 &&
		    path_is_within(r->path, o->path))
			return false;
	}
	return true;
}

/* The roots granting @need: the user's first, at most three. */
static void put_roots_with(struct strbuf *sb, unsigned int need)
{
	size_t shown = 0, more = 0;

	for (int user = 1; user >= 0; user--) {
		for (size_t i = 0; i < shim.policy.nroots; i++) {
			const struct root *r = &shim.policy.roots[i];

			if (!worth_naming(r, need, user))
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

static void put_rule(struct strbuf *sb, const struct op *op,
		     const char *resolved)
{
	const struct root *r = closest_root(resolved);
	char rights[4];

	if (r) {
		sb_puts(sb, r->path);
		sb_puts(sb, " is granted ");
		sb_puts(sb, policy_rights_str(r->rights, rights));
		sb_puts(sb, " only");
		return;
	}
	sb_puts(sb, "outside the ");
	sb_puts(sb, op->need & RIGHT_W	 ? "writable"
		    : op->need & RIGHT_X ? "executable"
					 : "readable");
	sb_puts(sb, " roots");
	put_roots_with(sb, op->need ? op->need : RIGHT_R);
}

/* What to grant: the path itself, or for a new file the nearest
 * existing directory above it (a root must exist). */
static void put_grant(struct strbuf *sb, const char *resolved)
{
	char dir[PATH_BUF];
	struct strbuf d = STRBUF(dir, sizeof(dir));
	char *slash;

	if (path_exists(resolved)) {
		sb_puts(sb, resolved);
		return;
	}
	sb_puts(&d, resolved);
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (path_exists(dir))
			break;
	}
	sb_puts(sb, slash == dir ? "/" : dir);
}

static void write_line(const struct op *op, const char *resolved,
		       const char *rule, const char *layer)
{
	char line[LINE_MAX_];
	struct strbuf sb = STRBUF(line, sizeof(line));

	sb_puts(&sb, "cordon: denied ");
	sb_puts(&sb, right_word(op->need));
	sb_puts(&sb, " ");
	sb_puts(&sb, op->path);
	if (strcmp(op->path, resolved) != 0) {
		sb_puts(&sb, " (");
		sb_puts(&sb, resolved);
		sb_puts(&sb, ")");
	}
	sb_puts(&sb, " [");
	sb_puts(&sb, op->name);
	sb_puts(&sb, strcmp(layer, "kernel") ? "] (" : ", by the kernel] (");
	sb_puts(&sb, rule);
	if (shim.extra.standalone) {
		sb_puts(&sb, "); allow by adding ");
		put_grant(&sb, resolved);
		sb_puts(&sb, " to ");
		sb_puts(&sb, right_var(op->need));
	} else {
		sb_puts(&sb, "); allow with ");
		sb_puts(&sb, right_flag(op->need));
		sb_puts(&sb, " ");
		put_grant(&sb, resolved);
	}
	if (sb.full)
		sb.len = sizeof(line) - 2;
	line[sb.len++] = '\n';
	syscall(SYS_write, 2, line, sb.len);
}

bool report_first_time(const char *name, unsigned int need, const char *key)
{
	return !shim.policy.quiet && first_time(hash(name, need, key));
}

void report_denial(const struct op *op, const char *resolved, const char *layer)
{
	char rule[RULE_MAX];
	struct strbuf sb = STRBUF(rule, sizeof(rule));

	put_rule(&sb, op, resolved);
	if (report_first_time(op->name, op->need, resolved))
		write_line(op, resolved, rule, layer);
	audit_record(op, resolved, rule, layer);
}
