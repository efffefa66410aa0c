#include "shim/hook.h"

int hook_count(void)
{
	return 1;
}
