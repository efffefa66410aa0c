/*
 * exec_env.c - make the shim follow a program into its children, and
 * name the children it cannot follow.
 *
 * Every environment a program hands to a child gets the shim and the
 * policy snapshot back (catalog D-2).  The values put back are the ones
 * this process loaded (shim.preload, shim.snapshot), never the current
 * ones: a child that edits CORDON_POLICY cannot loosen what its own
 * children get.  Everything else the program passes reaches the child
 * as it was: the launcher scrubbed the environment once, at the root of
 * the tree, and what the tree adds later (MAKEFLAGS, COLLECT_GCC_OPTIONS,
 * a fakeroot preload) is the tree's own business; scrubbing it again on
 * every exec would change what allowed commands do.
 *
 * A child the shim cannot enter (a static binary, another ELF class or
 * machine, a script whose interpreter is one) is named in an audit
 * record, for the launcher's summary (catalog D-9).
 *
 * exec_env_build() and exec_env_note_unshimmed() run between vfork and
 * exec: they fill the caller's storage, use raw syscalls, allocate
 * nothing, take no lock.  exec_env_restore() runs in the parent only.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "env.h"
#include "exec_env.h"
#include "shim.h"
#include "strbuf.h"

#define PRELOAD_VAR "LD_PRELOAD"
#define LOCK_SPINS  100000
#define PHDR_CHUNK  16	/* program headers read at once */
#define SHEBANG_MAX 256 /* the kernel's BINPRM_BUF_SIZE */

/* libcordon.so as ld.so loaded it: the name an LD_PRELOAD lists. */
static char self_path[PATH_BUF];

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t addr = (uintptr_t)data;
	struct strbuf sb = STRBUF(self_path, sizeof(self_path));

	(void)size;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || addr < start ||
		    addr - start >= ph->p_memsz)
			continue;
		sb_puts(&sb, info->dlpi_name ? info->dlpi_name : "");
		if (sb.full)
			self_path[0] = '\0';
		return 1;
	}
	return 0;
}

void exec_env_init(void)
{
	dl_iterate_phdr(find_self, (void *)(uintptr_t)&exec_env_init);
}

/* Does the LD_PRELOAD value @list name @lib?  ld.so splits it on spaces
 * and colons. */
static bool lists(const char *list, const char *lib)
{
	size_t n = strlen(lib);

	while (n && *list) {
		size_t len = strcspn(list, " :");

		if (len == n && strncmp(list, lib, n) == 0)
			return true;
		list += len;
		if (*list)
			list++;
	}
	return false;
}

/* The LD_PRELOAD entry a child gets for the program's @entry: the
 * program's when it still loads the shim, else the load-time value with
 * the program's own preloads after it (in @buf, when they fit). */
static char *preload_for(char *entry, char *buf, size_t len)
{
	const char *eq = strchr(entry, '=');
	const char *theirs = eq ? eq + 1 : "";
	struct strbuf sb = STRBUF(buf, len);

	if (strcmp(entry, shim.preload) == 0 || lists(theirs, self_path))
		return entry;
	if (!*theirs)
		return shim.preload;
	sb_puts(&sb, shim.preload);
	sb_puts(&sb, " ");
	sb_puts(&sb, theirs);
	return sb.full ? shim.preload : buf;
}

int exec_env_build(struct exec_env *e, char *const *envp)
{
	bool carry_preload = shim.active && shim.preload[0];
	bool carry_policy = shim.active && shim.snapshot[0];
	bool preload = false, policy = false, asan = false;
	size_t n = 0;

	e->envp = envp;
	if (!carry_preload && !carry_policy)
		return 0;
	for (size_t i = 0; envp && envp[i]; i++) {
		char *v = envp[i];

		if (carry_preload && env_is_name(v, PRELOAD_VAR)) {
			if (preload)
				continue;
			preload = true;
			v = preload_for(v, e->preload, sizeof(e->preload));
		} else if (carry_policy && env_is_name(v, SNAPSHOT_VAR)) {
			if (policy)
				continue;
			policy = true;
			v = shim.snapshot;
		} else if (carry_preload && env_is_name(v, ASAN_VAR) && !asan) {
			asan = true;
			v = (char *)env_asan_entry(v, e->asan, sizeof(e->asan));
		}
		/* Room for this one, the three appended and the NULL. */
		if (n + 5 > EXEC_ENV_CAP)
			return -E2BIG;
		e->vec[n++] = v;
	}
	if (carry_preload && !asan)
		e->vec[n++] = (char *)env_asan_entry(NULL, NULL, 0);
	if (carry_preload && !preload)
		e->vec[n++] = shim.preload;
	if (carry_policy && !policy)
		e->vec[n++] = shim.snapshot;
	e->vec[n] = NULL;
	e->envp = e->vec;
	return 0;
}

/*
 * environ is swapped for a rebuilt copy, never edited in place: the
 * program's array may be read-only or shared, and another thread may be
 * reading it.  Two stores alternate so that the copy being built is never
 * the one environ points at; the lock only keeps two threads from
 * building into the same store at once.  It is never held across a call,
 * and a fork that orphans it costs a bounded wait, not a deadlock.
 */
static struct exec_env stores[2];
static unsigned int next_store;
static int store_lock;

static void lock(void)
{
	for (int i = 0; i < LOCK_SPINS; i++) {
		if (!__atomic_exchange_n(&store_lock, 1, __ATOMIC_ACQUIRE))
			return;
		syscall(SYS_sched_yield);
	}
}

static void unlock(void)
{
	__atomic_store_n(&store_lock, 0, __ATOMIC_RELEASE);
}

