/*
 * exec_env.c - make the shim follow a program into its children, and
 * name the children it cannot follow: the part that is the same on every
 * OS.
 *
 * Every environment a program hands to a child gets the shim and the
 * policy snapshot back (catalog D-2).  The values put back are the ones
 * this process loaded (shim.preload, shim.snapshot), never the current
 * ones: a child that edits CORDON_POLICY cannot loosen what its own
 * children get.  Everything else the program passes reaches the child
 * as it was: the launcher scrubbed the environment once, at the root of
 * the tree, and what the tree adds later (MAKEFLAGS, COLLECT_GCC_OPTIONS,
 * a fakeroot preload) is the tree's own business; scrubbing it again on
 * every exec would change what allowed commands do.  The loader's
 * variable is preload.h's.
 *
 * A child the shim cannot enter is named in an audit record, for the
 * launcher's summary (catalog D-9); the OS's file says why a child would
 * run without it (exec_env_linux.c: a static binary, another ELF class
 * or machine; darwin/exec_env_darwin.c: System Integrity Protection).
 *
 * exec_env_build(), exec_env_execve() and exec_env_note_unshimmed() run
 * between vfork and exec: they fill the caller's storage, allocate
 * nothing, take no lock, use no stdio.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "shim/core/env.h"
#include "shim/exec_env.h"
#include "shim/core/preload.h"
#include "shim/core/shebang.h"
#include "shim/shim.h"
#include "shim/core/strbuf.h"

/* The shim's file as the loader named it: what a list must name (a
 * piece of the shim's arena, beside the other load-time values). */
static const char *self_path = "";

bool exec_env_set_self(const char *name)
{
	char *piece = shim_arena_next();
	struct strbuf sb = STRBUF(piece, PATH_BUF);

	sb_puts(&sb, name);
	if (sb.full)
		piece[0] = '\0';
	shim_arena_cut(piece);
	self_path = piece;
	return piece[0] != '\0';
}

bool exec_env_lists_self(const char *list)
{
	size_t n = strlen(self_path);

	while (n && *list) {
		size_t len = strcspn(list, preload_os.seps);

		if (len == n && strncmp(list, self_path, n) == 0)
			return true;
		list += len;
		if (*list)
			list++;
	}
	return false;
}

/* The loader entry a child gets for the program's @entry: the program's
 * when it still loads the shim, else the load-time value with the
 * program's own libraries after it (in @buf, when they fit). */
static char *preload_for(char *entry, char *buf, size_t len)
{
	const char *eq = strchr(entry, '=');
	const char *theirs = eq ? eq + 1 : "";
	struct strbuf sb = STRBUF(buf, len);

	if (strcmp(entry, shim.preload) == 0 || exec_env_lists_self(theirs))
		return entry;
	if (!*theirs)
		return shim.preload;
	sb_puts(&sb, shim.preload);
	sb_puts(&sb, preload_os.join);
	sb_puts(&sb, theirs);
	return sb.full ? shim.preload : buf;
}

/*
 * A vector for an environment larger than EXEC_ENV_CAP: mapped, not
 * allocated (mmap is a system call: async-signal-safe, no lock), the
 * first @n entries copied from the stack.  exec_env_done() unmaps it;
 * an exec that succeeds takes the address space with it, except in a
 * vfork child, where it stays behind in the parent: one mapping per
 * such exec, only for environments this large.
 */
