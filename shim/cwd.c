/*
 * cwd.c - the working directory, as getcwd() last gave it, kept so that
 * a relative path is decided without a system call to learn it (on
 * these machines the cheapest system call costs more than the whole
 * decision).
 *
 * Each thread keeps its own copy, stamped with a process-wide
 * generation that the chdir and fchdir hooks (hook_cwd.c) advance: a
 * change through them is seen by every thread at its next call.  A copy
 * is only ever taken in the process whose memory this is (its pid noted
 * when the hooks were resolved): a vfork child shares its parent's
 * memory, and what it took would be the parent's afterwards; a fork
 * child, which cannot tell itself from one, keeps what it inherited
 * (its working directory too) until it changes it, and asks the kernel
 * each time after that.  What the shim does not see (a raw chdir system
 * call, libc's own in fts and nftw with FTW_CHDIR, a directory renamed
 * from outside) leaves a copy stale: check.c uses it only to allow, and
 * decides every refusal on a fresh resolution, so a stale copy never
 * refuses an allowed call (see check.c for what it may let through).
 * Without the hooks (macOS) nothing is kept: every call asks the kernel.
 *
 * Runs in every hook, in vfork children and signal handlers: raw system
 * calls, no locks, no malloc, errno untouched.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/shim.h"

#define CWD_MAX 512 /* longer ones are asked for each time */

/* Both in .data (generation starts at 1), on the page the real
 * functions' pointers share, which every process writes anyway: owner,
 * written at start-up, costs no page fault of its own in .bss. */
static struct {
	unsigned int generation;
	pid_t owner; /* 0: not watched, nothing is kept */
} watch = { 1, 0 };
static __thread char cwd_buf[CWD_MAX];
static __thread size_t cwd_len;
static __thread unsigned int cwd_gen; /* 0: nothing kept */

void cwd_watch(void)
{
	watch.owner = getpid();
}

void cwd_changed(void)
{
	__atomic_add_fetch(&watch.generation, 1, __ATOMIC_RELEASE);
}

const char *cwd_peek(size_t *len)
{
	if (!cwd_gen ||
	    cwd_gen != __atomic_load_n(&watch.generation, __ATOMIC_ACQUIRE))
		return NULL;
	*len = cwd_len;
	return cwd_buf;
}

/* The generation is read before the kernel is asked: a change made
 * meanwhile leaves the copy a generation behind, taken again next. */
static void keep(const char *cwd, size_t len, unsigned int gen)
{
	if (!watch.owner || len >= CWD_MAX || getpid() != watch.owner)
		return;
	memcpy(cwd_buf, cwd, len + 1);
	cwd_len = len;
	cwd_gen = gen;
}

size_t cwd_get(char out[PATH_BUF])
{
	int saved = errno;
	unsigned int gen = __atomic_load_n(&watch.generation, __ATOMIC_ACQUIRE);
	const char *kept;
	size_t len;

	kept = cwd_peek(&len);
	if (kept) {
		memcpy(out, kept, len + 1);
		return len;
	}
	/* "(unreachable)/..." outside the root: no path to decide on */
	if (syscall(SYS_getcwd, out, PATH_BUF) < 0 || out[0] != '/') {
		errno = saved;
		return 0;
	}
	len = strlen(out);
	keep(out, len, gen);
	errno = saved;
	return len;
}
