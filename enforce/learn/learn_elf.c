/*
 * learn_elf.c - the interpreter and the libraries of an ELF program
 * that the dynamic loader maps before any shim runs: a program in
 * ~/bin linked to a library in ~/lib (by a run path) needs that
 * directory too, and no record says so.
 *
 * Only what the file itself names outside the loader's defaults: its
 * PT_INTERP, and its DT_NEEDED libraries found along its DT_RPATH and
 * DT_RUNPATH (with $ORIGIN).  The system's directories are granted
 * anyway; LD_LIBRARY_PATH is not passed to the command by default.
 * The file is untrusted (the run may have made it): mapped read-only,
 * every offset and size checked against it, every string bounded.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce/learn/learn_elf.h"
#include "shim/core/path.h"

#define ELF_MAP_MAX    (256u << 20) /* larger files are not read */
#define ELF_NEEDED_MAX 64
#define ELF_CLASS      (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)

struct image {
	const unsigned char *base;
	size_t size;
	const ElfW(Phdr) * ph;
	size_t phnum;
};

/* @len bytes at @off lie within the image. */
static bool within(const struct image *im, size_t off, size_t len)
{
	return off <= im->size && len <= im->size - off;
}

/* The file offset of the address @vaddr, or (size_t)-1. */
static size_t offset_of(const struct image *im, ElfW(Addr) vaddr)
{
	for (size_t i = 0; i < im->phnum; i++) {
		const ElfW(Phdr) *p = &im->ph[i];

		if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr &&
		    vaddr - p->p_vaddr < p->p_filesz)
			return (size_t)(p->p_offset + (vaddr - p->p_vaddr));
	}
	return (size_t)-1;
}

/* The NUL-terminated string at @off of a string table of @size bytes at
 * @tab, or NULL. */
static const char *string_at(const struct image *im, size_t tab, size_t size,
			     size_t off)
{
	const char *s;

	if (off >= size || !within(im, tab, size))
		return NULL;
	s = (const char *)im->base + tab + off;
	return memchr(s, '\0', size - off) ? s : NULL;
}

/* @dir with $ORIGIN (or ${ORIGIN}) at its start as @origin, + @name. */
static bool candidate(const char *dir, size_t dlen, const char *origin,
		      const char *name, char out[PATH_BUF])
{
	const char *rest = dir;
	int n;

	if (dlen >= 7 && strncmp(dir, "$ORIGIN", 7) == 0)
		rest = dir + 7;
	else if (dlen >= 9 && strncmp(dir, "${ORIGIN}", 9) == 0)
		rest = dir + 9;
	if (rest != dir)
		n = snprintf(out, PATH_BUF, "%s%.*s/%s", origin,
			     (int)(dlen - (size_t)(rest - dir)), rest, name);
	else
		n = snprintf(out, PATH_BUF, "%.*s/%s", (int)dlen, dir, name);
	return n > 0 && n < PATH_BUF && out[0] == '/';
}

/* Look @name up along the run path @rpath; pass what is found. */
static int search(const char *rpath, const char *origin, const char *name,
		  void (*found)(const char *, void *), void *arg)
{
	char cand[PATH_BUF], res[PATH_BUF];

	if (strchr(name, '/'))
		return 0;
	while (*rpath) {
		size_t len = strcspn(rpath, ":");

		if (len && candidate(rpath, len, origin, name, cand) &&
		    access(cand, F_OK) == 0 &&
		    path_resolve(AT_FDCWD, cand, 0, res) == 0) {
			found(res, arg);
			return 1;
		}
		rpath += len + (rpath[len] == ':');
	}
	return 0;
}

