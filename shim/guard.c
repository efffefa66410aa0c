/*
 * guard.c - the per-thread reentrancy guard.
 *
 * While the shim works (resolving a path, writing a report), the libc
 * calls it makes must reach the real functions, not the hooks again.
 * The counter is thread-local with the initial-exec model, so reading it
 * never calls into the dynamic loader (no __tls_get_addr, no malloc).
 * A vfork child shares its parent's memory but runs on the parent's
 * thread: the guard it leaves is balanced before the parent resumes.
 */
#include "shim/shim.h"

static __thread int depth __attribute__((tls_model("initial-exec")));

bool guard_enter(void)
{
	if (depth > 0)
		return false;
	depth++;
	return true;
}

void guard_leave(void)
{
	depth--;
}
