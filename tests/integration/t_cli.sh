# Exit statuses as env(1) and timeout(1); bad input gets one clear line.

test_exit_status_is_the_commands() {
	cordon -- true
	assert_status 0
	cordon -- false
	assert_status 1
	cordon -- sh -c 'exit 42'
	assert_status 42
}

test_exit_status_for_a_signal() {
	cordon -- sh -c 'kill -TERM $$'
	assert_status 143
}

# A signal sent to cordon reaches the command through the namespace's
# init, and the command's own exit status comes back; with --no-shim,
# the same through the launcher itself.
signal_run() { # RUNNER... (a command line ending before the script)
	rm -f ready term
	"$@" sh -c 'trap "echo got > term; exit 7" TERM; echo > ready
		while :; do sleep 0.1; done' > "$T/stdout" 2> "$T/stderr" &
	local pid=$! i=0
	while [ ! -e ready ] && [ "$i" -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -e ready ] || { kill -KILL "$pid"; fail "the command never started"; }
	kill -TERM "$pid"
	# a signal lost on the way must fail the test, not hang it
	(sleep 20 && kill -KILL "$pid") > /dev/null 2>&1 &
	local dog=$!
	wait "$pid"
	status=$?
	kill "$dog" 2> /dev/null
	wait "$dog" 2> /dev/null
}

test_signal_to_cordon_reaches_the_command() {
	signal_run "$CORDON" --
	assert_status 7
	[ "$(cat term 2>/dev/null)" = got ] || { show; fail "no trap ran"; }
	signal_run "$CORDON" --no-shim --
	assert_status 7
	[ "$(cat term 2>/dev/null)" = got ] || { show; fail "no trap ran (--no-shim)"; }
	# the twin: the same script, signalled without cordon
	signal_run env
	assert_status 7
	[ "$(cat term 2>/dev/null)" = got ] || fail "no trap ran unsandboxed"
}

test_not_found_is_127() {
	cordon -- no-such-command-xyz
	assert_status 127
	assert_stderr_has "cordon: 'no-such-command-xyz': command not found"
	cordon -- ./missing
	assert_status 127
}

test_not_executable_is_126() {
	echo 'echo hi' > script && chmod -x script
	cordon -- ./script
	assert_status 126
	plain ./script
	assert_status 126
}

test_bad_option_is_125_with_a_hint() {
	cordon --bogus -- true
	assert_status 125
	assert_stderr_has "cordon: unknown option '--bogus'"
	assert_stderr_has "Try 'cordon --help'"
	assert_stderr_lines 2
	cordon --mode nope -- true
	assert_status 125
	assert_stderr_has "cordon: --mode 'nope': expected read-only"
	cordon --connect 70000 -- true
	assert_status 125
	assert_stderr_has "cordon: --connect '70000': expected ports"
	cordon -w
	assert_status 125
	assert_stderr_has "needs an argument"
}

test_no_command_is_125() {
	cordon
	assert_status 125
	assert_stderr_has "no command given"
}

test_help_documents_every_option() {
	cordon --help
	assert_status 0
	for o in --read --write --exec --mode --no-defaults --net --connect \
		--bind --env --inherit-env --best-effort --quiet --help \
		--version probe; do
		assert_stdout_has -- "$o"
	done
	cordon --version
	assert_status 0
	assert_stdout_has '^cordon [0-9]'
}

test_options_without_double_dash() {
	cordon -m read-only cat /etc/hostname
	assert_status 0
}

test_quiet_drops_notes() {
	cd / || fail cd
	"$CORDON" -m read-only -- true > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	"$CORDON" -- true > "$T/stdout" 2> "$T/stderr"
	assert_stderr_has "the workspace is '/'"
	"$CORDON" -q -- true > "$T/stdout" 2> "$T/stderr"
	assert_stderr_lines 0
}
