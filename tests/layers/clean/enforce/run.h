#ifndef ENFORCE_RUN_H
#define ENFORCE_RUN_H
int run_start(void);
#endif
