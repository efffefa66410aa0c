#include "enforce/net/net_int.h"
int net_step(void)
{
	return 0;
}
int net_start(void)
{
	return net_step();
}
