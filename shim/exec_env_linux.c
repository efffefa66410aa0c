/*
 * exec_env_linux.c - the Linux half of exec_env.h: which file ld.so
 * loaded the shim from, environ restored for the shells libc starts,
 * the files an exec loads (the file, then each "#!" interpreter, which
 * the exec hooks decide on too), and the children the shim cannot
 * enter (a static binary, another ELF class or machine, a script whose
 * interpreter is one).  exec_env.c composes the environments and sends
 * the record.
 *
 * exec_env_follow() and exec_env_why_unshimmed() run between vfork and
 * exec: raw syscalls, the stack only, no lock.  exec_env_restore() runs
 * in the parent only.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/exec_env.h"
#include "shim/core/preload.h"
#include "shim/core/shebang.h"
#include "shim/shim.h"
#include "shim/core/strbuf.h"

#define LOCK_SPINS    100000
#define PHDR_CHUNK    16	  /* program headers read at once */
#define SHEBANG_MAX   SHEBANG_BUF /* the kernel's BINPRM_BUF_SIZE */
#define SHEBANG_DEPTH 4		  /* its "#!" levels (BINPRM_MAX_RECURSION) */

/* libcordon.so as ld.so loaded it (the name an LD_PRELOAD lists), and
 * LD_PRELOAD as loaded. */
void exec_env_init(char **envp)
{
	/* preload_os.var in .data: the start reads no page of .rodata */
	static char var[] = "LD_PRELOAD";

	exec_env_set_self(real_self_name());
	shim.preload = shim_keep(envp, var, SHIM_PRELOAD_MAX);
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

int exec_env_restore(void)
{
	int saved = errno;
	struct exec_env *e;
	int ret;

	lock();
	e = &stores[next_store];
	/* the copy this store held is no longer environ (they alternate) */
	exec_env_done(e);
	ret = exec_env_build(e, environ);
	if (ret == 0 && !exec_env_is_same(e->envp, environ)) {
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

/* What the kernel loads from the ELF file @fd, whose header @head
 * holds: an image the shim enters, or not. */
static enum image elf_image(long fd, const char *head)
{
	ElfW(Ehdr) eh;

	memcpy(&eh, head, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != SELF_CLASS)
		return IMAGE_CLASS;
	if (SELF_MACHINE != EM_NONE && eh.e_machine != SELF_MACHINE)
		return IMAGE_MACHINE;
	if (eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == PN_XNUM)
		return IMAGE_SHIMMED; /* unusual: say nothing */
	return has_interp(fd, eh.e_phoff, eh.e_phnum) ? IMAGE_SHIMMED
						      : IMAGE_STATIC;
}

static long open_ro(int dirfd, const char *path, int pflags)
{
	/* a FIFO named on a "#!" line does not hold the exec up */
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;

	if (pflags & PATH_NOFOLLOW)
		flags |= O_NOFOLLOW;
	return syscall(SYS_openat, dirfd, path, flags);
}

/* The image an exec loads: its kind, and the last "#!" interpreter on
 * the way to it ("" when the file itself is the image). */
struct image_walk {
	enum image img;
	char interp[SHEBANG_MAX];
};

/*
 * walk - follow @op's file through its "#!" interpreters to the image
 * the kernel loads, each file opened and its first bytes read once;
 * each interpreter is decided by @judge (NULL: none) before it is
 * opened, and not opened when the judge says the kernel cannot run it.  The
 * image is told apart (its program headers read) only when @classify.  Return:
 * 0, or what @judge refused with.
 */
static int walk(const struct op *op, exec_judge_fn *judge, bool classify,
		struct image_walk *w)
{
	char head[SHEBANG_MAX];
	long fd = open_ro(op->dirfd, op->path, op->pflags);
	int err;

	w->img = IMAGE_SHIMMED;
	w->interp[0] = '\0';
	for (int depth = 0; fd >= 0; depth++) {
		long n = pread_all(fd, head, SHEBANG_MAX - 1, 0);
		bool is_elf;

		is_elf = n >= (long)sizeof(ElfW(Ehdr)) &&
			 memcmp(head, ELFMAG, SELFMAG) == 0;
		if (is_elf && classify)
			w->img = elf_image(fd, head);
		syscall(SYS_close, fd);
		if (is_elf || depth == SHEBANG_DEPTH ||
		    !exec_env_shebang(head, n))
			return 0;
		memcpy(w->interp, head, strlen(head) + 1);
		w->img = IMAGE_SHIMMED;
		err = judge ? judge(op, w->interp) : 0;
		if (err)
			return err > 0 ? err : 0;
		fd = open_ro(AT_FDCWD, w->interp, 0);
	}
	return 0;
}

/* Why the shim will not be in the image @w, in @rule, or NULL. */
static const char *why_of(const struct image_walk *w, char *rule, size_t len)
{
	static const char *const what[] = {
		[IMAGE_STATIC] = "a static binary (no PT_INTERP)",
		[IMAGE_CLASS] = "a binary of another ELF class",
		[IMAGE_MACHINE] = "a binary for another machine",
	};
	struct strbuf sb = STRBUF(rule, len);

	if (w->img == IMAGE_SHIMMED)
		return NULL;
	if (w->interp[0]) {
		sb_puts(&sb, "its interpreter ");
		sb_puts(&sb, w->interp);
		sb_puts(&sb, " is ");
	}
	sb_puts(&sb, what[w->img]);
	sb_puts(&sb, ": the shim cannot enter it; the kernel layer holds");
	return rule;
}

/* ld.so run as a program loads its argument with LD_PRELOAD honoured. */
static bool is_loader(const char *resolved)
{
	const char *base = strrchr(resolved, '/');

	return strncmp(base ? base + 1 : resolved, "ld-linux", 8) == 0;
}

/* why_of(), but for ld.so itself, static, whose program has the shim;
 * @op's file resolved in @resolved when it had to be, else "". */
static const char *why_unshimmed(const struct op *op,
				 const struct image_walk *w,
				 char resolved[PATH_BUF], char *rule,
				 size_t len)
{
	const char *why = why_of(w, rule, len);

	if (!why ||
	    path_resolve(op->dirfd, op->path, op->pflags, resolved) != 0) {
		resolved[0] = '\0';
		return why;
	}
	return is_loader(resolved) ? NULL : why;
}

const char *exec_env_why_unshimmed(const struct op *op, char resolved[PATH_BUF],
				   char *rule, size_t len)
{
	struct image_walk w;

	walk(op, NULL, true, &w);
	return why_unshimmed(op, &w, resolved, rule, len);
}

/* The record of an image the shim cannot enter.  Out of line: its
 * buffers are off the stack of every exec that needs none. */
static __attribute__((noinline)) void note(const struct op *op,
					   const struct image_walk *w)
{
	char resolved[PATH_BUF], rule[PATH_BUF];
	const char *why;

	if (!guard_enter())
		return;
	why = why_unshimmed(op, w, resolved, rule, sizeof(rule));
	if (why)
		exec_env_note(op, resolved, why);
	guard_leave();
}

int exec_env_follow(const struct op *op, exec_judge_fn *judge)
{
	struct image_walk w;
	int saved = errno;
	int err = walk(op, judge, shim.extra.log != NULL, &w);

	if (!err && w.img != IMAGE_SHIMMED && shim.extra.log)
		note(op, &w);
	errno = saved;
	return err;
}
