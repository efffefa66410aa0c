/*
 * report.c - turn a denial into one line a person can act on, and an
 * audit record the launcher keeps.
 *
 * Both go out once per distinct (operation, path) in each process: a
 * program that retries, or stats a path a thousand times, is one line
 * and one record (the line unless the policy is quiet).  The record
 * goes to the log the snapshot names: "unix:PATH", a datagram socket
 * the launcher reads from outside the sandbox (so the command cannot
 * erase what was sent, and a closed fd or a cleared environment loses
 * nothing: the socket is found again by path on every record), or
 * "file:PATH" when the shim is used alone.  Raw syscalls only: this runs in
 * vfork children.
 *
 * The line is one line whatever the path holds: text from the program
 * is escaped as the launcher escapes it (SB_TERM), and a line that
 * would not fit is shortened in the middle of its longest texts, the
 * option that allows it (what people paste) kept whole when it can be.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "shim/shim.h"
#include "shim/core/rule.h"
#include "shim/core/strbuf.h"

#define SEEN_SLOTS 1024
#define RULE_MAX   1024
/* "by adding PATH to CORDON_WRITE", PATH quoted: a longer one is none */
#define ALLOW_MAX (PATH_BUF + 256)
/* Room for an option naming a PATH_BUF path, and the rest. */
#define LINE_MAX_ (2 * PATH_BUF)
/* The line but for its texts: "cordon: denied write ", " (", ") [",
 * the hook's name (NAME_MAX_), ", by the kernel] (", "); allow ", the
 * newline. */
#define NAME_MAX_  64
#define LINE_FIXED 160
/* What the shortest text keeps when the option is long: its two ends. */
#define SHARE_MIN 256

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

static void clear(struct strbuf *sb)
{
	*sb = STRBUF(sb->buf, sb->cap);
	sb->buf[0] = '\0';
}

/* Is @path cordon's own state: the report socket's directory, where
 * the audit log lies by default?  The launcher grants it to no option
 * (shimenv.c). */
static __attribute__((noinline)) bool is_cordons(const char *path)
{
	const char *log = shim.extra.log, *slash;
	char dir[PATH_BUF];
	size_t n;

	if (!log || strncmp(log, "unix:", 5) != 0)
		return false;
	log += 5;
	slash = strrchr(log, '/');
	n = slash ? (size_t)(slash - log) : 0;
	if (n == 0 || n >= sizeof(dir))
		return false;
	memcpy(dir, log, n);
	dir[n] = '\0';
	return path_is_within(path, dir);
}

bool shim_has_mounts(void)
{
	const char *log = shim.extra.log;

	/* only the launcher hands out its report socket */
	return log && strncmp(log, "unix:", 5) == 0;
}

/* The shim used alone: "by adding /x to CORDON_WRITE".  Out of line:
 * its buffer is off report_denial()'s stack. */
static __attribute__((noinline)) void
put_var(struct strbuf *sb, const struct op *op, const char *resolved)
{
	char grant[PATH_BUF];
	unsigned int flag;

	/* a directory to make first has no variable: none */
	if (!rule_grant(&shim.policy, op->name, op->need, resolved,
			op->peer_resolved, grant, &flag) ||
	    (flag & RULE_CREATE))
		return;
	sb_puts(sb, "by adding ");
	sb_shell(sb, grant);
	sb_puts(sb, " to ");
	sb_puts(sb, rule_var(flag));
}

/* The option that allows it, "--write /x", or nothing.  Out of line,
 * as put_var(). */
static __attribute__((noinline)) void
put_option(struct strbuf *sb, const struct op *op, const char *resolved)
{
	char grant[PATH_BUF];
	const char *slash = strrchr(resolved, '/');
	unsigned int flag = op->need;

	if (op->grant_dir && slash && slash > resolved &&
	    (size_t)(slash - resolved) < sizeof(grant)) {
		memcpy(grant, resolved, (size_t)(slash - resolved));
		grant[slash - resolved] = '\0';
	} else if (op->grant_dir ||
		   !rule_grant(&shim.policy, op->name, op->need, resolved,
			       op->peer_resolved, grant, &flag)) {
		clear(sb);
		return;
	}
	if (!rule_put_flag(sb, flag, grant))
		clear(sb);
}

/* What would allow it: "with --write /x", or for the shim used alone
 * "by adding /x to CORDON_WRITE"; the path shell-quoted.  Nothing when
 * no option can, for cordon's own state, or when the option does not
 * fit: then the return says why. */
static const char *put_allow(struct strbuf *sb, const struct op *op,
			     const char *resolved)
{
	const char *why;

	if (is_cordons(resolved))
		return RULE_CORDONS;
	if (shim.extra.standalone) {
		put_var(sb, op, resolved);
	} else {
		sb_puts(sb, "with ");
		put_option(sb, op, resolved);
	}
	if (sb->full)
		clear(sb);
	if (sb->len)
		return NULL;
	/* none: why (asked only then); none found is none that fits */
	why = rule_why_none(&shim.policy, op->name, op->need, resolved,
			    op->peer_resolved);
	return why ? why : RULE_TOO_LONG;
}

/* How much of each text the line shows, in @cap: the option whole if
 * it can be, the path, the resolved path and the rule share the rest. */
static void line_caps(const char *const text[4], size_t cap[4])
{
	size_t budget = LINE_MAX_ - LINE_FIXED;

	for (size_t i = 0; i < 4; i++)
		cap[i] = sb_escape_len(text[i], i ? SB_TERM : SB_QUOTED);
	if (cap[0] > budget - 3 * SHARE_MIN)
		cap[0] = budget - 3 * SHARE_MIN;
	sb_share(cap + 1, 3, budget - cap[0]);
}

