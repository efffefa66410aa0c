/*
 * exec_env_darwin.c - the shim follows a program into its children on
 * macOS (exec_env.h), and names the children it cannot follow.
 *
 * As on Linux, every environment a program hands to a child gets the
 * shim and the load-time policy snapshot back; here the shim is carried
 * by DYLD_INSERT_LIBRARIES (a colon-separated list), and no ASan link
 * order needs fixing.
 *
 * System Integrity Protection: dyld ignores and strips every DYLD_*
 * variable when it starts a protected program, Apple's own binaries
 * under /bin, /sbin, /usr (but /usr/local) and /System.  The shim is
 * not loaded there, nor anywhere below (make -> /bin/sh -> cc): the
 * child is named in an "exec-unshimmed" record, the same record the
 * Linux shim sends for a static binary, and Seatbelt, inherited by
 * every child, is the boundary alone.  That is why system(), popen()
 * and wordexp() need nothing restored: they all run /bin/sh.
 *
 * exec_env_build() and exec_env_note_unshimmed() run between vfork and
 * exec: the caller's storage, no malloc, no lock, no stdio.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "exec_env.h"
#include "shim.h"
#include "strbuf.h"

#define INSERT_VAR  "DYLD_INSERT_LIBRARIES"
#define SHEBANG_MAX 512 /* the kernel reads no more of a "#!" line */

/* Where dyld loaded libcordon.dylib from: the name the list carries. */
static char self_path[PATH_BUF];

/* The value of a DYLD_INSERT_LIBRARIES entry ("" for a bare name). */
static const char *value_of(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? eq + 1 : "";
}

/* Does the DYLD_INSERT_LIBRARIES value @list name @lib? */
static bool lists(const char *list, const char *lib)
{
	size_t n = strlen(lib);

	for (const char *p = list; n && *p;) {
		size_t len = strcspn(p, ":");

		if (len == n && memcmp(p, lib, n) == 0)
			return true;
		p += len + (p[len] == ':');
	}
	return false;
}

/*
 * The entry children get: the load-time DYLD_INSERT_LIBRARIES when it
 * lists this dylib (the other libraries it inserts stay), else this
 * dylib alone.  Kept in shim.preload, in place of the LD_PRELOAD that
 * init.c looks for.
 */
void exec_env_init(void)
{
	struct strbuf sb = STRBUF(shim.preload, sizeof(shim.preload));
	struct strbuf self = STRBUF(self_path, sizeof(self_path));
	char **envp = environ;
	const char *loaded = NULL;
	Dl_info info;

	if (dladdr((const void *)(uintptr_t)&exec_env_init, &info) &&
	    info.dli_fname)
		sb_puts(&self, info.dli_fname);
	if (self.full)
		self_path[0] = '\0';
	for (size_t i = 0; envp && envp[i] && !loaded; i++)
		if (env_is_name(envp[i], INSERT_VAR))
			loaded = value_of(envp[i]);
	shim.preload[0] = '\0';
	if (!self_path[0])
		return;
	sb_puts(&sb, INSERT_VAR "=");
	sb_puts(&sb, loaded && lists(loaded, self_path) ? loaded : self_path);
	if (sb.full)
		shim.preload[0] = '\0';
}

/* The entry a child gets for the program's @entry: the program's own
 * when it still inserts the shim, else ours with the program's after. */
static char *insert_for(char *entry, char *buf, size_t len)
{
	const char *theirs = value_of(entry);
	struct strbuf sb = STRBUF(buf, len);

	if (lists(theirs, self_path))
		return entry;
	if (!*theirs)
		return shim.preload;
	sb_puts(&sb, shim.preload);
	sb_puts(&sb, ":");
	sb_puts(&sb, theirs);
	return sb.full ? shim.preload : buf;
}

int exec_env_build(struct exec_env *e, char *const *envp)
{
	bool carry_lib = shim.active && shim.preload[0];
	bool carry_policy = shim.active && shim.snapshot[0];
	bool has_lib = false, has_policy = false;
	size_t n = 0;

	e->envp = envp;
	if (!carry_lib && !carry_policy)
		return 0;
	for (size_t i = 0; envp && envp[i]; i++) {
		char *v = envp[i];

		if (carry_lib && env_is_name(v, INSERT_VAR)) {
			if (has_lib)
				continue; /* dyld reads the first */
			has_lib = true;
			v = insert_for(v, e->preload, sizeof(e->preload));
		} else if (carry_policy && env_is_name(v, SNAPSHOT_VAR)) {
			if (has_policy)
				continue;
			has_policy = true;
			v = shim.snapshot;
		}
		/* this one, the two appended, the NULL */
		if (n + 4 > EXEC_ENV_CAP)
			return -E2BIG;
		e->vec[n++] = v;
	}
	if (carry_lib && !has_lib)
		e->vec[n++] = shim.preload;
	if (carry_policy && !has_policy)
		e->vec[n++] = shim.snapshot;
	e->vec[n] = NULL;
	e->envp = e->vec;
	return 0;
}

/* Only /bin/sh needs environ carried for it (system, popen, wordexp),
 * and SIP strips the shim from /bin/sh whatever environ says. */
int exec_env_restore(void)
{
	return 0;
}

/* Apple's protected trees.  /usr/local is the user's (Homebrew). */
static bool in_sip_tree(const char *path)
{
	static const char *const trees[] = {
		"/bin",	     "/sbin",	     "/usr/bin",
		"/usr/sbin", "/usr/libexec", "/System",
	};

	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++)
		if (path_is_within(path, trees[i]))
			return true;
	return false;
}

/* Would dyld drop the shim for @path: in a protected tree, or marked
 * restricted by the system (SF_RESTRICTED, what SIP protects)? */
static bool is_protected(const char *path)
{
	struct stat st;

	if (in_sip_tree(path))
		return true;
	return stat(path, &st) == 0 && (st.st_flags & SF_RESTRICTED);
}

/* The interpreter of the "#!" script @path, into @out. */
static bool shebang(const char *path, char out[SHEBANG_MAX])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	ssize_t n;
	char *p, *end;

	if (fd < 0)
		return false;
	n = pread(fd, out, SHEBANG_MAX - 1, 0);
	close(fd);
	if (n < 3 || out[0] != '#' || out[1] != '!')
		return false;
	out[n] = '\0';
	for (p = out + 2; *p == ' ' || *p == '\t';)
		p++;
	end = p + strcspn(p, " \t\n");
	if (end == p)
		return false;
	*end = '\0';
	memmove(out, p, (size_t)(end - p) + 1);
	return true;
}

void exec_env_note_unshimmed(const struct op *op)
{
	struct op rec = *op;
	char resolved[PATH_BUF], interp[SHEBANG_MAX];
	const char *why = NULL;
	int saved = errno;

	if (!shim.extra.log || !guard_enter())
		return;
	rec.name = "exec-unshimmed";
	rec.verdict = "note";
	if (path_resolve(op->dirfd, op->path, op->pflags, resolved) != 0)
		resolved[0] = '\0';
	if (resolved[0] && is_protected(resolved))
		why = "an Apple binary under System Integrity Protection "
		      "(SIP): dyld drops DYLD_INSERT_LIBRARIES there and in "
		      "all it runs; Seatbelt holds alone";
	else if (resolved[0] && shebang(resolved, interp) &&
		 is_protected(interp))
		why = "a script whose interpreter is an Apple binary under "
		      "System Integrity Protection (SIP): the shim cannot "
		      "enter it; Seatbelt holds alone";
	if (why)
		audit_record(&rec, resolved, why, "shim");
	guard_leave();
	errno = saved;
}
