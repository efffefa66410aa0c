#!/bin/bash
# cordon's cost, side by side with bare, Landlock alone, bubblewrap and
# firejail: what `make bench` runs.
#
#   scripts/bench/run.sh [BUILD [RESULTS]]
#
# BUILD (default build) holds cordon, libcordon.so and the bench helpers
# (made by `make bench`); RESULTS (default doc/bench) receives
# results.md (the table, the machine, the versions, the run counts),
# results.png (the plot), raw.csv (every timed run) and hyperfine.md
# (a cross-check of the startup row).  The tables of doc/bench/notes.md,
# between its bench markers, are replaced with the new ones.
#
# Workloads: startup (/bin/true), exec-heavy (a shell loop starting
# 1,000 processes), open and stat (scripts/bench/openstat: 10^6 calls on
# a file six directories deep in the workspace, by absolute path and by
# the relative path from the workspace, ns per call from inside, of the
# fastest of 20 slices),
# a real build (zlib from Debian's source package: configure and make -j2
# in a fresh copy each run).  Configurations: bare; Landlock alone
# (scripts/bench/llonly); the namespaces alone (unshare, startup only:
# the mount and PID namespaces of the goal's floor, and all that cordon
# makes with the network off: mount, PID, IPC and network);
# cordon --no-shim (the kernel layer); cordon
# (full); the shim alone (LD_PRELOAD); bubblewrap; firejail.  Every
# workload's runs are interleaved across configurations (brun.c); the
# table gives medians and the ratio to bare of the same run.
#
# Also: what the UNIX-socket broker adds to a connect and a send
# (unixconnect.c), and the same calls on Linux 7.x, where Landlock holds
# them, beside the broker on that kernel: in the kernel matrix's 7.x
# guest (scripts/bench/kernel.sh; as root; BENCH_NO_KERNEL=1 skips it).
#
# Installs hyperfine, bubblewrap, firejail and gnuplot with apt-get when
# missing (as root).  Exit 0, or 1 with one line "bench: ..." on stderr.
# Counts may be lowered for a quick look: BENCH_QUICK=1.
set -eu -o pipefail

die() {
	echo "bench: $*" >&2
	exit 1
}

B=$(realpath -m "${1:-build}")
OUT=$(realpath -m "${2:-doc/bench}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CORDON=$B/cordon
LIB=$B/libcordon.so
for f in "$CORDON" "$LIB" "$B/bench/brun" "$B/bench/openstat" \
	"$B/bench/llonly" "$B/bench/isocost" "$B/bench/unixconnect" \
	"$B/bench/proxybench" "$B/bench/unixloop" "$B/bench/filteronly" \
	"$B/bench/capturebench" "$B/bench/loadcost" \
	"$B/helpers/fakeabi" \
	"$B/bench/empty.so"; do
	[ -x "$f" ] || die "'$f' missing: run make bench"
done

need=""
for pair in hyperfine:hyperfine bwrap:bubblewrap firejail:firejail \
	gnuplot:gnuplot-nox dpkg-source:dpkg-dev; do
	command -v "${pair%%:*}" >/dev/null || need="$need ${pair#*:}"
done
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || die "missing:$need (install them, or run as root)"
	echo "bench: installing$need"
	# a fresh machine may have no package lists yet
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need \
		>/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				$need >/dev/null; } ||
		die "apt-get install$need failed"
fi

"$ROOT/scripts/fetch-sources.sh" "$B/sources" >/dev/null ||
	die "cannot fetch zlib's source package"
ZSRC=$(ls -d "$B"/sources/zlib-* | head -1)
[ -d "$ZSRC" ] || die "no zlib source tree under $B/sources"

# The workspace: where every configuration runs and may write.
WS=$B/bench/ws
rm -rf "$WS"
mkdir -p "$WS/a/b/c/d/e/f" "$OUT"
echo data >"$WS/a/b/c/d/e/f/file"
DEEP=$WS/a/b/c/d/e/f/file
cp "$B/bench/openstat" "$WS/openstat" # run from the workspace, as a build's own tools are
case $WS in *'|'* | *' '*) die "the build path may hold no '|' or space" ;; esac

if [ "${BENCH_QUICK:-}" ]; then
	R_START=4 N_START=3 R_EXEC=2 R_OPS=1 R_BUILD=1 OPS=100000 LOOP=200
	R_LOAD=4 N_LOAD=25
