#!/bin/sh
# Fail when the sources use a function the house style bans: unbounded
# string functions everywhere; in the shim, anything that may exit, abort
# or print through stdio (the shim lives inside other people's programs).
set -u
cd "$(dirname "$0")/.."
status=0

everywhere='\b(strcpy|strcat|sprintf|vsprintf|gets|strtok|tmpnam|mktemp|atoi|atol)[[:space:]]*\('
shim='\b(exit|abort|assert|err|errx|warn|warnx|perror|printf|fprintf|puts|fputs|malloc|calloc|realloc|free|strdup)[[:space:]]*\('

check() { # pattern files...
	pattern=$1; shift
	[ "$#" -gt 0 ] || return 0
	if grep -nE "$pattern" "$@" | grep -v 'banned-ok'; then
		status=1
	fi
}

check "$everywhere" $(git ls-files '*.c' '*.h')
# The shim and its core (shim/core/, which the launcher also links):
# nothing there allocates; building a policy is enforce/policy/policy_edit.c's.
check "$shim" $(git ls-files 'shim/*.c')
[ "$status" -eq 0 ] && echo "check-banned: ok"
exit "$status"
