# Sessions: what no command inside and no other user may do to a
# session's supervisor.

# (session_start, srun, session_calls: t_session.sh)

runuser=$(command -v runuser || echo /usr/sbin/runuser)

test_session_socket_unreachable_from_inside() {
	# the socket's directory readable inside: the socket is there to see
	mkdir -m 700 "$T/run"
	export XDG_RUNTIME_DIR="$T/run"
	mkdir -m 700 "$T/run/cordon"
	session_start --read "$T/run/cordon"
	srun -- true
	# from inside: connect and ask to stop, then to run a command
	srun -- python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("refused", e.errno); sys.exit(0)
s.sendall(b"{\"op\":\"stop\"}\n")
print("connected")' "$sock"
	assert_stdout_has refused
	# checked from outside: the supervisor got no request
	[ "$(session_calls "$sid")" = 2 ] || fail "calls: $(session_calls "$sid")"
	srun -- true
	assert_status 0
}

test_session_socket_never_granted() {
	mkdir -m 700 "$T/run"
	mkdir -p -m 700 "$T/run/cordon"
	XDG_RUNTIME_DIR="$T/run" "$CORDON" session start -w "$T/run/cordon" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_stderr_has "never granted"
	XDG_RUNTIME_DIR="$T/run" "$CORDON" session start \
		--connect-unix "$T/run/cordon" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_stderr_has "socket directory '$T/run/cordon' is never granted"
	[ -z "$(ls "$T/run/cordon")" ] || fail "a socket was left"
	# the twin: without the grant it starts, its socket there (stopped
	# with the same directory)
	export XDG_RUNTIME_DIR="$T/run"
	session_start
	case "$sock" in "$T/run/cordon/"*) ;; *) fail "socket $sock" ;; esac
}

test_session_other_uid_refused() {
	[ "$(id -u)" = 0 ] || skip "SKIP: needs root to act as another user"
	id cordon-test > /dev/null 2>&1 || skip "SKIP: no user cordon-test"
	# root's session, cordon-test's client: cannot even reach it
	session_start
	"$runuser" -u cordon-test -- "$CORDON" run --session "$sid" -- touch /tmp/cordon-it-uid-$$ \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_absent /tmp/cordon-it-uid-$$
	# cordon-test's session, root's client: connects, refused by its
	# credentials, nothing runs
	local d
	d=$(mktemp -d /tmp/cordon-it-uid.XXXXXX)
	chown cordon-test "$d"
	(cd "$d" && "$runuser" -u cordon-test -- env -i HOME=/home/cordon-test \
		PATH="$PATH" "$CORDON" session start --json --idle 300) > "$T/other.json" ||
		fail "cordon-test's session did not start"
	local osid osock
	osid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$T/other.json")
	osock=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["socket"])' "$T/other.json")
	python3 "$HELPERS/session_client.py" --record \
		"/home/cordon-test/.local/state/cordon/sessions/$osid.peer" \
		"$osock" "$d" touch "$d/ran" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	(cd "$d" && "$runuser" -u cordon-test -- env -i HOME=/home/cordon-test \
		"$CORDON" session stop "$osid")
	assert_status 125
	assert_stderr_has "not the session's user"
	assert_absent "$d/ran"
	rm -rf "$d"
}

test_session_pid1_survives_signals_from_inside() {
	session_start
	srun -- sh -c 'for s in TERM HUP USR1 USR2 INT QUIT; do kill -$s 1; done; echo sent'
	assert_stdout_has sent
	srun -- sh -c 'echo still'
	assert_status 0
	assert_stdout_has still
	# the calls themselves take the default actions: TERM ends one
	srun -- sh -c 'kill -TERM $$; echo survived'
	assert_status 143
	assert_stdout_lacks survived
}

test_session_needs_the_pid_namespace() {
	[ -x "$HELPERS/nolandlock" ] || fail "helper nolandlock was not built"
	"$HELPERS/nolandlock" --no-namespaces -- "$CORDON" session start \
		--best-effort > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_stderr_has "a session needs the PID namespace"
	[ ! -s "$T/stdout" ] || fail "an id was printed"
	# the twin: a plain run there runs, with --best-effort
	"$HELPERS/nolandlock" --no-namespaces -- "$CORDON" --best-effort -- \
		touch ran > "$T/stdout" 2> "$T/stderr"
	assert_exists "$T/ws/ran"
}

# Reports from inside are bounded in each call as in a run (and over the
# whole session, four times that); what each call dropped is said in
# its summary and in a record with its call, what the session dropped
# in the log when it ends.
test_session_record_flood_is_bounded() {
	session_start --log "$T/audit.jsonl"
	srun -- "$HELPERS/forge" flood 12000
	assert_status 0
	assert_stderr_has "^cordon: 2000 reports dropped (over the limit of 10000 records or 16 MiB per call)$"
	srun -- "$HELPERS/forge" flood 12000
	assert_status 0
	assert_stderr_has "^cordon: 2000 reports dropped (over the limit of 10000 records or 16 MiB per call)$"
	"$CORDON" session stop "$sid"
	python3 -c 'import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
shim = [r for r in recs if r["source"] == "shim"]
own = [r for r in recs if r["source"] == "launcher"]
assert len(shim) == 20000, len(shim)
calls = sorted((r["call"], r["dropped"], r["per"]) for r in own if "call" in r)
assert calls == [(1, 2000, "call"), (2, 2000, "call")], own
whole = [r for r in own if "call" not in r]
assert len(whole) == 1 and whole[0]["dropped"] == 4000, own
assert whole[0]["per"] == "session" and whole[0]["limit_records"] == 40000, own
assert all(r["session"] == sys.argv[2] and r["of"] == "shim" for r in own), own' "$T/audit.jsonl" "$sid" ||
		fail "the flood was not bounded, or not said"
}
