/*
 * baseline.h - force-included into every object of libcordon.so.
 *
 * A preloaded library whose imports need a newer glibc than the program
 * was linked against keeps the program from starting (catalog D-12).
 * The shim therefore binds every versioned import to its oldest x86_64
 * version, GLIBC_2.2.5; scripts/check-exports.sh verifies it.
 */
#ifndef CORDON_BASELINE_H
#define CORDON_BASELINE_H

#if defined(__x86_64__)
__asm__(".symver memcpy,memcpy@GLIBC_2.2.5");
#endif

#endif
