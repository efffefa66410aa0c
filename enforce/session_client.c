#include "enforce/session.h"
#include "enforce/spawn.h"
int session_start(struct cli *c) { (void)c; return EXIT_CORDON; }
int session_stop(struct cli *c) { (void)c; return EXIT_CORDON; }
int session_list(struct cli *c) { (void)c; return EXIT_CORDON; }
int session_run(struct cli *c) { (void)c; return EXIT_CORDON; }