static char **grow(struct exec_env *e, char *const *envp, size_t n, size_t room)
{
	size_t total = n;
	void *m;

	while (envp[total])
		total++;
	e->big_len = (total + room) * sizeof(char *);
	m = mmap(NULL, e->big_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	memcpy(m, e->vec, n * sizeof(char *));
	e->big = m;
	return m;
}

void exec_env_done(struct exec_env *e)
{
	int saved = errno;

	if (e->big)
		munmap(e->big, e->big_len);
	e->big = NULL;
	errno = saved;
}

/* Which of the proxy's variables @v names: its bit, or 0. */
static unsigned int proxy_bit(const char *v)
{
	for (unsigned int i = 0; i < ENV_PROXY_N; i++) {
		const char *set = env_proxy_sets[i];
		size_t len = (size_t)(strchr(set, '=') - set);

		if (strncmp(v, set, len + 1) == 0)
			return 1u << i;
	}
	return 0;
}

/* Is there a policy to pass on?  The first exec of a process may be its
 * first hook: the policy decoded then. */
static bool policy_loaded(void)
{
	if (!shim_is_ready())
		shim_init();
	return shim_has_policy();
}

int exec_env_build(struct exec_env *e, char *const *envp)
{
	bool loaded = policy_loaded();
	bool carry_preload = loaded && shim.preload[0];
	bool carry_policy = loaded && shim.snapshot[0];
	bool carry_asan = carry_preload && preload_os.asan;
	/* with hosts allowed, the proxy's variables, where a program
	 * dropped them (a value of its own is its own choice) */
	bool carry_proxy = carry_policy && shim_is_ready() &&
			   shim.policy.net == NET_HOSTS && !shim.extra.captured;
	bool preload = false, policy = false, asan = false;
	unsigned int proxy = 0; /* bit i: env_proxy_sets[i] is there */
	/* Room for one more, those appended and the NULL. */
	size_t room = (carry_asan ? 5 : 4) + (carry_proxy ? ENV_PROXY_N : 0);
	size_t n = 0, cap = EXEC_ENV_CAP;
	char **vec = e->vec;

	e->envp = envp;
	e->big = NULL;
	if (!carry_preload && !carry_policy)
		return 0;
	for (size_t i = 0; envp && envp[i]; i++) {
		char *v = envp[i];

		if (carry_preload && env_is_name(v, preload_os.var)) {
			if (preload)
				continue;
			preload = true;
			v = preload_for(v, e->preload, sizeof(e->preload));
		} else if (carry_policy && env_is_name(v, SNAPSHOT_VAR)) {
			if (policy)
				continue;
			policy = true;
			v = shim.snapshot;
		} else if (carry_asan && env_is_name(v, ASAN_VAR) && !asan) {
			asan = true;
			v = (char *)env_asan_entry(v, e->asan, sizeof(e->asan));
		} else if (carry_proxy) {
			proxy |= proxy_bit(v);
		}
		if (n + room > cap) {
			vec = e->big ? NULL : grow(e, envp, n, room);
			if (!vec)
				return -E2BIG;
			cap = e->big_len / sizeof(char *);
		}
		vec[n++] = v;
	}
	if (carry_asan && !asan)
		vec[n++] = (char *)env_asan_entry(NULL, NULL, 0);
	if (carry_preload && !preload)
		vec[n++] = shim.preload;
	if (carry_policy && !policy)
		vec[n++] = shim.snapshot;
	for (unsigned int i = 0; carry_proxy && i < ENV_PROXY_N; i++)
		if (!(proxy & 1u << i))
			vec[n++] = (char *)env_proxy_sets[i];
	vec[n] = NULL;
	e->envp = vec;
	return 0;
}

__attribute__((noinline)) int
exec_env_execve(int (*exec)(const char *, char *const[], char *const[]),
		const char *path, char *const argv[], char *const envp[])
{
	struct exec_env env;
	int ret = exec_env_build(&env, envp);

	if (ret) {
		errno = -ret;
		return -1;
	}
	ret = exec(path, argv, env.envp);
	exec_env_done(&env);
	return ret;
}

bool exec_env_is_same(char *const *a, char *const *b)
{
	size_t i = 0;

	if (!a || !b)
		return a == b;
	while (a[i] && a[i] == b[i])
		i++;
	return a[i] == b[i];
}

bool exec_env_shebang(char *buf, long n)
{
	return shebang_parse(buf, n);
}

void exec_env_note(const struct op *op, const char *resolved, const char *why)
{
	struct op rec = *op;

	rec.name = "exec-unshimmed";
	rec.verdict = "note";
	audit_record(&rec, resolved[0] ? resolved : op->path, why, "shim");
}

void exec_env_note_unshimmed(const struct op *op)
{
	char resolved[PATH_BUF], rule[PATH_BUF];
	const char *why;
	int saved = errno;

	if (!shim.extra.log || !guard_enter())
		return;
	resolved[0] = '\0';
	why = exec_env_why_unshimmed(op, resolved, rule, sizeof(rule));
	if (why)
		exec_env_note(op, resolved, why);
	guard_leave();
	errno = saved;
}
