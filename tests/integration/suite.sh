#!/usr/bin/env bash
# One pass of the integration suite as the current user; see run.sh.
#   suite.sh STAGE LABEL COUNTFILE [FILTER]
# FILTER is an extended regular expression the test's name must match
# (a plain name matches where it appears in one).
# Each test_* function runs in its own subshell, in a fresh directory
# $T under $HOME (outside every default root): $T/ws is the workspace
# and the working directory, $T/out is outside the sandbox.
set -u
stage=$1 label=$2 counts=$3 filter=${4:-}
export CORDON="$stage/cordon" HELPERS="$stage"
# Under make check the launcher and every helper carry ASan, and a shim
# preloaded without the launcher (which says so itself) comes before
# the runtime.
if ldd "$CORDON" 2> /dev/null | grep -q libasan; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
fi
. "$stage/lib.sh"
passed=0 failed=0 skipped=0
# A file that does not load (a syntax error) loses its tests silently
# otherwise: it fails, once.
load_err=$(mktemp) || exit 1
for f in "$stage"/t_*.sh; do
	. "$f" 2> "$load_err" && continue
	failed=$((failed + 1))
	echo "FAIL [$label] ${f##*/} does not load"
	sed 's/^/    | /' "$load_err"
done
rm -f "$load_err"
for t in $(declare -F | awk '{print $3}' | grep '^test_' | sort); do
	[[ $t =~ $filter ]] || continue
	T=$(mktemp -d -p "$HOME" cordon-it.XXXXXX) || exit 1
	t0=$EPOCHREALTIME
	(
		set -u
		export T
		mkdir -p "$T/ws" "$T/out"
		cd "$T/ws" || exit 1
		"$t"
	) > "$T.log" 2>&1
	rc=$?
	# how long each took, for run.sh's list of the slowest
	awk -v a="$t0" -v b="$EPOCHREALTIME" -v t="[$label] $t" \
		'BEGIN { printf "%.2f %s\n", b - a, t }' >> "$counts.times"
	[ ! -e "$T.notfound" ] || rc=1
	case $rc in
	0) passed=$((passed + 1)); echo "PASS [$label] $t" ;;
	77) skipped=$((skipped + 1))
	    echo "SKIP [$label] $t: $(tail -n 1 "$T.log")" ;;
	*) failed=$((failed + 1)); echo "FAIL [$label] $t"
	   cat "$T.notfound" "$T.log" 2> /dev/null | sed 's/^/    | /' | tail -n 30 ;;
	esac
	chmod -R u+rwX "$T" 2>/dev/null
	rm -rf "$T" "$T.log" "$T.notfound"
done
echo "$passed $failed $skipped" > "$counts"