/* Not inlined: its line is off the stack before the record is built. */
static __attribute__((noinline)) void
write_line(const struct op *op, const char *resolved, const char *rule,
	   const char *layer, const char *none)
{
	char line[LINE_MAX_];
	/* one byte kept for the newline */
	struct strbuf sb = STRBUF(line, sizeof(line) - 1);
	bool both = strcmp(op->path, resolved) != 0;
	const char *allow = op->allow ? op->allow : "";
	const char *text[4] = { allow, op->path, both ? resolved : "", rule };
	size_t cap[4];

	line_caps(text, cap);
	sb_puts(&sb, "cordon: denied ");
	sb_puts(&sb, rule_word(op->need));
	sb_puts(&sb, " ");
	sb_escape(&sb, op->path, SB_TERM, cap[1]);
	if (both) {
		sb_puts(&sb, " (");
		sb_escape(&sb, resolved, SB_TERM, cap[2]);
		sb_puts(&sb, ")");
	}
	sb_puts(&sb, " [");
	sb_escape(&sb, op->name, SB_TERM, NAME_MAX_);
	if (op->end) {
		sb_puts(&sb, " ");
		sb_puts(&sb, op->end);
	}
	sb_puts(&sb, strcmp(layer, "kernel") ? "] (" : ", by the kernel] (");
	sb_escape(&sb, rule, SB_TERM, cap[3]);
	if (*allow) {
		sb_puts(&sb, "); allow ");
		sb_escape(&sb, allow, SB_QUOTED, cap[0]);
	} else {
		sb_puts(&sb, "); ");
		sb_puts(&sb, none);
	}
	line[sb.len++] = '\n';
	shim_say(line, sb.len);
}

unsigned int report_once(const char *name, unsigned int need, const char *key)
{
	if (!first_time(hash(name, need, key)))
		return 0;
	if (shim.policy.quiet || shim.extra.learn)
		return REPORT_RECORD;
	return REPORT_LINE | REPORT_RECORD;
}

/* The other end of a rename or link, resolved, into @out, where the
 * launcher's mounts make it matter; else NULL.  Out of line, as
 * put_var(). */
static __attribute__((noinline)) const char *peer_of(const struct op *op,
						     char out[PATH_BUF])
{
	const struct op *o = op->peer;
	/* as check.c resolves the end it decides */
	int unseen = syscall(SYS_geteuid) == 0 ? PATH_UNSEEN_LEXICAL : 0;

	/* without the launcher's mounts, every end is on its host mount */
	if (!o || !o->path || !shim_has_mounts() ||
	    path_resolve(o->dirfd, o->path, o->pflags | unseen, out) != 0)
		return NULL;
	return out;
}

void report_denial(const struct op *op, const char *resolved, const char *layer)
{
	char rule[RULE_MAX], allow[ALLOW_MAX], peer[PATH_BUF];
	struct strbuf sb = STRBUF(rule, sizeof(rule));
	struct strbuf ab = STRBUF(allow, sizeof(allow));
	struct op rec = *op;
	const char *none;
	/* a repeat (its line and record made): nothing to compose */
	unsigned int say = report_once(op->name, op->need, resolved);

	if (!say)
		return;
	/* open(O_CREAT) of what is not there makes it: W too (check.c) */
	if (op->creat && !path_exists(resolved))
		rec.need |= RIGHT_W;
	rec.peer_resolved = peer_of(op, peer);
	if (op->why)
		sb_puts(&sb, op->why);
	else
		rule_put(&sb, &shim.policy, rec.need, resolved);
	rule_put_cross(&sb, &shim.policy, rec.name, rec.need, resolved,
		       rec.peer_resolved);
	none = put_allow(&ab, &rec, resolved);
	rec.allow = none ? NULL : allow;
	if (shim.extra.learn)
		rec.verdict = "learn"; /* no line: the run goes on */
	if (say & REPORT_LINE)
		write_line(&rec, resolved, rule, layer, none);
	if (say & REPORT_RECORD)
		audit_record(&rec, resolved, rule, layer);
}

/* A name as the command line takes it (cli_parse.c): letters, digits,
 * underscores, not a digit first; at most 255 bytes. */
static bool is_var_name(const char *name)
{
	size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"abcdefghijklmnopqrstuvwxyz0123456789_");

	return n > 0 && n < 256 && !name[n] && (name[0] < '0' || name[0] > '9');
}

void report_variable(const char *name)
{
	static const char rule[] = "the launcher's scrub removed it: only the "
				   "allowed variables pass";
	char line[512], allow[300];
	struct strbuf lb = STRBUF(line, sizeof(line) - 1);
	struct strbuf ab = STRBUF(allow, sizeof(allow));
	struct op rec = { .name = "getenv", .dirfd = AT_FDCWD, .var = name };
	int saved = errno;
	unsigned int say;

	if (!is_var_name(name) || !(say = report_once("getenv", 0, name))) {
		errno = saved;
		return;
	}
	sb_puts(&ab, "with -e ");
	sb_puts(&ab, name);
	rec.allow = allow;
	if (shim.extra.learn)
		rec.verdict = "learn";
	if (say & REPORT_LINE) {
		sb_puts(&lb, "cordon: denied variable ");
		sb_puts(&lb, name);
		sb_puts(&lb, " [getenv] (");
		sb_puts(&lb, rule);
		sb_puts(&lb, "); allow ");
		sb_puts(&lb, allow);
		line[lb.len++] = '\n';
		shim_say(line, lb.len);
	}
	if (say & REPORT_RECORD)
		audit_record(&rec, NULL, rule, "shim");
	errno = saved;
}
