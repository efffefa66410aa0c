#!/bin/sh
# Report sources that clang-format (the tree's .clang-format) would change.
set -u
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: SKIP: no clang-format"; exit 0; }
bad=0
for f in $(git ls-files 'shim/*.[ch]' 'enforce/*.[ch]'); do
	if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "check-format: $f is not formatted (run 'make format')"
		bad=1
	fi
done
[ "$bad" -eq 0 ] && echo "check-format: ok"
exit "$bad"
