# --ask (enforce/run/ask.c, enforce/proxy/proxy_ask.c): a host the
# policy refuses is asked about on the controlling terminal by the
# supervisor, outside the command's reach; y allows it for the run,
# always writes it into the profile --ask names, no (or no answer in
# 30 s) refuses it as it would have been.  Driven through a real pty
# (ptydrive.py); the effect read from the origin's own log of what it
# served.  cap_require, cap_far, cap_origin and served are
# t_capture.sh's and t_hosts.sh's.

# ask_drive ANSWER ARGS...: run cordon ARGS on a new pty; wait for the
# question, then type ANSWER ("-": type nothing, wait for cordon's "no
# answer"); everything the terminal showed into $T/stdout.
ask_drive() {
	local answer=$1
	shift
	PYTHONPATH=$HELPERS python3 - "$answer" "$CORDON" "$@" \
		> "$T/stdout" 2>&1 <<'PY'
import sys
from ptydrive import Pty
answer, argv = sys.argv[1], sys.argv[2:]
t = Pty(argv)
t.expect(rb"for this run\? \[y/N[^]]*\] ")
if answer == "-":
    # ptydrive's steps wait 30 s, the question as long: wait longer
    import os, select, time
    end = time.time() + 60
    while b"no answer: not allowed" not in t.out and time.time() < end:
        if select.select([t.fd], [], [], 1)[0]:
            try:
                d = os.read(t.fd, 4096)
            except OSError:
                d = b""
            if not d:
                break
            t.out += d
else:
    t.send(answer + "\n", rb"\n")
t.close(b"")
PY
	status=$?
}

ask_needs() {
	command -v python3 > /dev/null || skip "SKIP: no python3 for the pty"
	cap_require
}

test_ask_yes_reaches_the_host_for_this_run() {
	ask_needs
	cap_far
	cap_origin "$far"
	ask_drive y --ask -- curl -sS -m 60 "http://far.cordon.test:$oport/index.txt"
	assert_status 0
	assert_stdout_has "cordon: allow far.cordon.test:$oport for this run? \[y/N\] y"
	assert_stdout_has "hello from the origin"
	! grep -q "denied connect" "$T/stdout" || { show; fail "allowed, yet a denial"; }
	[ "$(served "/index.txt")" = 1 ] || fail "the origin did not serve it"
	# the twin: the same run without --ask, stdin no terminal, is
	# refused and reaches nothing
	cordon -- curl -sS -m 10 "http://far.cordon.test:$oport/index.txt" < /dev/null
	assert_status_not 0
	[ "$(served "/index.txt")" = 1 ] || fail "reached without the answer"
}

test_ask_no_refuses_as_without() {
	ask_needs
	cap_far
	cap_origin "$far"
	ask_drive n --ask -- curl -sS -m 60 "http://far.cordon.test:$oport/index.txt"
	assert_stdout_has "cordon: denied connect far.cordon.test:$oport \[proxy\].*allow with --allow-host far.cordon.test:$oport"
	[ "$(served "/index.txt")" = 0 ] || fail "the origin served a host refused"
}

# The command cannot answer: what it writes to the terminal ("y", over
# and over) is output, and it has no way to type (TIOCSTI is refused):
# with no answer from the user, the host is refused.
test_ask_the_command_cannot_answer() {
	ask_needs
	cap_far
	cap_origin "$far"
	ask_drive - --ask -- sh -c '(while :; do printf "y\n" > /dev/tty
		sleep 0.2; done) & curl -sS -m 60 "$1"; kill $!' sh \
		"http://far.cordon.test:$oport/index.txt"
	assert_stdout_has "cordon: no answer: not allowed"
	[ "$(served "/index.txt")" = 0 ] || fail "the command answered the question"
}

test_ask_always_writes_the_profile() {
	ask_needs
	cap_far
	cap_origin "$far"
	ask_drive always "--ask=$T/out/hosts.json" -- \
		curl -sS -m 60 "http://far.cordon.test:$oport/index.txt"
	assert_stdout_has "\[y/N/always\]"
	assert_stdout_has "hello from the origin"
	python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
assert p["allow_hosts"] == [sys.argv[2]], p' "$T/out/hosts.json" \
		"far.cordon.test:$oport" || fail "the profile lacks the host"
	# the profile, without --ask and without a terminal, allows it
	cordon -p "$T/out/hosts.json" -- \
		curl -sS -m 10 "http://far.cordon.test:$oport/index.txt" < /dev/null
	assert_status 0
	[ "$(served "/index.txt")" = 2 ] || fail "the profile did not allow it"
}

test_ask_no_answer_is_no() {
	ask_needs
	cap_far
	cap_origin "$far"
	ask_drive - --ask -- curl -sS -m 60 "http://far.cordon.test:$oport/index.txt"
	assert_stdout_has "cordon: no answer: not allowed"
	assert_stdout_has "cordon: denied connect far.cordon.test:$oport"
	[ "$(served "/index.txt")" = 0 ] || fail "reached without an answer"
}

test_ask_refused_without_a_terminal() {
	cordon --ask -- true < /dev/null
	assert_status 125
	assert_stderr_has "^cordon: --ask needs a terminal: stdin is not one"
	cordon --ask --net -- true
	assert_status 125
	assert_stderr_has "--ask asks about hosts: not with --net"
}

# A name looked up (cordon's resolver asks before its NXDOMAIN): no
# network needed, so it runs in every kernel's guest.
test_ask_a_name_looked_up() {
	ask_needs
	ask_drive y --ask -- "$HELPERS/dnsconnect" -q allowed.cordon.test
	assert_stdout_has "cordon: allow allowed.cordon.test for this run? \[y/N\]"
	assert_stdout_has "^address 127\.0\.0\.1"
	ask_drive n --ask -- "$HELPERS/dnsconnect" -q allowed.cordon.test
	assert_stdout_has "^nxdomain allowed.cordon.test"
	assert_stdout_has "cordon: denied lookup allowed.cordon.test \[resolver\]"
}
