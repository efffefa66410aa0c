#!/bin/sh
# guest.sh - the kernel matrix's work inside each guest, run by init
# (switch_root) as pid 1 on the host's root seen read-only under a tmpfs
# overlay.  Runs the tests as root, then as the unprivileged cordon-test
# (created on the overlay if the host has none), then as cordon-test
# again with user.max_user_namespaces at 0 (cordon-test-nouserns), and
# powers off.
#
# Each result is one console line the host parses (judge.py):
#   @@RESULT user=USER test=TEST status=N [built=B] [verdict=V] [twin=T]
# followed by its output's first lines as "@@OUT TEST: ...";
#   @@GUAR USER JSON        probe --json's "guarantees" (none: no key)
#   @@NOTHELD USER TEST: L  a line where cordon named what it does not
#                           enforce (the --best-effort banner, a refusal)
# Tests: probe (cordon probe), run (cordon -- true), best-effort
# (cordon --best-effort -- true), build (cordon -- cc, a hello world in
# the workspace), contain and contain-be (contain.c under `cordon --`
# with no options, and under `cordon --best-effort --`: a new file
# created outside the writable roots, an existing one appended to, a
# secret under ~/.ssh copied into the workspace, a file outside
# truncated by name, a TCP and a UDP listener outside reached, a process
# outside signalled; checked here, from outside, after cordon exits),
# and twin (the same attempt bare, which must do all of it).
#
# Then, as root and as cordon-test (tests/integration/run.sh, whose own
# lines come as "@@IT LINE"), the integration tests of the mechanisms
# whose holder depends on the kernel (IT_TESTS): a UNIX socket bound
# outside after the start (Landlock's RESOLVE_UNIX, or the broker), UDP
# (Landlock's UDP ports, or the namespace and the filter), a thread
# that ran before the standalone shim (TSYNC), the kernel's audit
# (quiet flags), the transparent capture (nf_tables' NAT, a static
# binary and curl reaching the loopback's origin only where granted);
# "@@LLHAVE RIGHTS" first (tests/helpers/llhave.c).
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
	# The first lines, and any later one saying what failed.
	printf '%s\n' "$out" | awk 'NR <= 80 || /NOT ENFORCED|went through|rror/' |
		sed "s/^/@@OUT $t: /"
}

