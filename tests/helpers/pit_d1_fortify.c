/*
 * pit_d1_fortify: pit_d1 built with -O2 -D_FORTIFY_SOURCE=2, so that the
 * compiler calls the fortified names (__open_2, __openat_2,
 * __realpath_chk, __readlink_chk).  See pit_d1.c.
 */
#define PIT_D1_FORTIFY
#ifndef _FORTIFY_SOURCE
#define _FORTIFY_SOURCE 2
#endif

#include "pit_d1.c"
