/*
 * hooks.h - what every hook file shares: the start and end of a hook,
 * and each family's resolver (called once by shim_init()).
 *
 * The shape of every hook (style.md):
 *   save errno; if the shim is re-entered, forward; decide;
 *   on deny: report once, set errno once, return the failure value;
 *   on allow: restore errno and forward to the real function.
 */
#ifndef CORDON_HOOKS_H
#define CORDON_HOOKS_H

#include <errno.h>

#include "shim.h"

/* Each family resolves its real_* pointers (hidden, called by init). */
void hooks_open_resolve(void);
void hooks_create_resolve(void);
void hooks_change_resolve(void);
void hooks_stat_resolve(void);
void hooks_exec_resolve(void);
void hooks_net_resolve(void);
void hooks_walk_resolve(void);

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

#define OP(n, need_, dirfd_, path_, pflags_)                                   \
	((struct op){ .name = (n),                                             \
		      .need = (need_),                                         \
		      .dirfd = (dirfd_),                                       \
		      .path = (path_),                                         \
		      .pflags = (pflags_) })

#endif
