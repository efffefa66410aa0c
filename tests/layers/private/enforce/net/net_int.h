#ifndef NET_INT_H
#define NET_INT_H
#include "enforce/net/net.h"
int net_step(void);
#endif
