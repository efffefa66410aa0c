#!/bin/sh
# guest.sh - the kernel matrix's work inside each guest, run by init
# (switch_root) as pid 1 on the host's root seen read-only under a tmpfs
# overlay.  Runs the tests as root, then as the unprivileged cordon-test
# (created on the overlay if the host has none), then as cordon-test
# again with user.max_user_namespaces at 0 (cordon-test-nouserns), and
# powers off.
#
# Each result is one console line the host parses (matrix.sh):
#   @@RESULT user=USER test=TEST status=N [built=B] [verdict=V twin=T]
# followed by its output's first 80 lines as "@@OUT TEST: ...".
# Tests: probe (cordon probe), run (cordon -- true), best-effort
# (cordon --best-effort -- true), build (cordon -- cc, a hello world in
# the workspace), contain (contain.c under
# cordon --best-effort: a file written outside the workspace, a secret
# under ~/.ssh copied into it, a file outside truncated by name, a TCP
# listener outside reached, a process outside signalled; checked here,
# from outside, after cordon exits, and the same run bare, its twin,
# which must do all).
#
#   guest.sh --tests BUILD     (as each user) run the tests
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
self=$(readlink -f "$0")
repo=$(cd "$(dirname "$self")/../.." && pwd)

# Run TEST: CMD...; its status and first lines on the console.
result() {
	t=$1
	shift
	out=$(timeout 300 "$@" 2>&1 </dev/null)
	st=$?
	echo "@@RESULT user=$who test=$t status=$st"
	printf '%s\n' "$out" | head -n 80 | sed "s/^/@@OUT $t: /"
}

# The things outside that contain attacks: $victim (a file outside the
# writable roots, "keep"), a TCP listener on the guest's loopback that
# counts its connections into $count ($port), a process ($sleeper).
setup_outside() {
	echo keep >"$victim"
	count=$HOME/kmatrix-count
	rm -f "$count" "$count.port"
	python3 -c '
import socket, sys, os
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8); s.settimeout(120)
open(sys.argv[1] + ".port", "w").write(str(s.getsockname()[1]))
n = 0
open(sys.argv[1], "w").write("0")
while True:
    try:
        c, _ = s.accept()
    except OSError:
        break
    n += 1; c.close()
    open(sys.argv[1] + ".tmp", "w").write(str(n)); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
' "$count" &
	listener=$!
	i=0
	while [ ! -s "$count.port" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	port=$(cat "$count.port" 2>/dev/null || echo 1)
	sleep 120 &
	sleeper=$!
}

teardown_outside() {
	kill "$listener" "$sleeper" 2>/dev/null
	wait "$listener" "$sleeper" 2>/dev/null
	rm -f "$count.port"
}

