/*
 * hook_darwin.h - what the macOS hook files share: dyld's interposing
 * and the end of a hook.
 *
 * libcordon.dylib is inserted with DYLD_INSERT_LIBRARIES.  Its
 * __DATA,__interpose section holds (replacement, replacee) pairs: dyld
 * binds every other image's references to the replacee to the
 * replacement.  The dylib's own references are left alone, so a hook
 * forwards by calling the libSystem function by its own name; no
 * dlsym(RTLD_NEXT) and no real_* pointer is needed.  The hooks are
 * static: only the section names them.
 *
 * The shape of every hook is the Linux one (hooks.h): save errno; decide
 * (lazy init and the reentrancy guard inside hook_decide); on deny set
 * errno once and return the failure value; on allow restore errno and
 * forward, and report a kernel denial when the real call fails.
 */
#ifndef CORDON_HOOK_DARWIN_H
#define CORDON_HOOK_DARWIN_H

#include "hooks.h"

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

/* 0 to forward, else -1 with errno set (the hook returns its failure). */
static inline int hook_deny(const struct op *op)
{
	int err = hook_decide(op);

	if (err)
		errno = err;
	return err ? -1 : 0;
}

/* Both ends of a rename or a link, each denied end with its own line. */
static inline int hook_deny2(const struct op *a, const struct op *b)
{
	int err = hook_decide(a);
	int err2 = hook_decide(b);

	if (!err)
		err = err2;
	if (err)
		errno = err;
	return err ? -1 : 0;
}

/* The end of an allowed call that returned @ret (< 0: failed). */
static inline int hook_done(const struct op *op, int ret, int saved)
{
	if (ret < 0)
		hook_failed(op, errno);
	else
		errno = saved;
	return ret;
}

static inline int hook_done2(const struct op *a, const struct op *b, int ret,
			     int saved)
{
	int err = errno;

	if (ret >= 0) {
		errno = saved;
		return ret;
	}
	hook_failed(a, err);
	hook_failed(b, err);
	errno = err;
	return ret;
}

#endif
