/*
 * pit_d1_lfs: pit_d1 built with -D_FILE_OFFSET_BITS=64 (no fortify), so
 * that the compiler calls the 64-bit names (open64, openat64, fopen64,
 * freopen64, creat64, truncate64, mkstemp64, stat64, lstat64, nftw64,
 * glob64, scandir64).  See pit_d1.c.
 */
#define _FILE_OFFSET_BITS 64

#include "pit_d1.c"