else
	R_START=20 N_START=5 R_EXEC=5 R_OPS=5 R_BUILD=5 OPS=1000000 LOOP=1000
	R_LOAD=30 N_LOAD=50
fi

# One spec line per configuration: NAME|VARS|ARGV joined by '|'.  With
# a third argument, also "any preload" (an empty library preloaded: the
# floor under the shim's own cost per process).
spec() {
	local cmd=$1 f=$2
	{
		echo "bare||$cmd"
		[ -z "${3:-}" ] || echo "preload|LD_PRELOAD=$B/bench/empty.so|$cmd"
		echo "landlock||$B/bench/llonly|$WS|--|$cmd"
		echo "kernel||$CORDON|-q|--no-shim|--|$cmd"
		echo "full||$CORDON|-q|--|$cmd"
		echo "shim|LD_PRELOAD=$LIB CORDON_EXEC=/ CORDON_WRITE=$WS:/tmp:/var/tmp CORDON_QUIET=1|$cmd"
		echo "bwrap||bwrap|--ro-bind|/|/|--dev|/dev|--proc|/proc|--bind|/tmp|/tmp|--bind|$WS|$WS|--unshare-all|--die-with-parent|--chdir|$WS|--|$cmd"
		echo "firejail||firejail|--quiet|--noprofile|--read-only=/|--read-write=$WS|--read-write=/tmp|--net=none|--|$cmd"
	} >"$f"
}

# The per-process and per-call workloads run pinned to one CPU: the
# two vCPUs of these machines differ by a third in speed, and a median
# of runs that landed on either is noise.  The build uses every CPU.
PIN=""
if command -v taskset >/dev/null && [ "$(nproc)" -gt 1 ]; then
	cpu=$(taskset -cp $$ | sed 's/.*: *//; s/[-,].*//')
	PIN="taskset -c $cpu"
fi

RAW=$OUT/raw.csv
: >"$RAW"
cd "$WS"
t0=$(date +%s)

echo "bench: startup ($R_START rounds x $N_START runs)"
spec /bin/true "$B/bench/startup.spec" floor
# The namespaces alone (startup only): util-linux unshare makes cordon's
# mount and PID namespaces (and a user namespace with the user's own ids
# mapped, as a user, as cordon does) and runs the command in them: the
# floor of any launcher built on namespaces, which the goal is measured
# against; and every namespace cordon makes with the network off (IPC
# and network too: a network namespace alone costs ~0.5 ms to make).
USERNS=""
[ "$(id -u)" = 0 ] || USERNS="--user|--map-current-user|"
echo "ns||unshare|$USERNS--mount|--pid|--fork|/bin/true" >>"$B/bench/startup.spec"
echo "nsall||unshare|$USERNS--mount|--pid|--ipc|--net|--fork|/bin/true" \
	>>"$B/bench/startup.spec"
$PIN "$B/bench/brun" -r "$R_START" -n "$N_START" -w 3 "$B/bench/startup.spec" \
	startup >>"$RAW"

echo "bench: exec-heavy ($LOOP processes, $R_EXEC rounds)"
spec "/bin/sh|-c|i=0; while [ \$i -lt $LOOP ]; do /bin/true; i=\$((i+1)); done" \
	"$B/bench/exec.spec" floor
$PIN "$B/bench/brun" -r "$R_EXEC" -w 1 "$B/bench/exec.spec" exec >>"$RAW"

# What the shim's load adds to a process, beside what an empty preloaded
# library adds (issue 33): inside cordon, a static program (no shim of
# its own) starts /bin/true without a preload, with the empty library
# and with the environment cordon gave (libcordon.so and the policy),
# start by start, interleaved (scripts/bench/loadcost.c).
echo "bench: the shim's load ($R_LOAD rounds x $N_LOAD starts of each)"
# (both from the workspace: the build's own directory is no exec root)
LOAD=$B/bench/load.txt
cp "$B/bench/loadcost" "$B/bench/empty.so" "$WS/"
$PIN "$CORDON" -q -- "$WS/loadcost" -r "$R_LOAD" -n "$N_LOAD" \
	"$WS/empty.so" >"$LOAD" || die "loadcost failed"

