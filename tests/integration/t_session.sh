# Sessions: a sandbox prepared once, many commands in it (cordon
# session start, run --session, stop, list).  Every effect is checked
# from outside; each session a test starts is stopped when it ends.

# session_start [OPTIONS]: start a session; $sid, $sock (its socket).
# --idle 300 first, a safety net: a session a test loses ends by itself
# (a later --idle wins).
session_start() {
	"$CORDON" session start --json --idle 300 "$@" > "$T/start.json" 2> "$T/start.err" ||
		{ cat "$T/start.err"; fail "session start failed"; }
	sid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$T/start.json")
	sock=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["socket"])' "$T/start.json")
	echo "$sid" >> "$T/sessions"
	trap stop_sessions EXIT
}

stop_sessions() {
	local s
	for s in $(cat "$T/sessions" 2> /dev/null); do
		"$CORDON" session stop "$s" > /dev/null 2>&1
	done
}

# srun ARGS...: cordon run --session $sid ARGS, as cordon() does.
srun() {
	"$CORDON" run --session "$sid" "$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

session_calls() { # the session's count of calls, asked from outside
	"$CORDON" session list --json | python3 -c 'import json, sys
for s in json.load(sys.stdin):
    if s["id"] == sys.argv[1]: print(s["calls"])' "$1"
}

test_session_start_json_and_private_socket() {
	session_start
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["enforcement"] == "full" and d["policy"]["mode"] == "workspace-write", d
assert d["policy"]["net"] == "off", d' "$T/start.json" || fail "not the document"
	[ "$(stat -c %a "$sock")" = 600 ] || fail "socket mode $(stat -c %a "$sock")"
	[ "$(stat -c %a "${sock%/*}")" = 700 ] || fail "dir mode"
	[ "$(stat -c %u "$sock")" = "$(id -u)" ] || fail "socket owner"
	"$CORDON" session list > "$T/stdout"
	assert_stdout_has "^$sid workspace-write"
}

test_session_runs_inside_the_boundary() {
	session_start
	srun -- sh -c 'touch made; touch "$0/escaped"' "$T/out"
	assert_status_not 0
	assert_exists "$T/ws/made"
	assert_absent "$T/out/escaped"
	assert_stderr_has "denied write"
	# the twin: bare, the same command writes there
	plain sh -c 'touch "$0/escaped"' "$T/out"
	assert_exists "$T/out/escaped"
	srun -- sh -c 'exit 7'
	assert_status 7
	srun -- sh -c 'kill -TERM $$'
	assert_status 143
	srun -- no-such-command-here
	assert_status 127
	assert_stderr_has "command not found"
}

test_session_state_lives_between_calls_and_stop_ends_it() {
	local tag="3$RANDOM$RANDOM"
	session_start
	srun -- sh -c "echo kept > state; sleep $tag > /dev/null 2>&1 & echo \$! > bgpid"
	assert_status 0
	srun -- cat state
	assert_stdout_has '^kept$'
	srun -- sh -c 'kill -0 "$(cat bgpid)" && echo alive'
	assert_stdout_has '^alive$'
	pgrep -f "sleep $tag" > /dev/null || fail "no background process seen from outside"
	"$CORDON" session stop "$sid"
	[ $? = 0 ] || fail "stop failed"
	! pgrep -f "sleep $tag" > /dev/null || fail "the background process outlived stop"
	assert_absent "$sock"
	srun -- true
	assert_status 125
}

test_session_descriptors_of_the_caller() {
	session_start
	echo piped | "$CORDON" run --session "$sid" -- sh -c 'cat; echo err >&2' \
		> "$T/o" 2> "$T/e"
	[ $? = 0 ] || fail "status"
	assert_content "$T/o" piped
	assert_content "$T/e" err
}

test_session_cwd_and_env_per_call() {
	mkdir -p "$T/ws/sub"
	session_start
	srun --cwd sub -- pwd
	assert_status 0
	assert_stdout_has "^$T/ws/sub\$"
	srun --cwd sub -- env
	assert_stdout_has "^PWD=$T/ws/sub\$"
	# outside what the session may see: refused, nothing ran
	srun --cwd "$T/out" -- touch ran
	assert_status 125
	assert_stderr_has "outside what the session may see"
	assert_absent "$T/out/ran"
	SECRET=s3 MINE=m srun -e MINE -e SET=v -- env
	assert_status 0
	assert_stdout_has '^MINE=m$'
	assert_stdout_has '^SET=v$'
	assert_stdout_lacks s3
	srun -e LD_PRELOAD=/x -- true
	assert_status 125
	srun -w /tmp -- true
	assert_status 125
	assert_stderr_has "the policy is the session's"
}

test_session_signals_forwarded() {
	local tag="4$RANDOM$RANDOM"
	session_start
	"$CORDON" run --session "$sid" -- sleep "$tag" > /dev/null 2>&1 &
	local client=$!
	for _ in $(seq 100); do
		pgrep -f "^sleep $tag" > /dev/null && break
		sleep 0.05
	done
	kill -INT "$client"
	wait "$client"
	status=$?
	assert_status 130
	! pgrep -f "^sleep $tag" > /dev/null || fail "the command outlived Ctrl-C"
}

test_session_dead_answers_125_at_once() {
	session_start
	local pid
	pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$T/start.json")
	srun -- true
	assert_status 0
	kill -KILL "$pid"
	# SIGKILL is sent, not done: until the daemon has exited (its
	# files closed, a zombie or gone) a connect still reaches its
	# listening socket, and the call is one that ended under it
	local i state
	for i in $(seq 200); do
		state=$(sed 's/.*) //' "/proc/$pid/stat" 2> /dev/null | cut -c1)
		case $state in "" | Z) break ;; esac
		sleep 0.05
	done
	case $state in "" | Z) ;; *) fail "the daemon $pid outlived SIGKILL" ;; esac
	timeout 10 "$CORDON" run --session "$sid" -- true > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_stderr_has "no such session"
	timeout 10 "$CORDON" run --session 0123456789abcdef -- true > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	timeout 10 "$CORDON" session stop "$sid" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
}

test_session_idle_ends_it() {
	session_start --idle 2
	srun -- true
	assert_status 0
	local i
	for i in $(seq 100); do
		[ -e "$sock" ] || break
		sleep 0.1
	done
	assert_absent "$sock"
	srun -- true
	assert_status 125
}

test_session_two_side_by_side_see_nothing_of_each_other() {
	local tag="5$RANDOM$RANDOM" a b
	mkdir -p "$T/a" "$T/b"
	cd "$T/a" && session_start && a=$sid
	cd "$T/b" && session_start && b=$sid
	cd "$T/ws" || fail "cd"
	sid=$a srun --cwd "$T/a" -- sh -c "echo mine > file; sleep $tag > /dev/null 2>&1 &"
	assert_exists "$T/a/file"
	# b cannot read a's file, nor see its process
	sid=$b srun --cwd "$T/b" -- cat "$T/a/file"
	assert_status_not 0
	assert_stdout_lacks mine
	sid=$b srun --cwd "$T/b" -- pgrep -f "sleep $tag"
	assert_status 1
	# the twins: a sees both; outside sees the process
	sid=$a srun --cwd "$T/a" -- cat "$T/a/file"
	assert_stdout_has mine
	sid=$a srun --cwd "$T/a" -- pgrep -f "sleep $tag"
	assert_status 0
	pgrep -f "sleep $tag" > /dev/null || fail "not running"
}

test_session_records_tagged_with_session_and_call() {
	session_start --log "$T/audit.jsonl"
	srun -- true
	srun -- touch "$T/out/x"
	assert_status_not 0
	"$CORDON" session stop "$sid"
	python3 -c 'import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
mine = [r for r in recs if r.get("path") == sys.argv[3]]
assert mine, recs
assert all(r["session"] == sys.argv[2] and r["call"] == 2 for r in mine), mine' \
		"$T/audit.jsonl" "$sid" "$T/out/x" || fail "records not tagged"
	# and they keep the records' schema (t_schema.sh)
	schema_docs
	schema_valid audit-record "$T/audit.jsonl" --lines
}

test_session_protocol_python_client() {
	session_start
	python3 "$HELPERS/session_client.py" "$sock" "$T/ws" \
		sh -c 'echo via-protocol > p; touch "$0/escaped"; exit 3' "$T/out" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 3
	assert_content "$T/ws/p" via-protocol
	assert_absent "$T/out/escaped"
}

test_schema_session_start_json() {
	schema_docs
	session_start -m ci --idle 60
	schema_valid session-start "$T/start.json"
	sed 's/"net":"off"/"net":"maybe"/' "$T/start.json" > "$T/bad.json"
	schema_invalid session-start "$T/bad.json"
	# session list --json, which holds it
	"$CORDON" session list --json > "$T/list.json" || fail "session list"
	grep -q "\"id\":\"$sid\"" "$T/list.json" || { cat "$T/list.json"; fail "the session is not listed"; }
	schema_valid session-list "$T/list.json"
	sed 's/"calls":[0-9]*/"calls":"none"/' "$T/list.json" > "$T/bad.json"
	schema_invalid session-list "$T/bad.json"
}

# A terminal passes as the call's descriptors: the command reads and
# writes it, and Ctrl-C typed there reaches the command (through the
# client, which forwards it).
test_session_on_a_terminal() {
	local tag="6$RANDOM$RANDOM"
	session_start
	PYTHONPATH=$HELPERS python3 - "$CORDON" "$sid" "$tag" > "$T/stdout" 2>&1 <<'PY'
import os, sys, time
from ptydrive import Pty
cordon, sid, tag = sys.argv[1:]
wrap = ("import signal, subprocess, sys\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "r = subprocess.run(sys.argv[1:])\n"
        "print('status=%d' % r.returncode)\n")
t = Pty([sys.executable, "-c", wrap, cordon, "run", "--session", sid, "--",
         "sh", "-c", "test -t 0 && test -t 1 && echo on-a-tty; read x; echo got-$x"])
t.expect(rb"on-a-tty")
t.send("hello\n", rb"got-hello")
t.expect(rb"status=0")
t = Pty([sys.executable, "-c", wrap, cordon, "run", "--session", sid, "--",
         "sleep", tag])
end = time.time() + 30
while not any(open("/proc/%s/cmdline" % p, "rb").read() == b"sleep\0" + tag.encode() + b"\0"
              for p in os.listdir("/proc") if p.isdigit() and os.path.exists("/proc/%s/cmdline" % p)):
    if time.time() > end:
        t.give_up("the command never started")
    time.sleep(0.05)
t.send("\x03", rb"status=130")
print("ok")
PY
	status=$?
	assert_status 0
	assert_stdout_has '^ok$'
	! pgrep -f "^sleep $tag" > /dev/null || fail "the command outlived Ctrl-C"
}

# A call ends as a plain run does: the summary of its own denials (not
# the session's other calls'), with the options to allow them; pasted
# as printed into a new session's start, the same call succeeds (the
# file appears outside, with its content); the summary also comes
# through the protocol, to the Python client.
test_session_call_summary_and_its_option() {
	session_start
	srun -- sh -c 'echo one > "$0/refused"' "$T/out"
	assert_status_not 0
	srun -- sh -c 'echo two > "$0/again"; echo fine > ok' "$T/out"
	assert_exists "$T/ws/ok"
	assert_absent "$T/out/again"
	assert_stderr_has "^cordon: 1 denial (call 2 of session $sid) reported by the command's processes (the shim), recorded in "
	assert_stderr_has "^cordon:        1  $T/out/again; allow with --write $T/out$"
	assert_stderr_lacks "/refused"
	assert_stderr_has "^cordon: a session's policy is its own from its start"
	local opt
	opt=$(sed -n 's/^cordon: allow all of it with: //p' "$T/stderr")
	[ "$opt" = "--write $T/out" ] || { show; fail "no option line: '$opt'"; }
	# a call with nothing refused says nothing
	srun -- sh -c 'echo quiet > ok2'
	assert_status 0
	[ ! -s "$T/stderr" ] || { show; fail "a clean call printed a summary"; }
	# through the protocol
	python3 "$HELPERS/session_client.py" "$sock" "$T/ws" \
		sh -c 'echo three > "$0/third"' "$T/out" > "$T/stdout" 2> "$T/stderr"
	assert_stderr_has "^cordon: 1 denial (call 4 of session $sid)"
	assert_stderr_has "^cordon: allow all of it with: --write $T/out$"
	assert_absent "$T/out/third"
	# the option as printed, at a new session's start
	# shellcheck disable=SC2086 # the option is pasted as printed
	eval "session_start $opt"
	srun -- sh -c 'echo two > "$0/again"' "$T/out"
	assert_status 0
	assert_content "$T/out/again" two
	[ ! -s "$T/stderr" ] || { show; fail "the granted call printed denials"; }
}

# The proxy's refusal in a session: its line on the caller's stderr
# (once per host and call), and in the call's summary; with the option
# printed, at a new session's start, the origin serves the host.
test_session_proxy_refusal_on_the_callers_stderr() {
	origin_start
	session_start --allow-host "allowed.cordon.test:$oport"
	# -s alone: curl's own message on the reset would race the line
	srun -- curl -s -o /dev/null -w '%{http_code}\n' \
		"http://other.cordon.test:$oport/index.txt" \
		"http://other.cordon.test:$oport/index.txt"
	assert_stdout_has '^000'
	assert_stderr_has "^cordon: denied connect other.cordon.test:$oport \[proxy\] (a host no --allow-host names); allow with --allow-host other.cordon.test:$oport$"
	[ "$(grep -c '^cordon: denied connect' "$T/stderr")" = 1 ] ||
		{ show; fail "not one line for the host"; }
	assert_stderr_has "^cordon: 2 denials (call 1 of session $sid) reported by cordon's supervisor (the broker, the proxy)"
	assert_stderr_has "^cordon: allow all of it with: --allow-host other.cordon.test:$oport$"
	[ "$(served other.cordon.test)" = 0 ] ||
		fail "the origin served the name not allowed"
	# the next call is told again: the lines are per call
	srun -- curl -s -o /dev/null "http://other.cordon.test:$oport/index.txt"
	assert_stderr_has "^cordon: denied connect other.cordon.test:$oport "
	# through the protocol
	python3 "$HELPERS/session_client.py" "$sock" "$T/ws" \
		curl -s -o /dev/null "http://other.cordon.test:$oport/x" \
		> "$T/stdout" 2> "$T/stderr"
	assert_stderr_has "^cordon: denied connect other.cordon.test:$oport \[proxy\]"
	local opt
	opt=$(sed -n 's/^cordon: allow all of it with: //p' "$T/stderr")
	eval "session_start --allow-host allowed.cordon.test:$oport $opt"
	srun -- curl -sS "http://other.cordon.test:$oport/index.txt"
	assert_status 0
	assert_stdout_has "hello from the origin"
	[ "$(served "other.cordon.test:$oport /index.txt")" = 1 ] ||
		fail "the option printed did not let the name through"
}

# A ci session whose daemon is killed (SIGKILL: nothing of it runs to
# clean up) leaves its fresh temp dir behind; the next ci run of the
# same user removes it, and never the temp dir of a session alive.
test_session_ci_dir_of_a_killed_daemon_is_swept() {
	local dpid dir live
	session_start -m ci
	dpid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$T/start.json")
	dir=$(python3 -c 'import json,sys
print([w for w in json.load(open(sys.argv[1]))["policy"]["writable"] if "/cordon/ci/" in w][0])' "$T/start.json")
	srun -- sh -c 'echo left > "$TMPDIR/file"'
	assert_status 0
	assert_content "$dir/tmp/file" left
	kill -KILL "$dpid"
	while kill -0 "$dpid" 2> /dev/null; do sleep 0.05; done
	assert_exists "$dir/tmp/file"
	# another ci session, alive while the sweep runs
	session_start -m ci
	live=$(python3 -c 'import json,sys
print([w for w in json.load(open(sys.argv[1]))["policy"]["writable"] if "/cordon/ci/" in w][0])' "$T/start.json")
	[ "$live" != "$dir" ] || fail "the same dir twice"
	srun -- sh -c 'echo mine > "$TMPDIR/kept"'
	assert_absent "$dir"
	cordon -m ci -q -- true
	assert_status 0
	assert_absent "$dir"
	assert_content "$live/tmp/kept" mine
}

# overlapping SCRIPT [ARG] -- COMMAND...: call 1 runs `sh -c SCRIPT
# ARG` in the background ($T/a.out, $T/a.err); half a second later, call
# 2 runs COMMAND as srun does; both have ended when it returns.
overlapping() {
	local script=$1 apid
	shift
	local args=()
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	"$CORDON" run --session "$sid" -- sh -c "$script" "${args[@]}" \
		> "$T/a.out" 2> "$T/a.err" &
	apid=$!
	sleep 0.5
	srun -- "$@"
	wait "$apid"
}

# Two calls at once, each with a grandchild refused (a subshell's
# child: neither the call's command nor its child): each record is
# tagged with its own call, by the kernel's word on who sent it; and
# each call's summary names its own path only.
test_session_overlapping_calls_tagged_each_its_own() {
	session_start --log "$T/audit.jsonl"
	overlapping 'sleep 1.5; (touch "$0/from-a"; true); true' "$T/out" -- \
		sh -c '(touch "$0/from-b"; true); sleep 1.5; true' "$T/out"
	assert_absent "$T/out/from-a"
	assert_absent "$T/out/from-b"
	python3 -c 'import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
def calls(name):
    return sorted({r.get("call") for r in recs if r.get("path", "").endswith(name)})
assert calls("/from-a") == [1], (calls("/from-a"), recs)
assert calls("/from-b") == [2], (calls("/from-b"), recs)' "$T/audit.jsonl" ||
		fail "the records are not each its own call's"
	grep -q "(call 1 of session $sid)" "$T/a.err" || { cat "$T/a.err"; fail "no summary for call 1"; }
	grep -q "from-a" "$T/a.err" || fail "call 1's summary lacks its path"
	! grep -q "from-b" "$T/a.err" || fail "call 1's summary names call 2's path"
	assert_stderr_has "(call 2 of session $sid)"
	assert_stderr_lacks "from-a"
}

# The proxy's refusal while two calls run: its line on the stderr of the
# call whose process asked (found by its connection), not the other's;
# its record tagged with that call.
test_session_proxy_refusal_goes_to_the_call_that_asked() {
	origin_start
	session_start --allow-host "allowed.cordon.test:$oport" --log "$T/audit.jsonl"
	overlapping 'sleep 2; true' -- \
		sh -c '(curl -s -o /dev/null "http://other.cordon.test:$0/x"; true); true' "$oport"
	assert_stderr_has "^cordon: denied connect other.cordon.test:$oport \[proxy\]"
	assert_stderr_has "(call 2 of session $sid)"
	! grep -q "denied connect" "$T/a.err" || { cat "$T/a.err"; fail "the other call got the line"; }
	python3 -c 'import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
mine = [r for r in recs if r.get("destination", "").startswith("other.cordon.test")]
assert mine and all(r.get("call") == 2 and r.get("client_port") for r in mine), recs' \
		"$T/audit.jsonl" || fail "the proxy's record is not the asking call's"
}

# `cordon run` without --session says what it expects (125) and runs no
# program named run; `cordon -- run` runs that program (the twin: the
# same program, reached, writes its file).
test_session_run_without_session_says_what_it_expects() {
	mkdir -p "$T/ws/bin"
	printf '#!/bin/sh\necho "$@" > "%s"\n' "$T/ws/ran" > "$T/ws/bin/run"
	chmod 755 "$T/ws/bin/run"
	PATH="$T/ws/bin:$PATH" cordon run -- x
	assert_status 125
	assert_stderr_has "^cordon: run needs --session ID (cordon session start prints one); to run a command in a new sandbox: cordon -- COMMAND$"
	assert_absent "$T/ws/ran"
	PATH="$T/ws/bin:$PATH" cordon run
	assert_status 125
	assert_stderr_has "^cordon: run needs --session ID"
	assert_absent "$T/ws/ran"
	PATH="$T/ws/bin:$PATH" cordon -- run x
	assert_status 0
	assert_content "$T/ws/ran" x
}
