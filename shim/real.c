/*
 * real.c - find the real function behind each hook, without dlsym.
 *
 * dlsym(RTLD_NEXT, NAME) from a preloaded object searches the objects
 * loaded after it, in the order ld.so loaded them (the global scope:
 * the other preloads, then the program's libraries breadth first, libc,
 * ld.so), and returns the first definition of NAME: the default version
 * where the object keeps several; dlvsym the one of the version asked.
 * It takes ld.so's lock, may allocate (a failed lookup does, catalog
 * D-6), and costs ~0.6 us a name here.
 *
 * This does the same lookup by hand: the objects after the shim are
 * read once from the link map (_r_debug, never dl_iterate_phdr, which
 * locks) into objs[], while ld.so starts the process (real_init(), from
 * the constructor, or the first lookup if a hook runs before it); a
 * name is then looked up in their GNU hash tables (or the SysV table of
 * an object that has no GNU one), with the version rules of glibc's
 * check_match(): no lock, no allocation, no system call, so a hook
 * resolves its own target on first use from any context (a signal
 * handler, a vfork child, an allocator's initialisation).  The objects
 * of the start are never unloaded; one dlopen()ed later is not in
 * objs[], as it was not in the scope the start-up's dlsym searched.
 * tests/unit/test_real.c proves the two equal for every name the hooks
 * resolve, alone and beside a second preloaded library that defines
 * them all, before or after the shim.
 */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "shim/shim.h"

#if __ELF_NATIVE_CLASS == 64
#define SYM_TYPE ELF64_ST_TYPE
#else
#define SYM_TYPE ELF32_ST_TYPE
#endif
#define REAL_OBJS_KEPT 8 /* read once; those after, from the map each time */

/* What a lookup reads of one object: pointers into its mapped image. */
struct real_obj {
	ElfW(Addr) base;
	const ElfW(Sym) * symtab;
	const char *strtab;
	const uint32_t *gnu;	 /* DT_GNU_HASH, or NULL */
	const ElfW(Word) * hash; /* DT_HASH, where there is no GNU one */
	const ElfW(Half) * versym;
	const ElfW(Verdef) * verdef;
};

/* On the page of .data the slots share (shim.h): written once, at the
 * start, and read by every first call.  Past REAL_OBJS_KEPT objects
 * (a program of many libraries), the rest are read from their link
 * maps, first to last, at each lookup: the start's objects stay, and
 * the chain between them never changes (a dlopen() appends after
 * last). */
static REAL_SLOT struct real_obj objs[REAL_OBJS_KEPT];
static REAL_SLOT int nobjs;
static REAL_SLOT const struct link_map *first_unkept, *last;
static REAL_SLOT int captured; /* 0, 1 under way, 2 done */
static REAL_SLOT const char *self_name;

extern ElfW(Dyn) _DYNAMIC[] __attribute__((visibility("hidden")));

/* A d_ptr of @m's dynamic section as an address: ld.so relocates them
 * in place, except in a read-only one (the vDSO's) where they are
 * offsets still. */
static const void *dyn_ptr(const struct link_map *m, ElfW(Addr) v)
{
	return (const void *)(v < m->l_addr ? v + m->l_addr : v);
}

/* @m's tables into @o.  Return: whether a lookup can read them. */
static bool read_obj(const struct link_map *m, struct real_obj *o)
{
	*o = (struct real_obj){ .base = m->l_addr };

	for (const ElfW(Dyn) *d = m->l_ld; d && d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB:
			o->symtab = dyn_ptr(m, d->d_un.d_ptr);
			break;
		case DT_STRTAB:
			o->strtab = dyn_ptr(m, d->d_un.d_ptr);
			break;
		case DT_GNU_HASH:
			o->gnu = dyn_ptr(m, d->d_un.d_ptr);
			break;
		case DT_HASH:
			o->hash = dyn_ptr(m, d->d_un.d_ptr);
			break;
		case DT_VERSYM:
			o->versym = dyn_ptr(m, d->d_un.d_ptr);
			break;
		case DT_VERDEF:
			o->verdef = dyn_ptr(m, d->d_un.d_ptr);
			break;
		}
	}
	return o->symtab && o->strtab && (o->gnu || o->hash);
}