tests() {
	b=$1
	who=${KMATRIX_WHO:-$(id -un)}
	cordon=$b/cordon
	ws=$HOME/kmatrix-ws
	secret=$HOME/.ssh/kmatrix-secret
	outside=$HOME/kmatrix-outside
	copy=$ws/stolen
	ran=$ws/ran
	rm -rf "$ws" "$outside"
	mkdir -p "$ws" "$HOME/.ssh"
	echo "kmatrix-secret-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')" >"$secret"
	chmod 600 "$secret"
	cd "$ws" || exit 1
	result probe "$cordon" probe
	result run "$cordon" -- true
	result best-effort "$cordon" --best-effort -- true

	# A real build in the workspace, its product checked after.
	printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' >hello.c
	out=$(timeout 300 "$cordon" -- cc -o hello hello.c 2>&1 </dev/null)
	st=$?
	built=no
	[ -x hello ] && built=yes
	echo "@@RESULT user=$who test=build status=$st built=$built"
	printf '%s\n' "$out" | head -n 20 | sed "s/^/@@OUT build: /"
	rm -f hello hello.c

	# The helper is outside the default exec roots: only that is granted.
	# Besides the write and the secret: a file outside the writable roots
	# truncated by name, a TCP listener outside, a process outside.
	victim=$HOME/kmatrix-victim
	setup_outside
	out=$(timeout 300 "$cordon" --best-effort --exec "$b/kernels" -- \
		"$b/kernels/contain" "$ran" "$outside" "$secret" "$copy" \
		"$victim" "$port" "$sleeper" 2>&1 </dev/null)
	st=$?
	got=""
	[ -e "$outside" ] && got="$got wrote-outside"
	cmp -s "$secret" "$copy" && got="$got copied-secret"
	[ "$(cat "$victim" 2>/dev/null)" = keep ] || got="$got truncated"
	[ "$(cat "$count" 2>/dev/null)" = 0 ] || got="$got connected"
	kill -0 "$sleeper" 2>/dev/null || got="$got signalled"
	teardown_outside
	if [ -n "$got" ]; then
		verdict="BREACHED:$(echo $got | tr ' ' ,)"
	elif [ "$st" -eq 125 ]; then
		verdict=refused
	elif [ ! -e "$ran" ]; then
		verdict=did-not-run
	else
		verdict=held
	fi
	rm -f "$outside" "$copy" "$ran"
	setup_outside
	twin_out=$("$b/kernels/contain" "$ran" "$outside" "$secret" "$copy" \
		"$victim" "$port" "$sleeper" 2>&1)
	sleep 1
	if [ -e "$ran" ] && [ -e "$outside" ] && cmp -s "$secret" "$copy" &&
		[ ! -s "$victim" ] && [ "$(cat "$count")" = 1 ] &&
		! kill -0 "$sleeper" 2>/dev/null; then
		twin=ok
	else
		twin=FAILED
	fi
	teardown_outside
	rm -rf "$ws" "$outside" "$victim"
	echo "@@RESULT user=$who test=contain status=$st verdict=$verdict twin=$twin"
	printf '%s\n' "$out" | head -n 12 | sed "s/^/@@OUT contain: /"
	printf '%s\n' "$twin_out" | sed "s/^/@@OUT contain-twin: /"
}

if [ "${1:-}" = --tests ]; then
	tests "$2"
	exit 0
fi

# pid 1: the guest's own mounts, quiet kernel, the user, the tests.
build=$repo/build
for a in $(cat /proc/cmdline); do
	case $a in cordon.build=*) build=${a#cordon.build=} ;; esac
done
mkdir -p /dev/pts /dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /run
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
echo 1 >/proc/sys/kernel/printk
hostname kmatrix
# The guest has no network card: loopback is its network (probe's
# live checks listen there).
ip link set lo up
echo "@@KERNEL $(uname -r)"
echo "@@LSM $(cat /sys/kernel/security/lsm 2>/dev/null ||
	{ mount -t securityfs securityfs /sys/kernel/security &&
	cat /sys/kernel/security/lsm; })"
echo "@@LANDLOCK $("$build/kernels/contain" abi)"
echo "@@USERNS $(cat /proc/sys/kernel/unprivileged_userns_clone 2>/dev/null || echo -) $(cat /proc/sys/user/max_user_namespaces)"

id cordon-test >/dev/null 2>&1 || useradd -m -s /bin/sh cordon-test
home=$(getent passwd cordon-test | cut -d: -f6)
mkdir -p "$home"
chown cordon-test: "$home"

HOME=/root "$self" --tests "$build"
uid=$(id -u cordon-test)
gid=$(id -g cordon-test)
as_user() {
	setpriv --reuid="$uid" --regid="$gid" --init-groups \
		env -i HOME="$home" USER=cordon-test LOGNAME=cordon-test \
		PATH="$PATH" KMATRIX_WHO="$1" "$self" --tests "$build"
}
as_user cordon-test
# The same user where user namespaces are off (as a distribution may).
echo 0 >/proc/sys/user/max_user_namespaces
as_user cordon-test-nouserns
echo "@@DONE"
sync
echo o >/proc/sysrq-trigger
sleep 5
