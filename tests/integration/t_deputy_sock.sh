# The sockets cordon listens on (a session's control socket, a run's
# report socket) where no sandbox can take their place, and clients
# that check whom they speak to (issue 27, class 2).  The attacker is
# a sibling run started the `cordon wrap` way (its environment cleared,
# so it does not know the runtime directory the user's cordon uses)
# that moves a socket aside and listens in its place (helpers/sockswap,
# static); or, standing for any run that could write the directory, a
# process of the user's outside.  Every effect is checked in the files
# outside: the impostor's capture, the audit log.
#
# On the old code (622aafc), with XDG_RUNTIME_DIR under /tmp, the
# sibling got the caller's three descriptors and
# {"op":"run",...,"env":{"SECRET":"s3cr3t"}}, and the run's denial
# never reached its log: what these tests' first halves assert against.

# rt_dir: a runtime directory under /tmp, as containers and CI set it
# (/tmp/runtime-$USER): $rt, made 0700; removed when the test ends.
rt_dir() {
	rt=$(mktemp -d /tmp/cordon-it-rt.XXXXXX) || fail "mktemp"
	export XDG_RUNTIME_DIR=$rt
	state=$HOME/.local/state/cordon
	trap 'stop_sessions; rm -rf "$rt"' EXIT
}

# sibling SECONDS MODE PATH...: helpers/sockswap in a run of its own,
# its environment cleared as `cordon wrap` spawns it, granted all of
# $HOME; what it took is in $T/ws/cap.  In the background: $sib.
sibling() {
	local secs=$1 mode=$2
	shift 2
	env -i PATH="$PATH" HOME="$HOME" "$CORDON" -w "$HOME" -- \
		"$HELPERS/sockswap" "$mode" "$T/ws/cap" "$secs" "$@" \
		> "$T/sib.out" 2>&1 &
	sib=$!
}

# raw_call SOCKET: what a client that checks nothing sends: a "run"
# request with SECRET in its environment, and its descriptors.
raw_call() {
	python3 -c 'import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
req = {"op": "run", "argv": ["true"], "cwd": "/", "env": {"SECRET": "s3cr3t"}}
socket.send_fds(s, [json.dumps(req).encode() + b"\n"], [0, 1, 2])' "$1"
}

assert_nothing_taken() { # capture
	! grep -q s3cr3t "$1" || { cat "$1"; fail "the impostor got the secret"; }
	! grep -q '^fds [1-9]' "$1" || { cat "$1"; fail "the impostor got descriptors"; }
}

test_deputy_sock_session_socket_out_of_a_siblings_reach() {
	rt_dir
	sibling 6 stream "$rt/cordon" "$state/run"
	sleep 0.5
	session_start
	grep -q "XDG_RUNTIME_DIR is not used for cordon's sockets: '$rt' lies under /tmp" \
		"$T/start.err" || { cat "$T/start.err"; fail "the move was not said"; }
	case "$sock" in "$state/run/"*) ;; *) fail "socket $sock" ;; esac
	sleep 1
	srun -e SECRET=s3cr3t -- sh -c 'echo "${SECRET:-none}" > "$0/seen"' "$T/ws"
	assert_status 0
	wait "$sib"
	# the legitimate call ran, with its secret; the sibling took nothing
	assert_content "$T/ws/seen" s3cr3t
	touch "$T/ws/cap"
	assert_nothing_taken "$T/ws/cap"
	! grep -q "swap .* ok" "$T/ws/cap" || { cat "$T/ws/cap"; fail "a socket was moved"; }
	[ "$(session_calls "$sid")" = 1 ] || fail "calls: $(session_calls "$sid")"
	# said once for a value: not again
	"$CORDON" session stop "$sid" 2> "$T/stderr"
	assert_stderr_lacks "XDG_RUNTIME_DIR"
	# the twin: where the old code put the socket, the same sibling
	# takes it, and what a client sends there
	# (made once the sibling runs: its mounts cover the sockets that
	# exist when it starts)
	mkdir -m 700 "$rt/cordon"
	rm -f "$T/ws/cap"
	sibling 5 stream "$rt/cordon"
	sleep 0.5
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); time.sleep(8)' \
		"$rt/cordon/0123456789abcdef.sock" &
	local decoy=$!
	for _ in $(seq 100); do
		grep -q "swap .* ok" "$T/ws/cap" 2> /dev/null && break
		sleep 0.05
	done
	raw_call "$rt/cordon/0123456789abcdef.sock" < /dev/null
	wait "$sib"
	kill "$decoy" 2> /dev/null
	grep -q s3cr3t "$T/ws/cap" && grep -q '^fds 3' "$T/ws/cap" ||
		{ cat "$T/ws/cap" "$T/sib.out"; fail "twin: the sibling took nothing"; }
}

