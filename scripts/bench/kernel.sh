#!/bin/sh
# kernel.sh - in a guest of the kernel matrix (guest.sh runs it when the
# kernel's command line has cordon.bench=1): what a connect to an
# allowed pathname UNIX socket and a sendto with its address cost bare
# and under cordon, on this kernel, with what holds them here (Landlock's
# RESOLVE_UNIX from Linux 7.1) and with the broker on the same kernel
# (fakeabi 8: cordon believes the kernel has Landlock ABI 8, and brokers).
#
#   kernel.sh BUILD
#
# Configurations: bare; Landlock alone (scripts/bench/llonly: cordon's
# ruleset, no namespace, filter or shim); the seccomp filter alone
# (scripts/bench/filteronly); cordon (the shim too) and
# cordon --no-shim; and the same two with the broker.
# Each configuration runs scripts/bench/unixloop in turn, round after
# round (interleaved: the machine's drift falls on all alike); each
# prints "@@BENCH CONFIG OP NS" per round, then "@@BENCHMED CONFIG OP
# NS RATIO" with the median of the rounds and its ratio to bare's.
set -u
B=${1:?usage: kernel.sh BUILD}
ROUNDS=${BENCH_ROUNDS:-9}
COUNT=${BENCH_COUNT:-10000}
ws=/root/kbench
rm -rf "$ws"
mkdir -p "$ws"
cp "$B/bench/unixloop" "$ws/"
cd "$ws" || exit 1
"$ws/unixloop" serve "$ws" 3600 &
server=$!
sleep 1
C=$B/cordon
F=$B/helpers/fakeabi
run() { # CONFIG OP PATH: one timed client under CONFIG
	n=$COUNT
	case $1 in broker*) n=$((COUNT / 10)) ;; esac # 20x slower: as long
	case $1 in
	bare) "$ws/unixloop" "$2" "$3" "$n" ;;
	cordon) "$C" -q -- "$ws/unixloop" "$2" "$3" "$n" ;;
	cordon-no-shim) "$C" -q --no-shim -- "$ws/unixloop" "$2" "$3" "$n" ;;
	landlock) "$B/bench/llonly" "$ws" -- "$ws/unixloop" "$2" "$3" "$n" ;;
	filter) "$B/bench/filteronly" -- "$ws/unixloop" "$2" "$3" "$n" ;;
	broker) "$F" 8 -- "$C" -q -- "$ws/unixloop" "$2" "$3" "$n" ;;
	broker-no-shim) "$F" 8 -- "$C" -q --no-shim -- "$ws/unixloop" "$2" "$3" "$n" ;;
	esac
}
configs="bare landlock filter cordon cordon-no-shim broker broker-no-shim"
: >"$ws/times"
r=0
while [ $r -lt "$ROUNDS" ]; do
	for cfg in $configs; do
		for op in connect sendto; do
			path=$ws/s
			[ $op = sendto ] && path=$ws/d
			ns=$(run "$cfg" "$op" "$path" 2>/dev/null) || ns=failed
			echo "@@BENCH $cfg $op $ns"
			echo "$cfg $op $ns" >>"$ws/times"
		done
	done
	r=$((r + 1))
done
kill "$server" 2>/dev/null
awk '
	$3 == "failed" { bad[$1 " " $2] = 1; next }
	{ k = $1 " " $2; n[k]++; v[k, n[k]] = $3 }
	END {
		for (k in n) {
			m = n[k]
			for (i = 1; i <= m; i++) a[i] = v[k, i]
			for (i = 2; i <= m; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			med[k] = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		}
		split("connect sendto", ops, " ")
		split("bare landlock filter cordon cordon-no-shim broker broker-no-shim", cfgs, " ")
		for (o = 1; o <= 2; o++)
			for (c = 1; c <= 7; c++) {
				k = cfgs[c] " " ops[o]
				if (k in bad || !(k in med)) { print "@@BENCHMED " k " failed -"; continue }
				printf "@@BENCHMED %s %.0f %.2f\n", k, med[k], med[k] / med["bare " ops[o]]
			}
	}' "$ws/times"
