/*
 * pit_d1_both: pit_d1 built with -O2 -D_FORTIFY_SOURCE=2 and
 * -D_FILE_OFFSET_BITS=64, so that the compiler calls __open64_2 and
 * __openat64_2.  See pit_d1.c.
 */
#define PIT_D1_FORTIFY
#ifndef _FORTIFY_SOURCE
#define _FORTIFY_SOURCE 2
#endif
#define _FILE_OFFSET_BITS 64

#include "pit_d1.c"
