#!/usr/bin/env bash
# make compat's load test: many starts at once, and nothing left behind.
#
#   scripts/compat/load.sh BUILD_DIR
#
# COMPAT_STARTS (1000) starts of "cordon -- true", COMPAT_PARALLEL (20)
# at a time, with the clean environment of run.sh, half of them with
# XDG_RUNTIME_DIR set (the report socket then lives there, else in
# ~/.local/state/cordon), while a process outside binds and unlinks
# UNIX sockets in a loop where cordon covers sockets at each start: in
# a temp dir, in $XDG_RUNTIME_DIR and, as root, under /run.  Every start
# must exit 0.  Afterwards nothing of cordon may be left: no process of
# this cordon binary, no mount in this mount namespace that was not
# there before, no cordon-*.sock in either state directory, no new entry
# in /tmp, /var/tmp, /dev/shm or the workspace.  As root it runs once as
# root and once as the user cordon-test (when it exists).
set -u

build=${1:?usage: load.sh BUILD_DIR}
starts=${COMPAT_STARTS:-1000}
parallel=${COMPAT_PARALLEL:-20}
test_user=cordon-test

die() { echo "load: $*" >&2; exit 1; }

[ -x "$build/cordon" ] && [ -r "$build/libcordon.so" ] ||
	die "no '$build/cordon' and libcordon.so: run make B=$build first"
root=false
[ "$(id -u)" -eq 0 ] && root=true

tmp=$(mktemp -d /tmp/cordon-load.XXXXXX) || exit 1
runs=() # the $XDG_RUNTIME_DIRs made under /run
churner=
cleanup() {
	[ -n "$churner" ] && kill "$churner" 2>/dev/null && wait "$churner"
	rm -rf "$tmp" "${runs[@]}"
}
trap cleanup EXIT
stage=$tmp/stage
mkdir "$stage" && cp "$build/cordon" "$build/libcordon.so" "$stage/" &&
	chmod -R a+rX "$tmp" || exit 1
exe=$(readlink -f "$stage/cordon")

# What each check compares: listings taken before and after.
mounts() { # mount point, type, source, options of each mount
	awk '{ sub(/ - /, " "); print $5, $(NF-2), $(NF-1), $6 }' \
		/proc/self/mountinfo | sort
}
entries() { # the entries of the shared temp dirs
	find /tmp /var/tmp /dev/shm -mindepth 1 -maxdepth 1 2>/dev/null |
		grep -v "^$tmp\$" | sort
}
cordons() { # processes running this cordon binary
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2>/dev/null)" = "$exe" ] && echo "${p#/proc/}"
	done
}

# churn DIR...: bind a socket in each DIR and unlink it, in a loop; on
# SIGTERM it ends the round, so that it leaves none of its own behind
churn() {
	/usr/bin/python3 - "$@" <<'EOF' &
import os, signal, socket, sys
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
n = 0
while not stop:
    for d in sys.argv[1:]:
        p = os.path.join(d, 's%d' % (n % 8))
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind(p)
            s.listen()
            os.unlink(p)
        except OSError:
            pass
        s.close()
    n += 1
EOF
	churner=$!
}

# load LABEL USER HOME [runuser -u USER --]
load() {
	local label=$1 name=$2 home=$3 out=$tmp/$1 xdg ws f fails n
	local before_mounts before_entries leaks=0
	shift 3
	mkdir -p "$out/ws" "$out/sock" && chown -R "$name:" "$out" || exit 1
	ws=$out/ws
	if $root; then
		xdg=$(mktemp -d "/run/cordon-load-$name.XXXXXX") || exit 1
		runs+=("$xdg")
	else
		xdg=$out/xdg
		mkdir "$xdg" || exit 1
	fi
	mkdir "$xdg/sock" && chown -R "$name:" "$xdg" && chmod 700 "$xdg" ||
		exit 1
	local dirs=("$out/sock" "$xdg/sock")
	if $root; then
		mkdir "$xdg.sock" || exit 1 # under /run, outside the runtime dir
		runs+=("$xdg.sock")
		dirs+=("$xdg.sock")
	fi
	before_mounts=$(mounts)
	before_entries=$(entries)
	churn "${dirs[@]}"

	echo "load: $label: $starts starts of cordon -- true, $parallel at a time"
	: >"$out/fails"
	chmod a+w "$out/fails"
	# each start: its number, then its own output only if it failed
	seq "$starts" | (cd "$ws" && xargs -P "$parallel" -I{} "$@" \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" \
		USER="$name" LOGNAME="$name" LANG=C.UTF-8 TERM=dumb \
		XDG="$xdg" FAILS="$out/fails" CORDON="$stage/cordon" bash -c '
			[ $(({} % 2)) -eq 0 ] && export XDG_RUNTIME_DIR=$XDG
			o=$(timeout -k 5 60 "$CORDON" -- true 2>&1 </dev/null)
			s=$?
			[ $s -eq 0 ] || printf "start %s: exit %s: %s\n" {} $s \
				"$(echo "$o" | head -3)" >>"$FAILS"')
	kill "$churner" && wait "$churner" 2>/dev/null
	churner=

	fails=$(grep -c '^start ' "$out/fails")
	if [ "$fails" -gt 0 ]; then
		echo "load: $label: FAIL: $fails of $starts starts failed; the first:"
		head -5 "$out/fails" | sed 's/^/    /'
		leaks=1
	fi
	n=$(cordons | wc -l)
	if [ "$n" -gt 0 ]; then
		echo "load: $label: FAIL: $n cordon processes left: $(cordons | head -5 | tr '\n' ' ')"
		leaks=1
	fi
	f=$(comm -13 <(echo "$before_mounts") <(mounts))
	if [ -n "$f" ]; then
		echo "load: $label: FAIL: mounts left in the host's namespace:"
		echo "$f" | head -5 | sed 's/^/    /'
		leaks=1
	fi
	f=$(ls -d "$home/.local/state/cordon"/cordon-*.sock \
		"$xdg"/cordon-*.sock 2>/dev/null)
	if [ -n "$f" ]; then
		echo "load: $label: FAIL: report sockets left: $(echo "$f" | wc -l), e.g. $(echo "$f" | head -1)"
		leaks=1
	fi
	f=$( (comm -13 <(echo "$before_entries") <(entries)
		find "$ws" "$out/sock" "$xdg/sock" -mindepth 1) | head -5)
	if [ -n "$f" ]; then
		echo "load: $label: FAIL: files left in the temp dirs:"
		echo "$f" | sed 's/^/    /'
		leaks=1
	fi
	[ "$leaks" -eq 0 ] &&
		echo "load: $label: $starts starts, 0 failed, nothing left behind"
	return "$leaks"
}

status=0
if $root; then
	load root root "$(getent passwd root | cut -d: -f6)" || status=1
	if [ "${COMPAT_USERS:-root,user}" != root ] &&
		id "$test_user" >/dev/null 2>&1; then
		load user "$test_user" "$(getent passwd "$test_user" | cut -d: -f6)" \
			runuser -u "$test_user" -- || status=1
	else
		echo "load: SKIP the run as $test_user (COMPAT_USERS=root or no such user)"
	fi
else
	load user "$(id -un)" "$HOME" || status=1
fi
exit $status
