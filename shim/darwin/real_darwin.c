/*
 * real_darwin.c - real_init() on macOS (shim.h): dyld's interposing
 * tuples bind each hook to libSystem's function by name, so there is
 * no real function to look up.
 */
#include "shim/shim.h"

void real_init(void)
{
}