# The things outside that contain attacks, fresh for each attempt:
# $written and $victim (files outside the writable roots, "keep"),
# $created (absent), TCP and UDP listeners on the guest's loopback that
# count what reaches them into $count.tcp and $count.udp ($tport,
# $uport), a process ($sleeper).
setup_outside() {
	echo keep >"$written"
	echo keep >"$victim"
	rm -f "$created" "$copy" "$ran" "$count".*
	python3 -c '
import os, select, socket, sys
base = sys.argv[1]
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(8)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
n = {t: 0, u: 0}
def note(s, name):
    open(base + ".tmp", "w").write(str(n[s]))
    os.rename(base + ".tmp", base + "." + name)
note(t, "tcp"); note(u, "udp")
open(base + ".ports", "w").write("%d %d\n" % (t.getsockname()[1], u.getsockname()[1]))
while True:
    r, _, _ = select.select([t, u], [], [], 300)
    if not r:
        break
    for s in r:
        if s is t:
            c, _ = t.accept(); c.close(); n[t] += 1; note(t, "tcp")
        else:
            u.recvfrom(64); n[u] += 1; note(u, "udp")
' "$count" &
	listener=$!
	i=0
	while [ ! -s "$count.ports" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	read -r tport uport <"$count.ports" || { tport=1 uport=1; }
	sleep 300 &
	sleeper=$!
}

teardown_outside() {
	kill "$listener" "$sleeper" 2>/dev/null
	wait "$listener" "$sleeper" 2>/dev/null
}

# Whether process $1 lives (a zombie does not).
alive() {
	s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$s" ] && [ "$s" != Z ]
}

# What reached outside, from outside, as "created-outside wrote-outside
# ..." (empty: nothing).  The listeners get a moment to count.
breaches() {
	sleep 1
	got=""
	[ -e "$created" ] && got="$got created-outside"
	[ "$(cat "$written" 2>/dev/null)" = keep ] || got="$got wrote-outside"
	cmp -s "$secret" "$copy" && got="$got copied-secret"
	[ "$(cat "$victim" 2>/dev/null)" = keep ] || got="$got truncated"
	[ "$(cat "$count.tcp" 2>/dev/null)" = 0 ] || got="$got tcp"
	[ "$(cat "$count.udp" 2>/dev/null)" = 0 ] || got="$got udp"
	alive "$sleeper" || got="$got signalled"
	echo $got
}

all_breaches="created-outside wrote-outside copied-secret truncated tcp udp signalled"

# contain TEST [CORDON OPTIONS]: the attempt under `cordon OPTIONS --`,
# its verdict from outside: held (it ran, nothing reached outside),
# refused (125), did-not-run, or BREACHED:WHAT.  Also the lines cordon
# said about what it does not enforce (@@NOTHELD: the banner, the
# refusal).
contain() {
	t=$1
	shift
	setup_outside
	out=$(timeout 300 "$cordon" "$@" -- "$helper" "$ran" "$created" \
		"$written" "$secret" "$copy" "$victim" "$tport" "$uport" \
		"$sleeper" 2>&1 </dev/null)
	st=$?
	got=$(breaches)
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
	echo "@@RESULT user=$who test=$t status=$st verdict=$verdict"
	printf '%s\n' "$out" | grep -E 'NOT ENFORCED|refusing to run' |
		sed "s/^/@@NOTHELD $who $t: /"
	printf '%s\n' "$out" | head -n 20 | sed "s/^/@@OUT $t: /"
}

# The bare twin: the same attempt without cordon must reach everything.
twin() {
	setup_outside
	out=$("$helper" "$ran" "$created" "$written" "$secret" "$copy" \
		"$victim" "$tport" "$uport" "$sleeper" 2>&1 </dev/null)
	got=$(breaches)
	teardown_outside
	tw=ok
	[ -e "$ran" ] && [ "$got" = "$all_breaches" ] ||
		tw="FAILED:$(echo "${got:-nothing}" | tr ' ' ,)"
	echo "@@RESULT user=$who test=twin status=0 twin=$tw"
	printf '%s\n' "$out" | sed "s/^/@@OUT twin: /"
}

tests() {
	b=$1
	who=${KMATRIX_WHO:-$(id -un)}
	cordon=$b/cordon
	# In the default exec roots (/usr): `cordon --` needs no option.
	helper=/usr/local/bin/kmatrix-contain
	ws=$HOME/kmatrix-ws
	secret=$HOME/.ssh/kmatrix-secret
	copy=$ws/stolen
	ran=$ws/ran
	created=$HOME/kmatrix-created
	written=$HOME/kmatrix-written
	victim=$HOME/kmatrix-victim
	count=$HOME/kmatrix-count
	rm -rf "$ws"
	mkdir -p "$ws" "$HOME/.ssh"
	echo "kmatrix-secret-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')" >"$secret"
	chmod 600 "$secret"
	cd "$ws" || exit 1
	result probe "$cordon" probe
	# The guarantees of `probe --json`, one line (none: no such key).
	"$cordon" probe --json 2>/dev/null </dev/null | python3 -c '
import json, sys
try:
    g = json.load(sys.stdin).get("guarantees")
except ValueError:
    g = None
print("@@GUAR " + sys.argv[1] + " " + (json.dumps(g, separators=(",", ":")) if g is not None else "none"))
' "$who"
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

	contain contain
	contain contain-be --best-effort
	twin
	rm -rf "$ws" "$created" "$written" "$victim" "$count".*
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
# With no auditd, audit records reach the kernel's log through
# printk_ratelimit() (10 in 5 s): the capture test's nft rules write
# dozens, and t_kaudit.sh's Landlock record, right after, was dropped.
echo 0 >/proc/sys/kernel/printk_ratelimit
hostname kmatrix
# The guest has no network card: loopback is its network (probe's
# live checks listen there).
ip link set lo up
echo "@@KERNEL $(uname -r)"
echo "@@LSM $(cat /sys/kernel/security/lsm 2>/dev/null ||
	{ mount -t securityfs securityfs /sys/kernel/security &&
	cat /sys/kernel/security/lsm; })"
cp "$build/kernels/contain" /usr/local/bin/kmatrix-contain
echo "@@LANDLOCK $(kmatrix-contain abi)"
# cordon.bench=1: `make bench`'s part in this guest, not the tests
if grep -q 'cordon\.bench=1' /proc/cmdline; then
	HOME=/root "$repo/scripts/bench/kernel.sh" "$build"
	echo "@@DONE"
	sync
	echo o >/proc/sysrq-trigger
	sleep 5
fi
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
echo "@@LLHAVE $("$build/helpers/llhave")"
IT_TESTS='unix_late|unix_shared|test_udp_|threads_started|kaudit|capture_loopback_grants'
bash "$repo/tests/integration/run.sh" "$build" "$IT_TESTS" 2>&1 </dev/null |
	sed 's/^/@@IT /'
# The same user where user namespaces are off (as a distribution may).
echo 0 >/proc/sys/user/max_user_namespaces
as_user cordon-test-nouserns
echo "@@DONE"
sync
echo o >/proc/sysrq-trigger
sleep 5