static int interp(const struct image *im, void (*found)(const char *, void *),
		  void *arg)
{
	char res[PATH_BUF];

	for (size_t i = 0; i < im->phnum; i++) {
		const ElfW(Phdr) *p = &im->ph[i];
		const char *s;

		if (p->p_type != PT_INTERP || !p->p_filesz ||
		    !within(im, p->p_offset, p->p_filesz))
			continue;
		s = (const char *)im->base + p->p_offset;
		if (!memchr(s, '\0', p->p_filesz) ||
		    path_resolve(AT_FDCWD, s, 0, res) != 0)
			continue;
		found(res, arg);
		return 1;
	}
	return 0;
}

static const ElfW(Phdr) * dynamic(const struct image *im)
{
	for (size_t i = 0; i < im->phnum; i++)
		if (im->ph[i].p_type == PT_DYNAMIC &&
		    within(im, im->ph[i].p_offset, im->ph[i].p_filesz) &&
		    im->ph[i].p_offset % _Alignof(ElfW(Dyn)) == 0)
			return &im->ph[i];
	return NULL;
}

static int libraries(const struct image *im, const char *origin,
		     void (*found)(const char *, void *), void *arg)
{
	const ElfW(Phdr) *dp = dynamic(im);
	const ElfW(Dyn) * d;
	size_t n, tab = (size_t)-1, tabsz = 0, nneeded = 0;
	size_t needed[ELF_NEEDED_MAX], rpath[2] = { (size_t)-1, (size_t)-1 };
	int count = 0;

	if (!dp)
		return 0;
	d = (const ElfW(Dyn) *)(im->base + dp->p_offset);
	n = dp->p_filesz / sizeof(*d);
	for (size_t i = 0; i < n && d[i].d_tag != DT_NULL; i++) {
		if (d[i].d_tag == DT_STRTAB)
			tab = offset_of(im, d[i].d_un.d_ptr);
		else if (d[i].d_tag == DT_STRSZ)
			tabsz = d[i].d_un.d_val;
		else if (d[i].d_tag == DT_RPATH)
			rpath[0] = d[i].d_un.d_val;
		else if (d[i].d_tag == DT_RUNPATH)
			rpath[1] = d[i].d_un.d_val;
		else if (d[i].d_tag == DT_NEEDED && nneeded < ELF_NEEDED_MAX)
			needed[nneeded++] = d[i].d_un.d_val;
	}
	for (int r = 0; r < 2; r++) {
		const char *rp = string_at(im, tab, tabsz, rpath[r]);

		for (size_t i = 0; rp && i < nneeded; i++) {
			const char *name = string_at(im, tab, tabsz, needed[i]);

			if (name)
				count += search(rp, origin, name, found, arg);
		}
	}
	return count;
}

int learn_open_file(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

int learn_elf_deps(const char *path, void (*found)(const char *dep, void *arg),
		   void *arg)
{
	char origin[PATH_BUF], *slash;
	struct image im = { 0 };
	const ElfW(Ehdr) * eh;
	struct stat st;
	void *map;
	int fd, count = 0;

	if (path_resolve(AT_FDCWD, path, 0, origin) != 0)
		return 0;
	fd = learn_open_file(origin);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(*eh) || st.st_size > ELF_MAP_MAX) {
		close(fd);
		return 0;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	im.base = map;
	im.size = (size_t)st.st_size;
	eh = map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh->e_ident[EI_CLASS] == ELF_CLASS &&
	    eh->e_phentsize == sizeof(ElfW(Phdr)) &&
	    eh->e_phoff % _Alignof(ElfW(Phdr)) == 0 &&
	    within(&im, eh->e_phoff,
		   (size_t)eh->e_phnum * sizeof(ElfW(Phdr)))) {
		im.ph = (const ElfW(Phdr) *)(im.base + eh->e_phoff);
		im.phnum = eh->e_phnum;
		slash = strrchr(origin, '/');
		if (slash)
			*(slash == origin ? slash + 1 : slash) = '\0';
		count = interp(&im, found, arg) +
			libraries(&im, origin, found, arg);
	}
	munmap(map, im.size);
	return count;
}
