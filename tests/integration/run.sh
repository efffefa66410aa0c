#!/usr/bin/env bash
# Integration tests: the real cordon on the real kernel.
#
#   tests/integration/run.sh BUILD_DIR [FILTER]
#
# Stages the binaries and the test files in a world-readable directory,
# then runs every test function of tests/integration/t_*.sh once as the
# current user and, when that is root, once more as the unprivileged user
# cordon-test (created here if missing).  FILTER, when given, selects the
# test functions whose name matches it (an extended regular expression:
# "unix_late|udp"; a plain name selects those that contain it).  The last line is the count:
# "N passed, N failed, N skipped".
set -u

build=${1:?usage: run.sh BUILD_DIR [FILTER]}
filter=${2:-}
src=$(cd "$(dirname "$0")" && pwd)
user=cordon-test

stage=$(mktemp -d /tmp/cordon-it.XXXXXX) || exit 1
trap 'rm -rf "$stage"' EXIT
cp "$build/cordon" "$build/libcordon.so" "$stage/" || exit 1
find "$build/helpers" -maxdepth 1 -type f -perm -u+x -exec cp {} "$stage/" \;
cp "$src"/lib.sh "$src"/suite.sh "$src"/t_*.sh "$src"/*.py "$stage/" || exit 1
cp "$src/../../scripts/fetch-sources.sh" "$stage/" || exit 1
# the documents tests check output against (the man page, the schemas)
mkdir -p "$stage/doc" && cp -r "$src/../../doc/cordon.1" "$src/../../doc/schema" \
	"$stage/doc/" || exit 1
chmod -R a+rX "$stage"

passed=0 failed=0 skipped=0
count() {
	local p f s
	read -r p f s < "$1" || return
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

run_as() { # run_as LABEL HOME USER [runuser -u USER --]
	local label=$1 home=$2 name=$3; shift 3
	local counts="$stage/counts.$label"
	: > "$counts"; : > "$counts.times"; chmod a+w "$counts" "$counts.times"
	"$@" env -i PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		TERM=dumb HOME="$home" USER="$name" LOGNAME="$name" \
		bash "$stage/suite.sh" "$stage" "$label" "$counts" "$filter"
	count "$counts"
}

if [ "$(id -u)" -eq 0 ]; then
	if ! id "$user" >/dev/null 2>&1; then
		useradd -m -s /bin/bash "$user" || exit 1
	fi
	home=$(getent passwd "$user" | cut -d: -f6)
	# a host mount with noexec below /, as hosts have (/dev/shm, a
	# sandbox's leftovers): its flags are locked in a user's namespace
	locked=/run/cordon-it-noexec
	mkdir -p "$locked" &&
		mount -t tmpfs -o noexec,nosuid,nodev,size=64k cordon-it "$locked" ||
		exit 1
	# names for t_hosts.sh (--allow-host), resolved outside the sandbox
	# as any name is: two on the loopback, one on this host's address;
	# and three that only a network namespace of a test's own reaches
	# (t_hosts.sh's netns_start): shared address space, benchmarking,
	# and a global address that test adds to its loopback mid-run
	cp /etc/hosts "$stage/hosts.saved" || exit 1
	far=$(hostname -I 2> /dev/null | tr ' ' '\n' | grep -m1 '^[0-9.]*$')
	{
		echo "127.0.0.1 allowed.cordon.test other.cordon.test"
		echo "100.100.100.200 shared.cordon.test"
		echo "198.18.0.1 bench.cordon.test"
		echo "100.128.0.1 added.cordon.test"
		[ -z "$far" ] || echo "$far far.cordon.test"
	} >> /etc/hosts
	restore='cat "$stage/hosts.saved" > /etc/hosts'
	trap "$restore"'; umount "$locked"; rmdir "$locked"; rm -rf "$stage"' EXIT
	run_as root /root root
	# a directory of its own under /run, where only root may create
	# one, for the tests of sockets under /run
	rundir=/run/cordon-it-$user
	install -d -o "$user" -m 700 "$rundir" || exit 1
	trap "$restore"'; umount "$locked"; rmdir "$locked"; rm -rf "$stage" "$rundir"' EXIT
	run_as user "$home" "$user" runuser -u "$user" --
else
	echo "SKIP (the root run): not running as root"
	skipped=1
	run_as user "$HOME" "$(id -un)"
fi

# where the time went: the slowest tests, and each pass's whole
for f in "$stage"/counts.*.times; do
	l=${f#"$stage"/counts.}; awk -v l="${l%.times}" '{ s += $1 } END {
		printf "time: %s: %d tests, %.0f s\n", l, NR, s }' "$f"
done
cat "$stage"/counts.*.times | sort -rn | head -n 15 | sed 's/^/time: slowest: /'
echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
