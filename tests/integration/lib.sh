# Assertions for the integration tests (sourced by suite.sh).
#
# A failed assertion prints what it expected and what it saw and ends the
# test (its subshell) with status 1; skip ends it with 77 and a reason.
# Every effect is checked from outside the sandbox.

fail() {
	echo "FAILED: $*"
	exit 1
}

skip() {
	echo "$*"
	exit 77
}

# A test that calls a command or an assertion that is not there (a typo,
# a helper never written) would go on and pass: it fails instead
# (suite.sh reads the mark; bash runs this apart from the test's shell,
# so its exit alone would not end the test).
command_not_found_handle() {
	echo "FAILED: no command '$1' in the test's shell" | tee -a "$T.notfound"
	return 127
}

# kernel_has RIGHT: does this kernel's Landlock have RIGHT (llhave's
# names: landlock, tcp, resolve_unix, udp, quiet, tsync)?  The same tests run on every
# kernel of the matrix: where a right decides which mechanism holds, a
# test proves the one this kernel has, and says so.
kernel_has() {
	"$HELPERS/llhave" "$1"
}

# port_opts OPTION...: the options given into $opts (an array), less
# the TCP port grants (--connect, --bind) where Landlock cannot hold
# them (ABI 4): there a run with one is refused by name, checked here.
port_opts() {
	local o
	opts=()
	for o in "$@"; do
		case $o in
		--connect*|--bind*)
			if ! kernel_has tcp; then
				# shellcheck disable=SC2086
				"$CORDON" $o -- true > /dev/null 2> "$T/refused"
				grep -q "refusing to run: no TCP beyond the grant" "$T/refused" ||
					fail "$o ran without Landlock's TCP rules"
				continue
			fi ;;
		esac
		opts+=("$o")
	done
}

# cordon ARGS...: run cordon, keeping status, stdout and stderr.
# $status, files $T/stdout and $T/stderr.
cordon() {
	"$CORDON" "$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

# plain CMD...: the same command without cordon (the twin).
plain() {
	"$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

show() {
	echo "--- status ${status:-none}; stdout:"
	head -c 2000 "$T/stdout"
	echo "--- stderr:"
	head -c 2000 "$T/stderr"
}

assert_status() { # expected
	[ "$status" -eq "$1" ] || { show; fail "status $status, expected $1"; }
}

assert_status_not() { # unexpected
	[ "$status" -ne "$1" ] || { show; fail "status $status, expected another"; }
}

assert_exists() {
	[ -e "$1" ] || { show; fail "$1 does not exist"; }
}

assert_absent() {
	[ ! -e "$1" ] || { show; fail "$1 exists"; }
}

assert_content() { # file expected
	local got
	got=$(cat "$1" 2>/dev/null) || { show; fail "cannot read $1"; }
	[ "$got" = "$2" ] || { show; fail "$1 holds '$got', expected '$2'"; }
}

assert_stdout_has() {
	grep -q -- "$1" "$T/stdout" || { show; fail "stdout lacks '$1'"; }
}

assert_stdout_lacks() {
	! grep -q -- "$1" "$T/stdout" || { show; fail "stdout has '$1'"; }
}

assert_stderr_has() {
	grep -q -- "$1" "$T/stderr" || { show; fail "stderr lacks '$1'"; }
}

assert_stderr_lacks() {
	! grep -q -- "$1" "$T/stderr" || { show; fail "stderr has '$1'"; }
}

assert_stderr_lines() { # expected number of lines
	local n
	n=$(wc -l < "$T/stderr")
	[ "$n" -eq "$1" ] || { show; fail "stderr has $n lines, expected $1"; }
}

# A tree of files outside the sandbox, with known content.
make_tree() { # dir
	mkdir -p "$1/a/b"
	echo one > "$1/a/one"
	echo two > "$1/a/b/two"
}

assert_tree() { # dir
	assert_content "$1/a/one" one
	assert_content "$1/a/b/two" two
}

# wait_for_file FILE: until FILE is not empty, 5 s at most.
wait_for_file() {
	local i
	for i in $(seq 100); do
		[ -s "$1" ] && return
		sleep 0.05
	done
}

# wait_for_socket PATH: until a socket is at PATH, 5 s at most; fails
# the test otherwise.
wait_for_socket() {
	local i
	for i in $(seq 100); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	fail "the listener at $1 did not start"
}

# start_listener [listener options]: a TCP/UDP listener on loopback that
# exits by itself; sets $port and $listener_pid; the count of contacts
# is in $T/count once it has exited (wait_listener).
start_listener() {
	rm -f "$T/port" "$T/count"
	"$HELPERS/listener" -t 3 "$@" "$T/port" "$T/count" &
	listener_pid=$!
	wait_for_file "$T/port"
	port=$(cat "$T/port") || fail "the listener did not start"
}

wait_listener() {
	wait "$listener_pid"
	contacts=$(cat "$T/count" 2>/dev/null || echo missing)
}

# shim_policy: the snapshot for a test of the shim alone, made by the
# real encoder (tests/helpers/snapshot.c): the system
# readable and executable, $T/ws (the workspace) and /tmp writable,
# $T/out nothing; audit records appended to $T/audit.jsonl.
shim_policy() {
	local args=(--log "file:$T/audit.jsonl") d
	for d in /usr /bin /sbin /lib /lib64 /etc /opt; do
		[ -e "$d" ] && args+=(rx "$(readlink -f "$d")")
	done
	args+=(r /proc r /dev rw /dev/null rwx /tmp rwx "$T/ws")
	"$HELPERS/snapshot" "${args[@]}"
}

# shim_run CMD...: CMD with libcordon.so preloaded and shim_policy, no
# kernel layer: what the shim alone decides.  Sets $status and the
# files $T/stdout, $T/stderr.
shim_run() {
	CORDON_POLICY=$(shim_policy) LD_PRELOAD="$HELPERS/libcordon.so" \
		"$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

# listen_unix PATH: a UNIX stream socket listening at PATH (accepting
# nothing) until unlisten_unix; sets $unix_pid.
listen_unix() {
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(16)
time.sleep(30)' "$1" &
	unix_pid=$!
	wait_for_socket "$1"
}

unlisten_unix() {
	[ -n "${unix_pid:-}" ] || return 0
	kill "$unix_pid" 2>/dev/null
	wait "$unix_pid" 2>/dev/null
	unix_pid=
}