# By absolute path, then by the relative one a build mostly uses (from
# the workspace, the working directory of every configuration).
for w in open stat openrel statrel; do
	op=${w%rel} path=$DEEP
	[ "$op" = "$w" ] || path=${DEEP#"$WS"/}
	echo "bench: $op $path ($OPS calls, $R_OPS rounds)"
	spec "$WS/openstat|$op|$path|$OPS" "$B/bench/$w.spec"
	$PIN "$B/bench/brun" -m -r "$R_OPS" -w 0 "$B/bench/$w.spec" "$w" >>"$RAW"
done

echo "bench: zlib build ($R_BUILD rounds)"
spec "/bin/sh|-c|cd $WS/zlib && ./configure >/dev/null && make -j2 >/dev/null" \
	"$B/bench/build.spec"
"$B/bench/brun" -r "$R_BUILD" -w 0 \
	-p "/bin/sh|-c|rm -rf $WS/zlib && cp -a $ZSRC $WS/zlib" \
	"$B/bench/build.spec" build >>"$RAW"

echo "bench: hyperfine cross-check of startup"
hyperfine -N --warmup 5 --runs $((R_START * N_START)) --style none \
	--export-markdown "$OUT/hyperfine.md" \
	-n bare /bin/true -n kernel "$CORDON -q --no-shim -- /bin/true" \
	-n full "$CORDON -q -- /bin/true" \
	-n bwrap "bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent /bin/true" \
	>/dev/null
elapsed=$(($(date +%s) - t0))
cd "$ROOT"

# Medians and ratios.  Columns: workload, config, median, runs.
MED=$B/bench/medians.txt
sort -t, -k1,1 -k2,2 -k4,4g "$RAW" | awk -F, '
	function flush() { if (n) printf "%s %s %.9g %d\n", key1, key2,
		(n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), n }
	$1 "," $2 != cur { flush(); n = 0; cur = $1 "," $2; key1 = $1; key2 = $2 }
	{ v[++n] = $4 }
	END { flush() }' >"$MED"

CONFIGS="bare preload landlock ns nsall kernel full shim bwrap firejail"
WORKLOADS="startup exec open stat openrel statrel build"
med() { awk -v w="$1" -v c="$2" '$1 == w && $2 == c { print $3 }' "$MED"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
fmt() {
	case $1 in
	open | stat | openrel | statrel)
		awk -v x="$2" 'BEGIN { printf "%.0f ns", x }' ;;
	startup) awk -v x="$2" 'BEGIN { printf "%.2f ms", x * 1000 }' ;;
	*) awk -v x="$2" 'BEGIN { printf "%.2f s", x }' ;;
	esac
}
label() {
	case $1 in
	startup) echo "startup: /bin/true" ;;
	exec) echo "exec-heavy: $LOOP processes" ;;
	open) echo "open+close, depth 6 (per call)" ;;
	stat) echo "stat, depth 6 (per call)" ;;
	openrel) echo "open+close, depth 6, relative path (per call)" ;;
	statrel) echo "stat, depth 6, relative path (per call)" ;;
	build) echo "zlib: configure + make -j2" ;;
	esac
}

TABLE=$B/bench/table.md
DAT=$B/bench/ratios.dat
{
	echo "| workload | bare | any preload | Landlock alone | namespaces alone | all of cordon's namespaces | cordon --no-shim | cordon | shim alone | bubblewrap | firejail |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for w in $WORKLOADS; do
		b=$(med "$w" bare)
		row="| $(label "$w") | $(fmt "$w" "$b")"
		for c in $CONFIGS; do
			[ "$c" = bare ] && continue
			m=$(med "$w" "$c")
			if [ -z "$m" ]; then
				row="$row | -"
				continue
			fi
			row="$row | $(fmt "$w" "$m") ($(ratio "$m" "$b")x)"
		done
		echo "$row |"
	done
} >"$TABLE"
{ # columns: workload, then $CONFIGS in order
	for w in $WORKLOADS; do
		b=$(med "$w" bare)
		row=$w
		for c in $CONFIGS; do
			m=$(med "$w" "$c")
			if [ -n "$m" ]; then
				row="$row $(ratio "$m" "$b")"
			else
				row="$row NaN"
			fi
		done
		echo "$row"
	done
} >"$DAT"

