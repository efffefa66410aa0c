#include "shim/core/path.h"
/* The core includes nothing above it; the next line is a comment:
#include "enforce/run.h"
*/
// #include "shim/hook.h"

int path_len(const char *p)
{
	int n = 0;

	while (p[n])
		n++;
	return n;
}
