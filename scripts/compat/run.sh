#!/usr/bin/env bash
# make compat: third-party test suites run bare and under cordon's
# default policy, compared test case by test case.
#
#   scripts/compat/run.sh BUILD_DIR
#
# CPython's own regression tests (Debian's libpython3.11-testsuite, run
# by /usr/bin/python3 -m test) for the modules that exercise files,
# processes, terminals and signals.  Each module runs once bare and once
# as "BUILD_DIR/cordon -- python3 -m test ...", one after the other,
# from the same fresh workspace with the same clean environment
# (module.sh); modules run COMPAT_JOBS (2) at a time.  A module whose
# results differ in a way tests/compat/allowed.txt does not list runs
# bare once more, and a test case counts as the same when cordon got
# one of its bare outcomes (compare.sh).  As root, the whole suite runs
# once as root and once as the unprivileged user cordon-test (when it
# exists: make integration creates it; COMPAT_USERS=root skips it).
#
# Prints one line per test case whose outcome differs, then per user
# and in all "compat: N test cases, M same, K differ (L allowed)".
# Exits 1 when a difference is not listed or a bare run gave no result.
# COMPAT_MODULES overrides the module list; COMPAT_KEEP=1 keeps the
# results (their directory is printed).
set -u

build=${1:?usage: run.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd) || exit 1
allowed=$here/../../tests/compat/allowed.txt
jobs=${COMPAT_JOBS:-2}
test_user=cordon-test
testdir=/usr/lib/python3.11/test
# Longest first, so that the two lanes end together.  Left out for
# time: test_asyncio (77 s bare), test_concurrent_futures (136 s),
# test_multiprocessing_spawn (93 s; forkserver is in); test_socket and
# test_logging are mostly network, which the default policy turns off.
modules=${COMPAT_MODULES:-"test_multiprocessing_forkserver test_signal
	test_io test_subprocess test_faulthandler test_selectors
	test_largefile test_poll test_threading
	test_compileall test_venv test_eintr test_zipfile test_lzma
	test_fork1 test_wait3 test_wait4 test_tarfile test_bz2
	test_importlib test_support test_time test_unittest test_cmd_line
	test_select test_cmd_line_script test_pathlib test_file_eintr
	test_os test_tempfile test_mailbox test_ctypes test_posix
	test_thread test_zlib test_import test_runpy test_sched test_shutil
	test_utf8_mode test_sys test_gzip test_py_compile test_shelve
	test_threadedtempfile test_tabnanny test_platform test_glob
	test_site test_zipimport test_fileinput test_syslog test_readline
	test_posixpath test_epoll test_mimetypes test_mmap test_shlex
	test_dbm test_pkgutil test_popen test_uuid test_resource
	test_zipapp test_getpass test_fcntl test_pipes test_pty test_netrc
	test_file test_webbrowser test_sysconfig test_fileio test_filecmp
	test_dbm_dumb test_ioctl test_linecache test_genericpath test_stat
	test_fnmatch test_grp test_pwd test_openpty"}

die() { echo "compat: $*" >&2; exit 1; }

[ -x "$build/cordon" ] && [ -r "$build/libcordon.so" ] ||
	die "no '$build/cordon' and libcordon.so: run make B=$build first"
[ -r "$allowed" ] || die "cannot read '$allowed'"
[ -x /usr/bin/python3 ] || die "no /usr/bin/python3 (apt-get install python3)"
# libregrtest comes with libpython3.11-stdlib; the test modules with the
# testsuite package alone: ask dpkg, not a file that both may hold
if ! dpkg-query -W -f='${Status}' libpython3.11-testsuite 2>/dev/null |
	grep -q 'ok installed'; then
	[ "$(id -u)" -eq 0 ] ||
		die "CPython's tests are missing: apt-get install libpython3.11-testsuite (as root)"
	echo "compat: installing libpython3.11-testsuite"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		libpython3.11-testsuite >/dev/null 2>&1 || {
		apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
				libpython3.11-testsuite >/dev/null
	} || die "apt-get install libpython3.11-testsuite failed"
fi
for m in $modules; do
	[ -e "$testdir/$m.py" ] || [ -d "$testdir/$m" ] ||
		die "no test module '$m' in $testdir"
done

tmp=$(mktemp -d /tmp/cordon-compat.XXXXXX) || exit 1
# each user's directory of the tests' homes, in the real home: short,
# for cordon's report socket HOME/.local/state/cordon/cordon-PID.sock
# must fit in a socket address (108 bytes), or cordon refuses to start
homes=()
cleanup() {
	rm -rf "${homes[@]}"
	if [ "${COMPAT_KEEP:-0}" = 1 ]; then
		echo "compat: results kept in $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
stage=$tmp/stage
mkdir "$stage" || exit 1
cp "$build/cordon" "$build/libcordon.so" "$here/regrtest.py" \
	"$here/outcomes.py" "$here/module.sh" "$here/compare.sh" "$stage/" ||
	exit 1
chmod -R a+rX "$tmp" || exit 1

total=0 same=0 differ=0 listed=0 failed=0

# run_modules OUT HOMES MODULES SIDES PREFIX...: JOBS modules at a time
run_modules() {
	local out=$1 home=$2 list=$3 sides=$4
	shift 4
	printf '%s\n' $list | xargs -P "$jobs" -I{} \
		"$@" bash "$stage/module.sh" "$stage" "$out" "$home" {} $sides
}

# compare_module OUT MODULE: prints compare.sh's lines, status as it
compare_module() {
	local out=$1 m=$2 bare2=()
	[ -s "$out/$m.bare2.txt" ] && bare2=("$out/$m.bare2.txt")
	# no result under cordon: every test case is absent there
	[ -e "$out/$m.cordon.txt" ] || : >"$out/$m.cordon.txt"
	COMPAT_LABEL=${out##*/} bash "$stage/compare.sh" "$allowed" \
		"$out/$m.cordon.txt" "$out/$m.bare.txt" "${bare2[@]}"
}

# report LABEL OUT: the differences of each module, then the counts
report() {
	local label=$1 out=$2 m n s d l t=0 sa=0 di=0 li=0
	for m in $modules; do
		if [ ! -e "$out/$m.bare.txt" ]; then
			echo "compat: $label: $m: no results from the bare run:"
			tail -5 "$out/$m.bare.log" 2>&1 | sed 's/^/    /'
			failed=1
			continue
		fi
		if [ ! -e "$out/$m.cordon.txt" ]; then
			echo "compat: $label: $m: no results under cordon:"
			tail -5 "$out/$m.cordon.log" 2>&1 | sed 's/^/    /'
		fi
		compare_module "$out" "$m" >"$out/$m.diff" || failed=1
		n='' && read -r n s d l < <(grep '^compat: ' "$out/$m.diff" |
			tr -cs '0-9' ' ')
		[ -n "$n" ] || die "$label: $m: no counts from compare.sh"
		t=$((t + n)) sa=$((sa + s)) di=$((di + d)) li=$((li + l))
		grep -v '^compat: ' "$out/$m.diff" | sed "s/^/$label: /"
	done
	for m in $modules; do # seconds per side, from module.sh
		printf '%s' "$m"
		sed -n 's/^compat: \([a-z0-9]*\) took \([0-9]*\) s$/ \1 \2s/p' \
			"$out/$m".*.log 2>/dev/null | tr -d '\n'
		echo
	done | column -t | sed "s/^/compat: $label: time: /"
	echo "compat: $label: $t test cases, $sa same, $di differ ($li allowed)"
	total=$((total + t)) same=$((same + sa))
	differ=$((differ + di)) listed=$((listed + li))
}

run_as() { # run_as LABEL USER [runuser -u USER --]
	local label=$1 name=$2 out=$tmp/$1 m rerun=() start=$SECONDS home
	shift 2
	mkdir "$out" && chown "$name:" "$out" || exit 1
	home=$(getent passwd "$name" | cut -d: -f6) &&
		home=$("$@" mktemp -d "$home/.compat.XXXXXX") ||
		die "$label: cannot make a directory in the home of '$name'"
	homes+=("$home")
	echo "compat: $label: ${modules//[$'\n\t']/ }" | tr -s ' '
	run_modules "$out" "$home" "$modules" "bare cordon" "$@"
	for m in $modules; do
		[ -e "$out/$m.bare.txt" ] || continue
		compare_module "$out" "$m" >/dev/null || rerun+=("$m")
	done
	if [ ${#rerun[@]} -gt 0 ]; then
		echo "compat: $label: running bare again: ${rerun[*]}"
		run_modules "$out" "$home" "${rerun[*]}" bare2 "$@"
	fi
	report "$label" "$out"
	echo "compat: $label: $((SECONDS - start)) s"
}

if [ "$(id -u)" -eq 0 ]; then
	run_as root root
	if [ "${COMPAT_USERS:-root,user}" != root ] &&
		id "$test_user" >/dev/null 2>&1; then
		run_as user "$test_user" runuser -u "$test_user" --
	else
		echo "compat: SKIP the run as $test_user (COMPAT_USERS=root or no such user)"
	fi
else
	run_as user "$(id -un)"
fi

echo "compat: $total test cases, $same same, $differ differ ($listed allowed)"
[ "$failed" -eq 0 ] && [ "$differ" -eq "$listed" ]
