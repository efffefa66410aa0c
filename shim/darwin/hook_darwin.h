/*
 * hook_darwin.h - what the macOS hook files share: dyld's interposing.
 *
 * libcordon.dylib is inserted with DYLD_INSERT_LIBRARIES.  Its
 * __DATA,__interpose section holds (replacement, replacee) pairs: dyld
 * binds every other image's references to the replacee to the
 * replacement.  The dylib's own references are left alone, so a hook
 * forwards by calling the libSystem function by its own name; no
 * dlsym(RTLD_NEXT) and no real_* pointer is needed.  The hooks are
 * static: only the section names them.
 *
 * The shape of every hook is the Linux one, with the same helpers
 * (hooks.h): save errno; decide (lazy init and the reentrancy guard
 * inside hook_decide); on deny set errno once and return the failure
 * value (hook_deny); on allow restore errno and forward, and report a
 * kernel denial when the real call fails (hook_done).
 */
#ifndef CORDON_HOOK_DARWIN_H
#define CORDON_HOOK_DARWIN_H

#include "shim/hooks.h"

struct interpose_pair {
	const void *replacement;
	const void *replacee;
};

/* dyld reads the pairs; it needs them in __DATA,__interpose. */
#define INTERPOSE(hook, fn)                                                    \
	__attribute__((                                                        \
		used,                                                          \
		section("__DATA,__interpose"))) static struct interpose_pair   \
		interpose_##hook = {                                           \
			(const void *)(unsigned long)&hook,                    \
			(const void *)(unsigned long)&fn,                      \
		}

#endif
