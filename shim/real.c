/*
 * real.c - find the real libc function behind each hook.
 *
 * dlsym(RTLD_NEXT) returns the default version of a symbol; where glibc
 * keeps several (posix_spawn@GLIBC_2.2.5 and @@GLIBC_2.15, realpath),
 * the hook asks for the version it forwards to with dlvsym.  Both are
 * pinned to the glibc 2.2.5 baseline so that the shim loads into programs
 * linked against any glibc since (an unmet version in a preloaded object
 * keeps the program from starting).
 */
#include <dlfcn.h>

#include "shim/shim.h"

__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver dlvsym,dlvsym@GLIBC_2.2.5");

void *real_sym(const char *name, const char *version)
{
	if (version)
		return dlvsym(RTLD_NEXT, name, version);
	return dlsym(RTLD_NEXT, name);
}

/* Every family's resolver (SHIM_RESOLVER, shim.h): the linker's bounds
 * of their section, hidden (the shim's own, never another object's). */
extern shim_resolver *const __start_cordon_resolvers[]
	__attribute__((visibility("hidden")));
extern shim_resolver *const __stop_cordon_resolvers[]
	__attribute__((visibility("hidden")));

void real_resolve_all(void)
{
	for (shim_resolver *const *r = __start_cordon_resolvers;
	     r < __stop_cordon_resolvers; r++)
		(*r)();
}