# Whoever could take the directory (here a process of the user's own,
# outside), the clients see that the listener is not the supervisor
# and send nothing; the supervisor's own socket still answers after.
test_deputy_sock_clients_check_the_supervisor() {
	session_start
	"$HELPERS/sockswap" stream "$T/cap" 8 "$sock" &
	local imp=$!
	for _ in $(seq 100); do
		grep -q "swap .* ok" "$T/cap" 2> /dev/null && break
		sleep 0.05
	done
	grep -q "swap $sock ok" "$T/cap" || { cat "$T/cap"; fail "no swap"; }
	srun -e SECRET=s3cr3t -- true
	assert_status 125
	assert_stderr_has "its socket is not its supervisor's"
	python3 "$HELPERS/session_client.py" "$sock" "$T/ws" sh -c 'echo s3cr3t' \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_stderr_has "not the session's supervisor's"
	cordon session stop "$sid"
	assert_status 125
	# the twin: a client that checks nothing hands it all over
	raw_call "$sock" < /dev/null
	wait "$imp"
	grep -q s3cr3t "$T/cap" && grep -q '^fds 3' "$T/cap" ||
		{ cat "$T/cap"; fail "twin: the impostor took nothing"; }
	# what the checked clients sent: nothing (their connections came
	# first, each "fds 0" and no bytes)
	[ "$(grep -c '^fds 0$' "$T/cap")" -ge 2 ] || { cat "$T/cap"; fail "the clients' connections were not seen"; }
	[ "$(grep -c s3cr3t "$T/cap")" = 1 ] || { cat "$T/cap"; fail "a checked client sent the secret"; }
	# the supervisor's socket back in its place: it answers again
	mv "$sock.aside" "$sock"
	srun -- true
	assert_status 0
	python3 "$HELPERS/session_client.py" "$sock" "$T/ws" true \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
}

test_deputy_sock_report_socket_out_of_a_siblings_reach() {
	rt_dir
	echo s3cr3t > "$T/out/secret"
	sibling 6 dgram "$rt" "$state/run"
	sleep 0.5
	cordon --log "$T/audit.jsonl" -- sh -c "sleep 1.5; cat '$T/out/secret'"
	assert_status 1
	assert_stdout_lacks s3cr3t
	wait "$sib"
	# the denial reached the run's own log; the sibling got nothing
	python3 -c 'import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert any(r.get("path") == sys.argv[2] and r["source"] == "shim"
           for r in recs), recs' "$T/audit.jsonl" "$T/out/secret" ||
		fail "the denial is not in the log"
	touch "$T/ws/cap"
	! grep -q datagram "$T/ws/cap" || { cat "$T/ws/cap"; fail "the sibling got a report"; }
	! grep -q "swap .* ok" "$T/ws/cap" || { cat "$T/ws/cap"; fail "a socket was moved"; }
	# the twin: a socket where the old code put the report socket, and
	# the same sibling takes it and what is sent there
	rm -f "$T/ws/cap"
	sibling 4 dgram "$rt"
	sleep 0.5
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); time.sleep(6)' \
		"$rt/cordon-1.sock" &
	local decoy=$!
	for _ in $(seq 100); do
		grep -q "swap .* ok" "$T/ws/cap" 2> /dev/null && break
		sleep 0.05
	done
	python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"a-record", sys.argv[1])' \
		"$rt/cordon-1.sock"
	wait "$sib"
	kill "$decoy" 2> /dev/null
	grep -q "datagram a-record" "$T/ws/cap" ||
		{ cat "$T/ws/cap" "$T/sib.out"; fail "twin: the sibling took nothing"; }
}

# The report socket replaced by whoever could (a process of the user's
# outside): the shims send it nothing, and the log says what happened.
test_deputy_sock_shim_sends_only_to_its_supervisor() {
	local dir=$T/run
	mkdir -m 700 "$dir"
	export XDG_RUNTIME_DIR=$dir
	echo s3cr3t > "$T/out/secret"
	"$HELPERS/sockswap" dgram "$T/cap" 5 "$dir/cordon" &
	local imp=$!
	cordon --log "$T/audit.jsonl" -- sh -c "sleep 1.5; cat '$T/out/secret'"
	assert_status 1
	wait "$imp"
	grep -q "swap $dir/cordon/cordon-[0-9]*.sock ok" "$T/cap" || { cat "$T/cap"; fail "no swap"; }
	! grep -q datagram "$T/cap" || { cat "$T/cap"; fail "the impostor got a report"; }
	assert_stderr_has "was moved or replaced during the run"
	grep -q '"rule":"the report socket .* was moved or replaced' "$T/audit.jsonl" ||
		fail "the log does not say it"
	python3 "$HELPERS/schema_check.py" "$HELPERS/doc/schema/audit-record.schema.json" \
		--lines "$T/audit.jsonl" > "$T/check" ||
		{ cat "$T/check"; fail "the log is not the schema's"; }
	grep -q '^ok launcher_report_socket$' "$T/check" || { cat "$T/check"; fail "no such record checked"; }
	# the twin: the same impostor takes what a sender that checks
	# nothing sends to that path
	"$HELPERS/sockswap" dgram "$T/cap2" 3 "$dir/cordon" &
	imp=$!
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); time.sleep(3)' \
		"$dir/cordon/cordon-1.sock" &
	local decoy=$!
	sleep 1.5
	python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"a-record", sys.argv[1])' \
		"$dir/cordon/cordon-1.sock"
	wait "$imp"
	kill "$decoy" 2> /dev/null
	grep -q "datagram a-record" "$T/cap2" || { cat "$T/cap2"; fail "twin: nothing taken"; }
}

# A run whose roots reach the sockets' directory is refused.
test_deputy_sock_directory_never_granted() {
	local dir=$T/run
	mkdir -m 700 "$dir" "$dir/cordon"
	export XDG_RUNTIME_DIR=$dir
	cordon --connect-unix "$dir" -- touch ran
	assert_status 125
	assert_stderr_has "never granted"
	assert_absent "$T/ws/ran"
	cordon -w "$dir/cordon" -- touch ran
	assert_status 125
	assert_stderr_has "never granted"
	assert_absent "$T/ws/ran"
	# the twin: granted beside it, it runs
	cordon --connect-unix "$T/out" -- touch ran
	assert_status 0
	assert_exists "$T/ws/ran"
}
