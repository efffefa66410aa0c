/*
 * preload_darwin.c - dyld inserts the shim from DYLD_INSERT_LIBRARIES
 * (preload.h).
 *
 * The list is colon-separated, and dyld reads the first entry of that
 * name.  No ASan link order needs fixing.
 */
#include "shim/core/preload.h"

const struct preload preload_os = {
	.var = "DYLD_INSERT_LIBRARIES",
	.seps = ":",
	.join = ":",
	.asan = false,
};
