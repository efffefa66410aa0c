/*
 * preload_linux.c - ld.so loads the shim from LD_PRELOAD (preload.h).
 *
 * ld.so splits the list on spaces and colons; GCC's dynamic ASan runtime
 * refuses to start behind a preloaded library unless ASAN_OPTIONS says
 * otherwise (env_asan_entry, catalog D-12).
 */
#include "shim/core/preload.h"

const struct preload preload_os = {
	.var = "LD_PRELOAD",
	.seps = " :",
	.join = " ",
	.asan = true,
};