/* Where the kernel mapped the vDSO: AT_SYSINFO_EHDR of the auxiliary
 * vector, which follows the environment the process began with (the
 * link map is read at the start, before a program changes environ;
 * getauxval is above the glibc baseline, shim/baseline.h). */
static ElfW(Addr) vdso_base(void)
{
	char **e = environ;
	const ElfW(auxv_t) * a;

	if (!e)
		return 0;
	while (*e)
		e++;
	for (a = (const void *)(e + 1); a->a_type != AT_NULL; a++)
		if (a->a_type == AT_SYSINFO_EHDR)
			return a->a_un.a_val;
	return 0;
}

void real_init(void)
{
	int expected = 0;
	const struct link_map *m = _r_debug.r_map;
	ElfW(Addr) vdso;

	if (__atomic_load_n(&captured, __ATOMIC_ACQUIRE) == 2 ||
	    !__atomic_compare_exchange_n(&captured, &expected, 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return; /* done, or under way: lookups find nothing meanwhile */
	vdso = vdso_base();
	while (m && m->l_ld != _DYNAMIC)
		m = m->l_next;
	if (m) {
		self_name = m->l_name;
		m = m->l_next;
	}
	/* the vDSO is in the chain, not in the scope dlsym searches */
	for (; m; m = m->l_next) {
		if (vdso && m->l_addr == vdso)
			continue;
		last = m;
		if (nobjs == REAL_OBJS_KEPT) {
			if (!first_unkept)
				first_unkept = m;
		} else if (read_obj(m, &objs[nobjs])) {
			nobjs++;
		}
	}
	__atomic_store_n(&captured, 2, __ATOMIC_RELEASE);
}

const char *real_self_name(void)
{
	real_init();
	return __atomic_load_n(&captured, __ATOMIC_ACQUIRE) == 2 && self_name
		       ? self_name
		       : "";
}

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static uint32_t elf_hash(const char *s)
{
	uint32_t h = 0, g;

	for (; *s; s++) {
		h = (h << 4) + (unsigned char)*s;
		g = h & 0xf0000000;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

/* The name of the version whose index is @ndx in @o, or NULL. */
static const char *version_name(const struct real_obj *o, ElfW(Half) ndx)
{
	const ElfW(Verdef) *vd = o->verdef;

	while (vd) {
		if (vd->vd_ndx == ndx && vd->vd_cnt > 0) {
			const ElfW(Verdaux) *aux =
				(const void *)((const char *)vd + vd->vd_aux);

			return o->strtab + aux->vda_name;
		}
		if (!vd->vd_next)
			break;
		vd = (const void *)((const char *)vd + vd->vd_next);
	}
	return NULL;
}

/* A lookup in one object: the state glibc's check_match() keeps. */
struct want {
	const char *name;
	const char *version;	     /* dlvsym's, or NULL for dlsym's default */
	const ElfW(Sym) * versioned; /* the one default seen */
	int nversioned;
};

/* Does symbol @i of @o answer @w?  As glibc decides for dlsym and
 * dlvsym: defined, a function or data, the name; with a version asked,
 * that version (an object without versions answers any); without, an
 * unversioned symbol at once, else its one default (not hidden). */
static const ElfW(Sym) *
	check(const struct real_obj *o, uint32_t i, struct want *w)
{
	const ElfW(Sym) *sym = &o->symtab[i];
	unsigned int type = SYM_TYPE(sym->st_info);
	ElfW(Half) ndx;

	if ((sym->st_value == 0 && type != STT_TLS) ||
	    sym->st_shndx == SHN_UNDEF)
		return NULL;
	if (type != STT_NOTYPE && type != STT_OBJECT && type != STT_FUNC &&
	    type != STT_COMMON && type != STT_TLS && type != STT_GNU_IFUNC)
		return NULL;
	if (strcmp(o->strtab + sym->st_name, w->name) != 0)
		return NULL;
	if (!o->versym)
		return sym;
	ndx = o->versym[i];
	if (w->version) {
		const char *v = version_name(o, ndx & 0x7fff);

		return v && strcmp(v, w->version) == 0 ? sym : NULL;
	}
	if ((ndx & 0x7fff) < 2)
		return sym;
	if (!(ndx & 0x8000) && w->nversioned++ == 0)
		w->versioned = sym;
	return NULL;
}

static const ElfW(Sym) *
	find_gnu(const struct real_obj *o, struct want *w, uint32_t h)
{
	const uint32_t nbuckets = o->gnu[0], symoffset = o->gnu[1];
	const uint32_t nbloom = o->gnu[2], shift = o->gnu[3];
	const ElfW(Addr) *bloom = (const void *)&o->gnu[4];
	const uint32_t *buckets = (const void *)&bloom[nbloom];
	const uint32_t *chain = &buckets[nbuckets];
	const unsigned int bits = sizeof(ElfW(Addr)) * 8;
	ElfW(Addr) word, mask;
	uint32_t i;

	if (!nbuckets || !nbloom)
		return NULL;
	word = bloom[(h / bits) % nbloom];
	mask = ((ElfW(Addr))1 << (h % bits)) |
	       ((ElfW(Addr))1 << ((h >> shift) % bits));
	if ((word & mask) != mask)
		return NULL;
	i = buckets[h % nbuckets];
	if (i < symoffset)
		return NULL;
	for (;; i++) {
		uint32_t ch = chain[i - symoffset];

		if ((ch | 1) == (h | 1)) {
			const ElfW(Sym) *sym = check(o, i, w);

			if (sym)
				return sym;
		}
		if (ch & 1)
			return NULL;
	}
}

static const ElfW(Sym) * find_sysv(const struct real_obj *o, struct want *w)
{
	const ElfW(Word) nbucket = o->hash[0];
	const ElfW(Word) *bucket = &o->hash[2], *chain = &bucket[nbucket];

	if (!nbucket)
		return NULL;
	for (ElfW(Word) i = bucket[elf_hash(w->name) % nbucket]; i != STN_UNDEF;
	     i = chain[i]) {
		const ElfW(Sym) *sym = check(o, i, w);

		if (sym)
			return sym;
	}
	return NULL;
}

/* @name in @o, or 0. */
static ElfW(Addr) find(const struct real_obj *o, const char *name,
		       const char *version, uint32_t h)
{
	struct want w = { .name = name, .version = version };
	const ElfW(Sym) *sym = o->gnu ? find_gnu(o, &w, h) : find_sysv(o, &w);
	ElfW(Addr) addr;

	if (!sym && w.nversioned == 1)
		sym = w.versioned;
	if (!sym)
		return 0;
	addr = o->base + sym->st_value;
	if (SYM_TYPE(sym->st_info) == STT_GNU_IFUNC)
		addr = ((ElfW(Addr)(*)(void))addr)();
	return addr;
}

void *real_sym(const char *name, const char *version)
{
	uint32_t h = gnu_hash(name);
	struct real_obj o;
	ElfW(Addr) addr = 0;

	real_init();
	if (__atomic_load_n(&captured, __ATOMIC_ACQUIRE) != 2)
		return NULL;
	for (int k = 0; k < nobjs && !addr; k++)
		addr = find(&objs[k], name, version, h);
	for (const struct link_map *m = first_unkept; m && !addr;
	     m = m == last ? NULL : m->l_next)
		if (read_obj(m, &o))
			addr = find(&o, name, version, h);
	return (void *)addr;
}

void *real_resolve(void **slot, const char *name, const char *version,
		   bool or_default)
{
	void *p = real_sym(name, version);

	if (!p && version && or_default)
		p = real_sym(name, NULL);
	if (!p)
		p = REAL_ABSENT;
	/* not captured yet (a hook inside real_init's own start): try
	 * again at the next call, never remember "absent" for it */
	if (__atomic_load_n(&captured, __ATOMIC_ACQUIRE) == 2)
		__atomic_store_n(slot, p, __ATOMIC_RELAXED);
	return p;
}
