/*
 * exec_libs.c - the libraries a program granted alone cannot map.  A
 * program granted by a root of its own (--exec ~/.rustup/.../bin/rustc)
 * whose run path names libraries beside it ($ORIGIN/../lib, as rustup's
 * and pyenv's builds have) fails in the loader, before any hook runs:
 * "failed to map segment from shared object", the library on a mount
 * that runs nothing.  Before the exec, the shim reads the program's
 * dynamic section and names each such library in a line like any other
 * denial, with the option that allows it (a tool's root: toolroot.h).
 * The exec itself goes on: the loader says the rest.
 *
 * Only for a program granted by a file root: a directory root holds its
 * run path's libraries with it in nearly every case, and reading an ELF
 * on every exec is a cost no other exec pays.  Raw system calls, stack
 * buffers, no allocation: this runs between vfork and exec.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/exec_env.h"
#include "shim/hooks.h"
#include "shim/core/rule.h"
#include "shim/core/strbuf.h"

#define PHDRS_MAX   32
#define DYNS_MAX    128
#define NEEDED_MAX  16
#define RUNPATH_MAX 512
#define NAME_MAX_   256

struct elf {
	long fd;
	Elf64_Phdr ph[PHDRS_MAX];
	size_t nph;
};

static bool pread_all(long fd, void *buf, size_t len, unsigned long off)
{
	return syscall(SYS_pread64, fd, buf, len, off) == (long)len;
}

/* The file offset of the address @vaddr (a PT_LOAD holds it), or 0. */
static unsigned long offset_of(const struct elf *e, unsigned long vaddr)
{
	for (size_t i = 0; i < e->nph; i++) {
		const Elf64_Phdr *p = &e->ph[i];

		if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr &&
		    vaddr < p->p_vaddr + p->p_filesz)
			return vaddr - p->p_vaddr + p->p_offset;
	}
	return 0;
}

/* A NUL-terminated string at @off of the file, into @buf (@len). */
static bool read_str(long fd, unsigned long off, char *buf, size_t len)
{
	long n = syscall(SYS_pread64, fd, buf, len - 1, off);

	if (n <= 0)
		return false;
	buf[n] = '\0';
	return memchr(buf, '\0', (size_t)n) != NULL;
}

/* @dir of the run path with $ORIGIN (the program's directory @origin)
 * expanded, then "/@name", into @out; false when it does not fit. */
static bool candidate(const char *dir, size_t n, const char *origin,
		      const char *name, char out[PATH_BUF])
{
	struct strbuf sb = STRBUF(out, PATH_BUF);

	if (n >= 7 && strncmp(dir, "$ORIGIN", 7) == 0) {
		sb_puts(&sb, origin);
		dir += 7, n -= 7;
	} else if (n >= 9 && strncmp(dir, "${ORIGIN}", 9) == 0) {
		sb_puts(&sb, origin);
		dir += 9, n -= 9;
	}
	sb_put(&sb, dir, n);
	sb_puts(&sb, "/");
	sb_puts(&sb, name);
	return !sb.full && out[0] == '/';
}

/* The first library @name found along @runpath: named when the policy
 * does not let it run (map). */
static __attribute__((noinline)) void
check_one(const char *runpath, const char *origin, const char *name)
{
	char path[PATH_BUF], canon[PATH_BUF];
	/* named as it resolves: "bin/../lib" says nothing more */
	struct op op = OP("execve", RIGHT_X, AT_FDCWD, canon, 0);

	while (*runpath) {
		size_t n = strcspn(runpath, ":");

		if (candidate(runpath, n, origin, name, path) &&
		    path_resolve(AT_FDCWD, path, 0, canon) == 0 &&
		    path_exists(canon)) {
			if (!policy_allows(&shim.policy, RIGHT_X, canon)) {
				op.why = "a library the program's run path "
					 "names, which the loader maps: it "
					 "runs nothing where it is";
				report_denial(&op, canon, "shim");
			}
			return;
		}
		runpath += n;
		runpath += *runpath == ':';
	}
}

/* The program's dynamic section: its run path and each DT_NEEDED. */
static void check_elf(struct elf *e, const char *origin)
{
	Elf64_Dyn dyn[DYNS_MAX];
	unsigned long needed[NEEDED_MAX], strtab = 0, runpath = 0;
	size_t nneeded = 0, ndyn = 0;
	char rp[RUNPATH_MAX], name[NAME_MAX_];
	bool has_rp = false;

	for (size_t i = 0; i < e->nph; i++) {
		const Elf64_Phdr *p = &e->ph[i];

		if (p->p_type != PT_DYNAMIC)
			continue;
		ndyn = p->p_filesz / sizeof(dyn[0]);
		if (ndyn > DYNS_MAX)
			ndyn = DYNS_MAX;
		if (!pread_all(e->fd, dyn, ndyn * sizeof(dyn[0]), p->p_offset))
			return;
	}
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		if (dyn[i].d_tag == DT_NEEDED && nneeded < NEEDED_MAX)
			needed[nneeded++] = dyn[i].d_un.d_val;
		else if (dyn[i].d_tag == DT_STRTAB)
			strtab = offset_of(e, dyn[i].d_un.d_ptr);
		else if (dyn[i].d_tag == DT_RUNPATH ||
			 (dyn[i].d_tag == DT_RPATH && !has_rp)) {
			runpath = dyn[i].d_un.d_val;
			has_rp = true;
		}
	}
	if (!has_rp || !strtab ||
	    !read_str(e->fd, strtab + runpath, rp, sizeof(rp)))
		return;
	for (size_t i = 0; i < nneeded; i++)
		if (read_str(e->fd, strtab + needed[i], name, sizeof(name)) &&
		    !strchr(name, '/'))
			check_one(rp, origin, name);
}

/* Does the policy grant a program by a file root at all?  Most do not:
 * then no exec pays for a resolution here. */
static bool has_file_exec_root(void)
{
	for (size_t i = 0; i < shim.policy.nroots; i++)
		if (!shim.policy.roots[i].is_dir &&
		    (shim.policy.roots[i].rights & RIGHT_X))
			return true;
	return false;
}

static __attribute__((noinline)) void check_program(const char *resolved)
{
	const struct root *r = rule_granting(&shim.policy, resolved, RIGHT_X);
	char origin[PATH_BUF];
	const char *slash = strrchr(resolved, '/');
	Elf64_Ehdr eh;
	struct elf e;
	int saved = errno;

	if (!r || r->is_dir || !slash || slash == resolved ||
	    (size_t)(slash - resolved) >= sizeof(origin))
		return;
	memcpy(origin, resolved, (size_t)(slash - resolved));
	origin[slash - resolved] = '\0';
	e.fd = syscall(SYS_openat, AT_FDCWD, resolved, O_RDONLY | O_CLOEXEC);
	if (e.fd < 0) {
		errno = saved;
		return;
	}
	if (pread_all(e.fd, &eh, sizeof(eh), 0) &&
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum <= PHDRS_MAX &&
	    pread_all(e.fd, e.ph, eh.e_phnum * sizeof(Elf64_Phdr),
		      eh.e_phoff)) {
		e.nph = eh.e_phnum;
		check_elf(&e, origin);
	}
	syscall(SYS_close, e.fd);
	errno = saved;
}

void exec_libs_check(const struct op *op)
{
	char resolved[PATH_BUF];
	int saved = errno;

	if (has_file_exec_root() &&
	    path_resolve(op->dirfd, op->path, op->pflags, resolved) == 0)
		check_program(resolved);
	errno = saved;
}