# The targets, in the same run's terms, and the floor measured beside
# them: for startup, the namespaces alone (a launcher that execs twice
# where bare execs once, and the clone into the namespaces; Landlock
# alone, the launcher without the namespaces, is in the table); for
# exec-heavy, the kernel layer's cost
# times what loading any library costs each process; for stat and the
# build, the kernel layer alone (cordon --no-shim), which the shim's
# share comes on top of.
target() { # NAME MEASURED LIMIT FLOOR
	awk -v n="$1" -v m="$2" -v l="$3" -v f="$4" 'BEGIN {
		s = m <= l ? "met" : sprintf("missed by %.0f%%", (m / l - 1) * 100)
		printf "| %s | %.2fx | %.2fx | %s | %s |\n", n, m, l,
			f == "" ? "-" : sprintf("%.2fx", f), s }'
}
TARGETS=$B/bench/targets.md
r() { ratio "$(med "$1" "$2")" "$(med "$1" "${3:-bare}")"; }
{
	echo "| target | measured | limit | floor | |"
	echo "| --- | ---: | ---: | ---: | --- |"
	# the goal: 1.25x the namespaces alone; its floor, what every
	# namespace cordon makes costs over them
	target "startup: cordon / namespaces alone" "$(r startup full ns)" 1.25 \
		"$(r startup nsall ns)"
	target "startup: cordon / bare" "$(r startup full)" 1.5 "$(r startup ns)"
	target "exec-heavy: cordon / bare" "$(r exec full)" 1.10 \
		"$(awk -v a="$(r exec kernel)" -v b="$(r exec preload)" 'BEGIN { print a * b }')"
	target "the shim's load per process: libcordon.so / an empty library (time added to bare)" \
		"$(awk '$1 == "load_ratio" && $2 == "shim" { print $3 }' "$LOAD")" 1.50 1.00
	target "open: cordon / cordon --no-shim" "$(r open full kernel)" 1.15 ""
	target "stat: cordon / bare" "$(r stat full)" 1.10 "$(r stat kernel)"
	target "open, relative: cordon / cordon --no-shim" \
		"$(r openrel full kernel)" 1.15 ""
	target "stat, relative: cordon / bare" "$(r statrel full)" 1.10 \
		"$(r statrel kernel)"
	target "zlib build: cordon / bare" "$(r build full)" 1.03 "$(r build kernel)"
} >"$TARGETS"

gnuplot <<EOF || die "gnuplot failed"
set terminal pngcairo size 1000,520 font "sans,10"
set output "$OUT/results.png"
set title "cost relative to bare (median of interleaved runs; lower is better)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y 2
set yrange [0.5:*]
set ylabel "time / bare"
set key outside right top
set grid ytics
set xtics nomirror
plot "$DAT" using 2:xtic(1) title "bare", '' using 3 title "any preload", \
	'' using 4 title "Landlock alone", '' using 5 title "namespaces alone", \
	'' using 6 title "all of cordon's namespaces", \
	'' using 7 title "cordon --no-shim", '' using 8 title "cordon", \
	'' using 9 title "shim alone", '' using 10 title "bubblewrap", \
	'' using 11 title "firejail" lc rgb "#8c564b"
EOF

# What each isolation mechanism adds to a start (scripts/bench/isocost.c:
# medians of 200, each made alone in a fresh child), the search for
# repositories in this source tree (a git checkout) and in the bench's
# workspace.
echo "bench: isolation mechanisms"
ISO=$B/bench/isocost.md
if [ "$(id -u)" = 0 ]; then
	"$B/bench/isocost" "$ROOT" >"$B/bench/iso.repo"
	"$B/bench/isocost" "$WS" >"$B/bench/iso.ws"
	awk 'FNR == NR { repo[$1] = $2; next } { ws[$1] = $2 }
	END {
		print "| isolation mechanism, per start | cost |"
		print "| --- | ---: |"
		printf "| IPC namespace made | %s us |\n", ws["ipc"]
		printf "| /dev/shm and devpts of its own, /dev/ptmx bound | %s us |\n", ws["dev"]
		printf "| pid 1 sealed (not dumpable) | %s us |\n", ws["seal"]
		printf "| git: repositories searched and protected, in the bench workspace | %s us |\n", ws["git"]
		printf "| git: the same in this source tree (a checkout, nested directories) | %s us |\n", repo["git"]
		printf "| sum, in the bench workspace | %.1f us |\n", ws["ipc"] + ws["dev"] + ws["seal"] + ws["git"]
	}' "$B/bench/iso.repo" "$B/bench/iso.ws" >"$ISO"
else
	echo "(not measured: the namespaces need root)" >"$ISO"
