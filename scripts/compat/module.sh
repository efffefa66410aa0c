#!/usr/bin/env bash
# Sides of one module of the compatibility suite, as the current user.
#
#   module.sh STAGE OUT HOMES MODULE SIDE...
#
# Runs the SIDEs one after the other.  A SIDE is bare, bare2 (the bare
# side again, for flaky tests) or cordon: CPython's regression tests for
# MODULE run with the Debian python (STAGE/regrtest.py: python3 -m
# test), bare or under STAGE/cordon's default policy, from the
# workspace OUT/ws/MODULE, in a terminal of their own (script(1)), with
# the same clean environment:
#  - HOME is HOMES/MODULE, made afresh for each side: HOMES lies in the
#    user's real home, which cordon hides like any home, and the tests
#    write there (test_site makes ~/.local/lib/python3.11/site-packages,
#    which every python then probes at start);
#  - TMPDIR is OUT/tmp/MODULE, afresh for each side too: under cordon
#    every process has a small pid of its own namespace, and regrtest's
#    /tmp/test_python_PID of two modules under cordon at once would be
#    the same directory.
# test_time's test_monotonic_settime is left out: as root it sets the
# host's clock back an hour (and then forward), under everything else
# that runs.  Each side leaves OUT/MODULE.SIDE.{log,xml,txt}: regrtest's
# output, its JUnit file and one "ID OUTCOME" line per test case
# (outcomes.py).  Exits non-zero when a side left no result to read.
set -u

usage="usage: module.sh STAGE OUT HOMES MODULE SIDE..."
stage=${1:?$usage}
out=${2:?$usage}
homes=${3:?$usage}
module=${4:?$usage}
shift 4
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
python=/usr/bin/python3
# hang guards only: a test that runs this long is broken either way
test_timeout=${COMPAT_TEST_TIMEOUT:-300}
module_timeout=${COMPAT_MODULE_TIMEOUT:-900}

user=$(id -un) || exit 1
ws=$out/ws/$module
tmp=$out/tmp/$module
home=$homes/$module
mkdir -p "$ws" && cd "$ws" || exit 1

run_side() { # run_side SIDE
	local side=$1 base=$out/$module.$1 wrap cmd start=$SECONDS
	case $side in
	bare | bare2) wrap=() ;;
	cordon) wrap=("$stage/cordon" --) ;;
	*) echo "module.sh: unknown side '$side'" >&2; return 2 ;;
	esac
	rm -rf "$base.xml" "$base.txt" "$home" "$tmp" &&
		mkdir -p "$home" "$tmp" || return 1
	# nothing of the caller's environment (no pyenv, no locale of the
	# terminal); a terminal of its own, as in an interactive shell
	# (script(1): the tests of /dev/tty, ioctls, readline, getpass run)
	cmd=$(printf '%q ' env -i PATH=/usr/local/bin:/usr/bin:/bin \
		HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
		TERM=dumb TMPDIR="$tmp" "${wrap[@]}" "$python" \
		"$stage/regrtest.py" --timeout "$test_timeout" \
		--ignore test_monotonic_settime \
		--junit-xml "$base.xml" "$module")
	SHELL=/bin/bash timeout -k 10 "$module_timeout" \
		script -qefc "$cmd" /dev/null \
		</dev/null >"$base.log" 2>&1
	echo "exit status $?" >>"$base.log"
	echo "compat: $side took $((SECONDS - start)) s" >>"$base.log"
	if [ ! -s "$base.xml" ]; then
		echo "module.sh: $module ($side): no JUnit results (see $base.log)" >&2
		return 1
	fi
	"$python" "$stage/outcomes.py" "$base.xml" >"$base.txt"
}

status=0
for side in "$@"; do
	run_side "$side" || status=1
done
exit $status
