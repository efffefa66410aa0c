#include "shim/hook.h"

int init_linux(void);
int init_linux(void)
{
#ifdef __linux__
	return hook_count();
#else
	return 0;
#endif
}