fi

# What the UNIX-socket broker (enforce/broker/broker_loop.c) costs a program that
# connects or sends with an address in a loop (scripts/bench/unixconnect.c).
echo "bench: the UNIX-socket broker"
BROKER=$B/bench/broker.md
"$B/bench/unixconnect" 5000 | awk '
	NR == 1 { print "| per call, median of 5 | bare | seccomp filter | broker | broker / seccomp |"
		print "| --- | ---: | ---: | ---: | ---: |"; next }
	{ name = $1; for (i = 2; i <= NF - 4; i++) name = name " " $i
		printf "| %s | %s ns | %s ns | %s ns | %.2fx |\n", name, $(NF - 3), $(NF - 2), $(NF - 1), $NF }' >"$BROKER" ||
	echo "(not measured: unixconnect failed)" >"$BROKER"

# The same calls on Linux 7.x, where Landlock holds the pathname UNIX
# sockets (RESOLVE_UNIX), in the kernel matrix's guest (QEMU, TCG: slow,
# so only ratios mean anything): bare, cordon, and the broker on the same
# kernel (scripts/bench/kernel.sh).  BENCH_NO_KERNEL=1 leaves it out.
echo "bench: UNIX sockets on Linux 7.x (a guest of the kernel matrix)"
K7=$B/bench/kernel7.md
if [ -n "${BENCH_NO_KERNEL:-}" ]; then
	echo "(not measured: BENCH_NO_KERNEL)" >"$K7"
elif [ "$(id -u)" != 0 ]; then
	echo "(not measured: the kernel matrix's guests boot as root)" >"$K7"
elif CORDON_KERNEL_APPEND="cordon.bench=1" \
	"$ROOT/scripts/kernels/boot.sh" 7 "$B" "$B/bench/kernel7.log" &&
	tr -d '\r' <"$B/bench/kernel7.log" | grep -q '^@@BENCHMED'; then
	tr -d '\r' <"$B/bench/kernel7.log" | awk '
		/^@@KERNEL / { k = $2 }
		/^@@BENCHMED / { v[$2, $3] = $4; r[$2, $3] = $5 }
		END {
			n = split("bare landlock filter cordon cordon-no-shim broker broker-no-shim", c, " ")
			printf "Linux %s, in QEMU without KVM; per call, median of the rounds (ratio to bare):\n\n", k
			print "| call | bare | Landlock alone | seccomp filter alone | cordon | cordon --no-shim | the broker (cordon under fakeabi 8) | the broker, --no-shim |"
			print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
			split("connect sendto", o, " ")
			for (i = 1; i <= 2; i++) {
				line = "| " (o[i] == "connect" ? "socket, connect, close" : "sendto of 64 bytes with the address")
				for (j = 1; j <= n; j++)
					line = line sprintf(" | %s ns (%sx)", v[c[j], o[i]], r[c[j], o[i]])
				print line " |"
			}
		}' >"$K7"
else
	echo "(not measured: the 7.x guest did not run; see $B/bench/kernel7.log)" >"$K7"
fi

# What --allow-host's proxy (enforce/proxy/proxy_loop.c, run as the supervisor runs
# it) costs a transfer and a connection (scripts/bench/proxybench.c).
echo "bench: the --allow-host proxy"
PROXY=$B/bench/proxy.md
"$B/bench/proxybench" 100 1000 >"$B/bench/proxy.raw" 2>&1 &&
	awk '
	/^  direct .*MB\/s/ { d = $2 } /^  CONNECT .*MB\/s/ { p = $2 }
	/^  any relay .*MB\/s/ { f = $3 }
	/^  direct .* us$/ { dl = $2 } /^  CONNECT to IP/ { ip = $4 }
	/^  CONNECT to name/ { nm = $4 }
	/^100 open tunnels/ { mem = $4; sub(/^\+/, "", mem) }
	END {
		if (!d || !p) exit 1
		print "| --allow-host proxy | direct | through the proxy | | goal |"
		print "| --- | ---: | ---: | ---: | --- |"
		printf "| a 100 MB transfer on loopback, median of 9 interleaved | %s MB/s | %s MB/s | %.0f %% | at least 80 %% (%s) |\n", d, p, 100 * p / d, (100 * p / d >= 80 ? "met" : "missed by " int(80 - 100 * p / d + 0.5) " points")
		if (f) printf "| the floor: the same through a bare relay (a thread, a blocking splice loop, nothing else) | %s MB/s | %s MB/s | %.0f %% | |\n", d, f, 100 * f / d
		printf "| a connection, to its first byte (mean of 1000), by IP rule | %s us | %s us | +%.0f us | at most +1 ms (%s) |\n", dl, ip, ip - dl, (ip - dl <= 1000 ? "met" : "missed")
		printf "| the same, by a name resolved outside (getaddrinfo) | %s us | %s us | +%.0f us | at most +1 ms (%s) |\n", dl, nm, nm - dl, (nm - dl <= 1000 ? "met" : "missed")
		printf "| 100 open tunnels: the memory they add to the supervisor | | +%s KB | | |\n", mem
	}' "$B/bench/proxy.raw" >"$PROXY" ||
	echo "(not measured: proxybench failed)" >"$PROXY"