static bool is_same(char *const *a, char *const *b)
{
	size_t i = 0;

	if (!a || !b)
		return a == b;
	while (a[i] && a[i] == b[i])
		i++;
	return a[i] == b[i];
}

int exec_env_restore(void)
{
	int saved = errno;
	struct exec_env *e;
	int ret;

	lock();
	e = &stores[next_store];
	ret = exec_env_build(e, environ);
	if (ret == 0 && !is_same(e->envp, environ)) {
		__atomic_store_n(&environ, e->vec, __ATOMIC_RELEASE);
		next_store ^= 1;
	}
	unlock();
	errno = saved;
	return ret;
}

/* The ELF images this shim can be loaded into. */
#define SELF_CLASS (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)
#if defined(__x86_64__)
#define SELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define SELF_MACHINE EM_AARCH64
#else
#define SELF_MACHINE EM_NONE /* not checked */
#endif

enum image { IMAGE_SHIMMED, IMAGE_STATIC, IMAGE_CLASS, IMAGE_MACHINE };

static long pread_all(long fd, void *buf, size_t len, unsigned long off)
{
	return syscall(SYS_pread64, fd, buf, len, off);
}

/* Do the @phnum program headers of @fd at @phoff name an interpreter? */
static bool has_interp(long fd, unsigned long phoff, size_t phnum)
{
	ElfW(Phdr) ph[PHDR_CHUNK];

	for (size_t i = 0; i < phnum; i += PHDR_CHUNK) {
		size_t n = phnum - i < PHDR_CHUNK ? phnum - i : PHDR_CHUNK;
		unsigned long off = phoff + i * sizeof(ph[0]);

		if (off < phoff || pread_all(fd, ph, n * sizeof(ph[0]), off) !=
					   (long)(n * sizeof(ph[0])))
			return true; /* unreadable: assume the usual */
		for (size_t j = 0; j < n; j++)
			if (ph[j].p_type == PT_INTERP)
				return true;
	}
	return false;
}

/* What the kernel loads from @fd: an image the shim enters, or not. */
static enum image elf_image(long fd, bool *is_elf)
{
	ElfW(Ehdr) eh;

	*is_elf = pread_all(fd, &eh, sizeof(eh), 0) == (long)sizeof(eh) &&
		  memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0;
	if (!*is_elf)
		return IMAGE_SHIMMED;
	if (eh.e_ident[EI_CLASS] != SELF_CLASS)
		return IMAGE_CLASS;
	if (SELF_MACHINE != EM_NONE && eh.e_machine != SELF_MACHINE)
		return IMAGE_MACHINE;
	if (eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == PN_XNUM)
		return IMAGE_SHIMMED; /* unusual: say nothing */
	return has_interp(fd, eh.e_phoff, eh.e_phnum) ? IMAGE_SHIMMED
						      : IMAGE_STATIC;
}

/* The interpreter of a "#!" script @fd, into @out. */
static bool shebang(long fd, char out[SHEBANG_MAX])
{
	long n = pread_all(fd, out, SHEBANG_MAX - 1, 0);
	char *p, *end;

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

static long open_ro(int dirfd, const char *path, int pflags)
{
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY;

	if (pflags & PATH_NOFOLLOW)
		flags |= O_NOFOLLOW;
	return syscall(SYS_openat, dirfd, path, flags);
}

/* Why the shim will not be in the image @op runs, or NULL. */
static const char *why_unshimmed(const struct op *op, char *rule, size_t len)
{
	static const char *const what[] = {
		[IMAGE_STATIC] = "a static binary (no PT_INTERP)",
		[IMAGE_CLASS] = "a binary of another ELF class",
		[IMAGE_MACHINE] = "a binary for another machine",
	};
	struct strbuf sb = STRBUF(rule, len);
	char interp[SHEBANG_MAX];
	long fd = open_ro(op->dirfd, op->path, op->pflags);
	enum image img;
	bool is_elf;

	if (fd < 0)
		return NULL;
	img = elf_image(fd, &is_elf);
	if (!is_elf && shebang(fd, interp)) {
		syscall(SYS_close, fd);
		fd = open_ro(AT_FDCWD, interp, 0);
		if (fd < 0)
			return NULL;
		img = elf_image(fd, &is_elf);
		sb_puts(&sb, "its interpreter ");
		sb_puts(&sb, interp);
		sb_puts(&sb, " is ");
	}
	syscall(SYS_close, fd);
	if (img == IMAGE_SHIMMED)
		return NULL;
	sb_puts(&sb, what[img]);
	sb_puts(&sb, ": the shim cannot enter it; the kernel layer holds");
	return rule;
}

/* ld.so run as a program loads its argument with LD_PRELOAD honoured. */
static bool is_loader(const char *resolved)
{
	const char *base = strrchr(resolved, '/');

	return strncmp(base ? base + 1 : resolved, "ld-linux", 8) == 0;
}

void exec_env_note_unshimmed(const struct op *op)
{
	struct op rec = *op;
	char resolved[PATH_BUF], rule[PATH_BUF];
	const char *why;
	int saved = errno;

	if (!shim.extra.log || !guard_enter())
		return;
	rec.name = "exec-unshimmed";
	rec.verdict = "note";
	if (path_resolve(op->dirfd, op->path, op->pflags, resolved) != 0)
		resolved[0] = '\0';
	why = why_unshimmed(op, rule, sizeof(rule));
	if (why && !is_loader(resolved))
		audit_record(&rec, resolved[0] ? resolved : op->path, why,
			     "shim");
	guard_leave();
	errno = saved;
}
