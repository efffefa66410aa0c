#!/bin/sh
# libcordon.so exports exactly the names in shim/exports/*.list, and imports
# nothing newer than the GLIBC_2.2.5 baseline (catalog D-12).
set -u
cd "$(dirname "$0")/.."
lib=${1:-build/libcordon.so}
status=0
want=$(cat shim/exports/*.list | tr ' \t' '\n\n' | grep -v '^$' | sort -u)
have=$(nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort -u)
extra=$(comm -13 "$(printf '%s\n' "$want" > /tmp/want.$$; echo /tmp/want.$$)" \
	"$(printf '%s\n' "$have" > /tmp/have.$$; echo /tmp/have.$$)")
missing=$(comm -23 /tmp/want.$$ /tmp/have.$$)
rm -f /tmp/want.$$ /tmp/have.$$
[ -z "$extra" ] || { echo "check-exports: exported but in no shim/exports list:" $extra; status=1; }
[ -z "$missing" ] || { echo "check-exports: listed in shim/exports but not defined:" $missing; status=1; }
newer=$(objdump -T "$lib" | grep UND | grep -o 'GLIBC_[0-9.]*' | sort -u | grep -vx 'GLIBC_2.2.5')
[ -z "$newer" ] || { echo "check-exports: imports above GLIBC_2.2.5:" $newer; status=1; }
[ "$status" -eq 0 ] && echo "check-exports: ok ($(printf '%s\n' "$have" | wc -l) symbols)"
exit "$status"
