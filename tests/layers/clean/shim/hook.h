#ifndef SHIM_HOOK_H
#define SHIM_HOOK_H
int hook_count(void);
#endif
