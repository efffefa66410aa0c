#include "enforce/a.h"
#include "enforce/b.h"

int a(void)
{
	return b();
}
