/*
 * hooks.h - what every hook file shares: the start and end of a hook,
 * and the way to its real function (REAL_FN).
 *
 * The shape of every hook (style.md), written once, here:
 *   begin (initialise if needed; no policy: forward); save errno; if
 *   the shim is re-entered, forward; decide; on deny: report once, set
 *   errno once, return the failure value; on allow: restore errno and
 *   forward to the real function, reporting a kernel denial if it fails.
 * HOOK_RUN() is that shape as one expression; hook_begin(), hook_deny()
 * and hook_after() are its parts, for the hooks that decide in their own
 * way (stat answers from the check's lookup, exec searches PATH); the
 * macOS hooks use them too (darwin/hook_darwin.h).
 */
#ifndef CORDON_HOOKS_H
#define CORDON_HOOKS_H

#include <errno.h>

#include "shim/shim.h"

/*
 * The real function of a slot (a REAL_SLOT pointer, shim.h), found on
 * its hook's first call, from any context (real.c: no lock, no
 * allocation): REAL_FN(real_open, "open") defines real_open_get(), the
 * function or NULL when libc has none.  REAL_FN_V asks for @ver (as
 * dlvsym), REAL_FN_VD for @ver or else the default.
 */
#define REAL_FN_(slot, sym, ver, dflt)                                         \
	static inline __typeof__(slot) slot##_get(void)                        \
	{                                                                      \
		void *p_ = __atomic_load_n((void **)&slot, __ATOMIC_RELAXED);  \
		if (__builtin_expect(!p_, 0))                                  \
			p_ = real_resolve((void **)&slot, sym, ver, dflt);     \
		return p_ == REAL_ABSENT ? NULL : (__typeof__(slot))p_;        \
	}
#define REAL_FN(slot, sym)	   REAL_FN_(slot, sym, NULL, false)
#define REAL_FN_V(slot, sym, ver)  REAL_FN_(slot, sym, ver, false)
#define REAL_FN_VD(slot, sym, ver) REAL_FN_(slot, sym, ver, true)

/*
 * The start of every hook: the shim initialised (a hook may run before
 * its constructor: another library's constructor, another thread), and
 * whether a policy decides at all (else the call is forwarded as it is).
 */
static inline bool hook_begin(void)
{
	if (!shim_is_ready())
		shim_init();
	return shim_is_ready() && shim.active;
}

/**
 * hook_decide - the decision of a hook, with the guard and lazy init.
 * Return: 0 to forward to the real function, or the errno to fail with.
 */
static inline int hook_decide(const struct op *op)
{
	int ret;

	if (!hook_begin() || !guard_enter())
		return 0;
	ret = shim_check(op);
	guard_leave();
	return ret;
}

/* After the real call failed with @err: the kernel's denial, if any. */
static inline void hook_failed(const struct op *op, int err)
{
	if (!shim_is_refusal(err))
		return;
	if (!guard_enter())
		return;
	shim_check_failed(op, err);
	guard_leave();
}

/* @op decided: 0 to forward, else the errno it fails with, set once. */
static inline int hook_refused(const struct op *op)
{
	int err = hook_decide(op);

	if (err)
		errno = err;
	return err;
}

/* 0 to forward, else -1 with errno set (the hook returns its failure). */
static inline int hook_deny(const struct op *op)
{
	return hook_refused(op) ? -1 : 0;
}

/* The call of a real function libc lacks: its failure, ENOSYS. */
static inline int hook_nosys(void)
{
	errno = ENOSYS;
	return -1;
}

static inline void *hook_nosys_ptr(void)
{
	errno = ENOSYS;
	return NULL;
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

/* The end of an allowed call: restore errno, or when it @failed report
 * a kernel denial. */
static inline void hook_after(const struct op *op, bool failed, int saved)
{
	if (failed)
		hook_failed(op, errno);
	else
		errno = saved;
}

/* The same for an int call that returned @ret (< 0: failed). */
static inline int hook_done(const struct op *op, int ret, int saved)
{
	hook_after(op, ret < 0, saved);
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

/*
 * The shape of every hook, as one expression (it hides no return):
 * save errno; decide @op (a pointer); denied: the call's failure value
 * @fail, errno set once, a line and a record; allowed: @call (which
 * forwards to the real function, or its fallback), errno restored, or,
 * when it failed, the kernel's denial reported.  @op is built before,
 * by builders that leave errno alone.
 */
#define HOOK_RUN(op, fail, call)                                               \
	({                                                                     \
		int saved_ = errno;                                            \
		__typeof__(call) ret_ = (fail);                                \
		if (!hook_deny(op)) {                                          \
			ret_ = (call);                                         \
			hook_after((op), ret_ == (fail), saved_);              \
		}                                                              \
		ret_;                                                          \
	})

/* The same for a call with two ends (rename, link): both decided. */
#define HOOK_RUN2(a, b, call)                                                  \
	({                                                                     \
		int saved_ = errno;                                            \
		int ret_ = -1;                                                 \
		if (!hook_deny2((a), (b)))                                     \
			ret_ = hook_done2((a), (b), (call), saved_);           \
		ret_;                                                          \
	})

#define OP(n, need_, dirfd_, path_, pflags_)                                   \
	((struct op){ .name = (n),                                             \
		      .need = (need_),                                         \
		      .dirfd = (dirfd_),                                       \
		      .path = (path_),                                         \
		      .pflags = (pflags_) })

#endif
