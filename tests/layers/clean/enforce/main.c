/* The story of a run: the top layer. */
#include <stdio.h>

#include "enforce/run.h"
#include "shim/core/path.h"

int main(void)
{
	return run_start() + path_len("/");
}
