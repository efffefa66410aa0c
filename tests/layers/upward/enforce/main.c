#include "shim/hook.h"
#include "shim/core/path.h"

int main(void);
int main(void)
{
	return hook_count();
}
