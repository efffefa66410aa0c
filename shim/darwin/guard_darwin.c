/*
 * guard_darwin.c - the per-thread reentrancy guard on macOS (shim.h).
 *
 * guard.c keeps the depth in a __thread variable.  On macOS that is a
 * thread-local variable of dyld's: the first access on each thread
 * allocates its storage with malloc, which a hook called from a signal
 * handler (or between vfork and exec) must never do.  The depth lives
 * in a pthread key instead: the key is made once, and reading or
 * setting a thread's slot only touches that thread's fixed slot array.
 * Without a key (pthread_key_create failed) the guard stays closed: the
 * hooks forward without deciding, and Seatbelt still holds.
 */
#include <pthread.h>
#include <stdint.h>

#include "shim/shim.h"

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool have_key;

static void make_key(void)
{
	have_key = pthread_key_create(&key, NULL) == 0;
}

static intptr_t depth(void)
{
	return (intptr_t)pthread_getspecific(key);
}

bool guard_enter(void)
{
	pthread_once(&once, make_key);
	if (!have_key || depth() > 0)
		return false;
	pthread_setspecific(key, (const void *)(intptr_t)1);
	return true;
}

void guard_leave(void)
{
	if (have_key)
		pthread_setspecific(key, (const void *)(depth() - 1));
}
