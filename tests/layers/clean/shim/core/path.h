#ifndef SHIM_CORE_PATH_H
#define SHIM_CORE_PATH_H
int path_len(const char *p);
#endif
