#include "enforce/a.h"

int c(void);
int c(void)
{
	return a();
}
