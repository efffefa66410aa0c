#!/bin/sh
# Every real function the hooks resolve (their REAL_FN lines, hooks.h),
# as the rows of realprobe.c's table (tests/unit/test_real.c):
#   { "NAME", "VERSION" or NULL, or_default },
# With -c: a C file defining each name once (realother.so, the second
# preloaded library that interposes them all).
set -eu
cd "$(dirname "$0")/.."
# (a line the formatter broke after the slot's name joined again)
rows=$(sed -e ':a' -e '/REAL_FN[A-Z_]*(real_[A-Za-z0-9_]*,$/{N;s/,\n[[:space:]]*/, /;ba' -e '}' shim/hook_*.c |
	grep -o 'REAL_FN[A-Z_]*(real_[A-Za-z0-9_]*, "[^"]*"\(, "[^"]*"\)\{0,1\})')
[ -n "$rows" ] || { echo "real-table: no REAL_FN in shim/hook_*.c" >&2; exit 1; }
if [ "${1:-}" = -c ]; then
	printf '%s\n' "$rows" | sed 's/^[^"]*"\([^"]*\)".*/\1/' | sort -u |
		sed 's/.*/void &(void);\nvoid &(void) {}/'
	exit 0
fi
printf '%s\n' "$rows" | sed -n \
	-e 's/^REAL_FN(real_[A-Za-z0-9_]*, \("[^"]*"\))$/{ \1, NULL, false },/p' \
	-e 's/^REAL_FN_V(real_[A-Za-z0-9_]*, \("[^"]*"\), \("[^"]*"\))$/{ \1, \2, false },/p' \
	-e 's/^REAL_FN_VD(real_[A-Za-z0-9_]*, \("[^"]*"\), \("[^"]*"\))$/{ \1, \2, true },/p'
