/*
 * hooks.h - what every hook file shares: the start and end of a hook,
 * and each family's resolver (called once by shim_init()).
 *
 * The shape of every hook (style.md):
 *   save errno; if the shim is re-entered, forward; decide;
 *   on deny: report once, set errno once, return the failure value;
 *   on allow: restore errno and forward to the real function.
 * hook_deny() and hook_done() are that shape for the calls that return
 * -1 and set errno; the macOS hooks use them too (darwin/hook_darwin.h).
 */
#ifndef CORDON_HOOKS_H
#define CORDON_HOOKS_H

#include <errno.h>

#include "shim/shim.h"

/* Each family resolves its real_* pointers (hidden, called by init). */
void hooks_open_resolve(void);
void hooks_create_resolve(void);
void hooks_change_resolve(void);
void hooks_stat_resolve(void);
void hooks_exec_resolve(void);
void hooks_net_resolve(void);
void hooks_walk_resolve(void);

/*
 * Where each real_<name> pointer lives: in .data, on the page ld.so has
 * written already, not on a .bss page of its own that every process
 * would fault in at start-up just to store them.
 */
#define REAL_SLOT __attribute__((section(".data.cordon_real")))

/* Resolve real_<name> with dlsym; the pointer stays NULL when absent. */
#define RESOLVE(name)                                                          \
	(real_##name = (__typeof__(real_##name))real_sym(#name, NULL))
#define RESOLVE_V(name, ver)                                                   \
	(real_##name = (__typeof__(real_##name))real_sym(#name, ver))

/**
 * hook_decide - the decision of a hook, with the guard and lazy init.
 * Return: 0 to forward to the real function, or the errno to fail with.
 */
static inline int hook_decide(const struct op *op)
{
	int ret;

	if (!shim_is_ready())
		shim_init();
	if (!guard_enter())
		return 0;
	ret = shim_check(op);
	guard_leave();
	return ret;
}

/* After the real call failed with @err: the kernel's denial, if any. */
static inline void hook_failed(const struct op *op, int err)
{
	if (err != EACCES && err != EPERM)
		return;
	if (!guard_enter())
		return;
	shim_check_failed(op, err);
	guard_leave();
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

/* The end of an allowed call that returned @ret (< 0: failed): restore
 * errno, or report a kernel denial. */
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

#define OP(n, need_, dirfd_, path_, pflags_)                                   \
	((struct op){ .name = (n),                                             \
		      .need = (need_),                                         \
		      .dirfd = (dirfd_),                                       \
		      .path = (path_),                                         \
		      .pflags = (pflags_) })

#endif
