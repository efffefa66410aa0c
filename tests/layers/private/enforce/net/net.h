#ifndef NET_H
#define NET_H
int net_start(void);
#endif
