#include "enforce/net/net.h"
int run(void);
int run(void)
{
	return net_start();
}
