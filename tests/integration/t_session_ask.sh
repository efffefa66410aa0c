# --ask in a session (enforce/session/session_ask.c): before the
# session's proxy refuses a host for a call, the call's caller is asked
# through the protocol ({"ask": HOST, "id": N}, answered by {"op":
# "answer", ...}); only a caller whose run said "ask": true is asked,
# and the command never sees the question.  Driven by the protocol
# client (session_client.py --answer); each effect read from the
# origin's log of what it served, or the profile written.
# session_start is t_session.sh's; cap_require, cap_far, cap_origin,
# cap_track and served are t_capture.sh's and t_hosts.sh's.

# sask_start ARGS...: cap_require, the origin on far.cordon.test ($far,
# $oport), and a session started with ARGS, all ended with the test.
sask_start() {
	cap_require
	cap_far
	cap_origin "$far"
	session_start "$@"
	trap 'stop_sessions; kill "${cap_pids[@]}" 2> /dev/null' EXIT
}

# sask ANSWER COMMAND...: the command run in the session by the protocol
# client answering ANSWER ("" for a client that says nothing of asks);
# its stdout and stderr in $T/stdout and $T/stderr, its status $status.
sask() {
	local answer=$1
	shift
	python3 "$HELPERS/session_client.py" ${answer:+--answer "$answer"} \
		"$sock" "$T/ws" "$@" > "$T/stdout" 2> "$T/stderr" < /dev/null
	status=$?
}

test_session_ask_yes_reaches_the_host() {
	sask_start --ask
	# an address connected to without a name: the connection's
	# question (before the name: its address would be allowed with it)
	sask yes "$HELPERS/dnsconnect" "$far" "$oport"
	assert_status 0
	assert_stdout_has "^reply HTTP/1.0 200 OK"
	assert_stderr_has "^session_client: asked $far:$oport$"
	[ "$(served "^- /index.txt")" = 1 ] ||
		fail "the origin did not serve the address allowed: $(cat "$T/origin.log")"
	sask yes curl -sS -m 20 "http://far.cordon.test:$oport/index.txt"
	assert_status 0
	assert_stdout_has "hello from the origin"
	assert_stderr_has "^session_client: asked far.cordon.test:$oport$"
	[ "$(served "far.cordon.test:$oport /index.txt")" = 1 ] ||
		fail "the origin did not serve the host allowed: $(cat "$T/origin.log")"
	# a name looked up through cordon's resolver (a UDP query: its
	# call found by the query's source port)
	sask yes "$HELPERS/dnsconnect" -q allowed.cordon.test
	assert_status 0
	assert_stderr_has "^session_client: asked allowed.cordon.test$"
	assert_stdout_has "^address 127\.0\.0\.1"
}

test_session_ask_no_refuses_and_says_it() {
	sask_start --ask
	sask no "$HELPERS/dnsconnect" "$far" "$oport"
	assert_status_not 0
	assert_stdout_lacks "^reply"
	assert_stderr_has "^session_client: asked $far:$oport$"
	# the proxy's line, sent as {"line": ...}
	assert_stderr_has "^cordon: denied connect $far:$oport \[proxy\]"
	# -s alone: curl's own message on the reset would race the line
	sask no curl -s -m 20 "http://far.cordon.test:$oport/index.txt"
	assert_status_not 0
	assert_stderr_has "^session_client: asked far.cordon.test:$oport$"
	assert_stderr_has "^cordon: denied connect far.cordon.test:$oport \[proxy\]"
	sask no "$HELPERS/dnsconnect" -q allowed.cordon.test
	assert_stderr_has "^session_client: asked allowed.cordon.test$"
	assert_stdout_has "^nxdomain allowed.cordon.test"
	assert_stderr_has "^cordon: denied lookup allowed.cordon.test \[resolver\]"
	[ "$(served /index.txt)" = 0 ] ||
		fail "the origin served a host refused: $(cat "$T/origin.log")"
}

test_session_ask_only_a_caller_that_answers_is_asked() {
	sask_start --ask
	# the protocol client without "ask": true
	sask "" "$HELPERS/dnsconnect" "$far" "$oport"
	assert_status_not 0
	assert_stderr_lacks "^session_client: asked"
	assert_stderr_has "^cordon: denied connect $far:$oport \[proxy\]"
	# cordon run --session whose stdin is no terminal: not asked either
	srun -- "$HELPERS/dnsconnect" "$far" "$oport" < /dev/null
	assert_status_not 0
	assert_stderr_lacks "allow .* for this run"
	assert_stderr_has "^cordon: denied connect $far:$oport \[proxy\]"
	[ "$(served /index.txt)" = 0 ] ||
		fail "the origin served a host no caller allowed: $(cat "$T/origin.log")"
}

test_session_ask_always_writes_the_profile() {
	sask_start --ask="$T/asked.json"
	sask always curl -sS -m 20 "http://far.cordon.test:$oport/index.txt"
	assert_status 0
	assert_stdout_has "hello from the origin"
	[ "$(served "far.cordon.test:$oport /index.txt")" = 1 ] ||
		fail "the origin did not serve the host allowed: $(cat "$T/origin.log")"
	python3 -c 'import json, sys
sys.exit(0 if sys.argv[2] in json.load(open(sys.argv[1])).get("allow_hosts", []) else 1)' \
		"$T/asked.json" "far.cordon.test:$oport" ||
		fail "the profile has no far.cordon.test:$oport: $(cat "$T/asked.json" 2>&1)"
}

# cordon run --session at a terminal: the question on the caller's own
# terminal, in ask.c's words; y reaches the host, n does not.
test_session_ask_run_at_a_terminal() {
	local answer
	sask_start --ask
	for answer in n y; do
		PYTHONPATH=$HELPERS python3 - "$answer" "$CORDON" run --session "$sid" -- \
			"$HELPERS/dnsconnect" "$far" "$oport" > "$T/stdout" 2>&1 <<'PY'
import sys
from ptydrive import Pty
answer, argv = sys.argv[1], sys.argv[2:]
t = Pty(argv)
t.expect(rb"cordon: allow [^ ]* for this run\? \[y/N/always\] ")
t.send(answer + "\n", rb"\n")
t.close(b"")
PY
		status=$?
		assert_stdout_has "cordon: allow $far:$oport for this run? \[y/N/always\]"
		[ "$(served "^- /index.txt")" = "$([ "$answer" = y ] && echo 1 || echo 0)" ] ||
			fail "answered $answer: the origin served $(served "^- /index.txt"): $(cat "$T/stdout")"
	done
	assert_stdout_has "^reply HTTP/1.0 200 OK"
}
