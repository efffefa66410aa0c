#include "enforce/a.h"
#include "enforce/b.h"

int b(void)
{
	return a();
}
