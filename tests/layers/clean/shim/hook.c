#include "shim/hook.h"
#include "shim/core/path.h"

#ifdef __APPLE__
#define HOOKS 2
#else
#define HOOKS 3
#endif

int hook_count(void)
{
	return HOOKS + path_len("x");
}
