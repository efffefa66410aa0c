/*
 * real_darwin.c - real_resolve_all() on macOS (shim.h): dyld's
 * interposing tuples bind each hook to libSystem's function by name,
 * so there is no real function to look up at start-up.
 */
#include "shim/shim.h"

void real_resolve_all(void)
{
}