# Transparent capture (issue 32): a client that dials the address
# itself, captured in the namespace, beside the same client through the
# proxy variables' CONNECT and bare (scripts/bench/capturebench.c, the
# origin on this host's address; 11 rounds interleaved, medians).
echo "bench: transparent capture"
CAPTURE=$B/bench/capture.md
far=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -m1 '^[0-9.]*$')
if [ -n "$far" ]; then
	"$B/bench/capturebench" server "$far" >"$B/bench/capture.port" &
	cbpid=$!
	sleep 0.3
	cport=$(cat "$B/bench/capture.port")
	: >"$B/bench/capture.raw"
	for r in $(seq 11); do
		for way in direct captured proxyvars; do
			case $way in
			direct) set -- "$B/bench/capturebench" client direct ;;
			captured) set -- "$CORDON" -q --allow-host "$far:$cport" -- \
				"$B/bench/capturebench" client direct ;;
			proxyvars) set -- "$CORDON" -q --no-capture \
				--allow-host "$far:$cport" -- \
				"$B/bench/capturebench" client connect ;;
			esac
			echo "$way $("$@" "$far" "$cport" 100 200 2>/dev/null | tr '\n' ' ')" \
				>>"$B/bench/capture.raw"
		done
	done
	kill "$cbpid" 2>/dev/null
	awk '
	function median(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$2 == "ttfb_us" { n[$1]++; t[$1, n[$1]] = $3; m[$1, n[$1]] = $5 }
	END {
		for (w in n) {
			for (i = 1; i <= n[w]; i++) { tt[i] = t[w, i]; mm[i] = m[w, i] }
			T[w] = median(tt, n[w]); M[w] = median(mm, n[w])
		}
		if (!T["captured"] || !T["proxyvars"]) exit 1
		print "| --allow-host, a client dialing by itself | bare | captured | proxy variables (CONNECT) | captured / proxy variables | goal |"
		print "| --- | ---: | ---: | ---: | ---: | --- |"
		printf "| a 100 MB transfer | %d MB/s | %d MB/s | %d MB/s | %.0f %% | within 10 %% (%s) |\n", M["direct"], M["captured"], M["proxyvars"], 100 * M["captured"] / M["proxyvars"], (M["captured"] >= 0.9 * M["proxyvars"] ? "met" : "missed")
		printf "| a connection to its first byte (mean of 200) | %d us | %d us | %d us | %.0f %% | within 10 %% (%s) |\n", T["direct"], T["captured"], T["proxyvars"], 100 * T["captured"] / T["proxyvars"], (T["captured"] <= 1.1 * T["proxyvars"] ? "met" : "missed")
	}' "$B/bench/capture.raw" >"$CAPTURE" ||
		echo "(not measured: capturebench failed; see $B/bench/capture.raw)" >"$CAPTURE"
else
	echo "(not measured: this host has no IPv4 address but loopback)" >"$CAPTURE"
fi

# A command in a session (issue 20): through `cordon run --session` and
# through the protocol spoken by the client itself, against the same
# client spawning /bin/true bare (scripts/bench/sessioncost.c), with the
# shim and without (its load into every process is the floor's share).
echo "bench: sessions"
SESSION=$B/bench/session.md
if "$B/bench/sessioncost" "$CORDON" 50 >"$B/bench/session.shim" &&
	"$B/bench/sessioncost" "$CORDON" 50 --no-shim >"$B/bench/session.noshim" &&
	python3 "$ROOT/scripts/bench/sessioncost.py" "$CORDON" 50 >"$B/bench/session.py.shim" &&
	python3 "$ROOT/scripts/bench/sessioncost.py" "$CORDON" 50 --no-shim >"$B/bench/session.py.noshim"; then
	awk '
		FNR == 1 { f++ } { v[f, $1] = $2 }
		END { print "| per command (/bin/true), median of 1000 | bare, from the client | cordon run --session | the protocol, from the client | run / bare (goal 2x) | protocol / bare (goal 1.2x) |"
			print "| --- | ---: | ---: | ---: | ---: | ---: |"
			split("C client (posix_spawn), session with the shim|C client, session --no-shim|Python client (subprocess), session with the shim|Python client, session --no-shim", name, "|")
			for (i = 1; i <= 4; i++)
				if (i <= 2)
					printf "| %s | %.0f us | %.0f us | %.0f us | %.2fx | %.2fx |\n", name[i],
						v[i, "bare"], v[i, "run"], v[i, "protocol"], v[i, "run"] / v[i, "bare"], v[i, "protocol"] / v[i, "bare"]
				else
					printf "| %s | %.0f us | - | %.0f us | - | %.2fx |\n", name[i],
						v[i, "bare"], v[i, "protocol"], v[i, "protocol"] / v[i, "bare"] }' \
		"$B/bench/session.shim" "$B/bench/session.noshim" \
		"$B/bench/session.py.shim" "$B/bench/session.py.noshim" >"$SESSION"
	# Their targets, with floors: the supervisor's relay and pid 1's
	# spawn alone (the protocol --no-shim) times what loading any
	# library costs a process (exec-heavy's "any preload"); for `cordon
	# run`, the client's own start on top (run minus protocol, both
	# --no-shim, against the same bare).
	awk -v pre="$(r exec preload)" '
		FNR == 1 { f++ } { v[f, $1] = $2 }
		function t(n, m, l, fl) {
			printf "| %s | %.2fx | %.2fx | %.2fx | %s |\n", n, m, l, fl,
				m <= l ? "met" : sprintf("missed by %.0f%%", (m / l - 1) * 100) }
		END {
			relay = v[2, "protocol"] / v[2, "bare"]
			client = (v[2, "run"] - v[2, "protocol"]) / v[2, "bare"]
			t("session, cordon run --session: / bare", v[1, "run"] / v[1, "bare"], 2, client + relay * pre)
			t("session, the protocol: / bare", v[1, "protocol"] / v[1, "bare"], 1.2, relay * pre) }' \
		"$B/bench/session.shim" "$B/bench/session.noshim" >>"$TARGETS"
else
	echo "(not measured: sessioncost failed)" >"$SESSION"
fi

runs() { awk -F, -v w="$1" '$1 == w && $2 == "bare"' "$RAW" | wc -l; }
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
mem=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
{
	echo "# cordon bench: results"
	echo
	echo "Run on $(date -u +%Y-%m-%d) by \`make bench\` ($elapsed s of measuring)."
	echo
	echo "- machine: $cpu, $(nproc) cores, $mem; $(. /etc/os-release && echo "$PRETTY_NAME")"
	echo "- kernel: Linux $(uname -r), Landlock ABI $("$CORDON" probe --json 2>/dev/null | sed -n 's/.*"landlock_abi": *\([0-9]*\).*/\1/p' | head -1)"
	echo "- cordon $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown); $(bwrap --version); $(firejail --version | head -1); $(hyperfine --version); $(gcc --version | head -1); zlib $(basename "$ZSRC")"
	echo "- the shim's load (scripts/bench/loadcost.c, in cordon, pinned): $((R_LOAD * N_LOAD)) starts of /bin/true each way, interleaved, medians: $(awk '$1 == "bare" || $1 == "empty" || $1 == "shim" { printf "%s%s %s us", sep, $1, $2; sep = ", " }' "$LOAD")"
	echo "- runs per configuration: startup $(runs startup), exec-heavy $(runs exec), open $(runs open) x $OPS calls and stat $(runs stat) x $OPS calls (each run: the ns per call of its fastest twentieth: the host takes the CPU in bursts), zlib build $(runs build); every workload interleaved across configurations (scripts/bench/brun.c); startup, exec-heavy, open and stat pinned to one CPU (${PIN:-not pinned}), the build on all"
	echo
	echo "Medians, and the ratio to bare of the same run:"
	echo
	cat "$TABLE"
	echo
	echo "Targets:"
	echo
	cat "$TARGETS"
	echo
	echo "Configurations: *any preload* is an empty library preloaded (startup and exec-heavy only): what one more library costs each process, the floor under the shim's own cost; *Landlock alone* is scripts/bench/llonly (cordon's ruleset code, then exec: no namespaces, seccomp, shim or supervisor); *namespaces alone* (startup only) is util-linux \`unshare --mount --pid --fork\` (with --user --map-current-user as a user): the namespaces the goal's floor counts, with nothing set up in them; *all of cordon's namespaces* adds --ipc and --net, as cordon makes them with the network off; *cordon --no-shim* is the whole kernel layer (Landlock, mount and PID namespaces, seccomp, capabilities); *cordon* adds the shim and the supervisor; *shim alone* is LD_PRELOAD=libcordon.so with CORDON_EXEC=/ and the workspace writable (it applies Landlock itself); bubblewrap: / read-only, the workspace and /tmp writable, every namespace unshared; firejail: --noprofile, / read-only, the workspace and /tmp writable, --net=none."
	echo
	echo "![ratios to bare](results.png)"
	echo
	echo "Cross-check of the startup row with hyperfine (sequential, not interleaved):"
	echo
	cat "$OUT/hyperfine.md"
	echo
	echo "What each isolation mechanism adds to a start, made alone (scripts/bench/isocost.c, median of 200):"
	echo
	cat "$ISO"
	echo
	echo "What the UNIX-socket broker adds to a connect or a send with an address (scripts/bench/unixconnect.c; a write, never handed over, for scale), and with the network shared to a bind and to a connect to the command's own socket in /tmp or at an abstract name:"
	echo
	cat "$BROKER"
	echo
	echo "The same connect and send to an allowed pathname UNIX socket on Linux 7.x, where Landlock holds them (RESOLVE_UNIX, ABI 9) and the broker is not installed, beside the broker on the same kernel (scripts/bench/kernel.sh in the kernel matrix's 7.x guest; scripts/bench/unixloop.c timed from inside, the fastest of 5 slices of 10,000 calls a run, the configurations interleaved round by round; goal: cordon at most 1.1x bare):"
	echo
	cat "$K7"
	echo
	echo "What --allow-host's proxy costs (scripts/bench/proxybench.c: the proxy on its own threads, as the supervisor runs it; CONNECT tunnels spliced):"
	echo
	cat "$PROXY"
	echo
	echo "What transparent capture costs beside the proxy variables (scripts/bench/capturebench.c: a client that dials the origin itself, captured, against the same client sending CONNECT to cordon's proxy, and bare; 11 rounds interleaved, medians):"
	echo
	cat "$CAPTURE"
	echo
	echo "A command in a session (scripts/bench/sessioncost.c and sessioncost.py: the ways interleaved call by call, 20 rounds of 50):"
	echo
	cat "$SESSION"
} >"$OUT/results.md"

# The notes' copy (doc/bench/notes.md), between its markers.
NOTES=$ROOT/doc/bench/notes.md
if grep -q '<!-- bench:begin -->' "$NOTES"; then
	awk -v f="$TABLE" -v t="$TARGETS" -v iso="$ISO" -v brk="$BROKER" -v k7="$K7" -v px="$PROXY" -v ses="$SESSION" -v d="$(date -u +%Y-%m-%d)" \
		-v m="$cpu, $(nproc) cores, Linux $(uname -r)" '
		/<!-- bench:begin -->/ { print; print ""; print "Measured " d " on " m ":"; print "";
			while ((getline l < f) > 0) print l; print "";
			while ((getline l < t) > 0) print l; print "";
			while ((getline l < iso) > 0) print l; print "";
			while ((getline l < brk) > 0) print l; print "";
			while ((getline l < k7) > 0) print l; print "";
			while ((getline l < px) > 0) print l; print "";
			while ((getline l < ses) > 0) print l; print ""; skip = 1; next }
		/<!-- bench:end -->/ { skip = 0 }
		!skip' "$NOTES" >"$B/bench/notes.new" &&
		cat "$B/bench/notes.new" >"$NOTES"
fi
cat "$TABLE"
echo
cat "$TARGETS"
echo
cat "$ISO"
echo "bench: $OUT/results.md, $OUT/results.png ($elapsed s)"
