# Guarantees, each held by whatever mechanism this kernel has: on a
# kernel whose Landlock lacks a right (Debian 12's 6.1 has ABI 2), the
# namespaces, the filter and the broker cordon builds anyway hold the
# same guarantee, so cordon runs, and a static program inside still
# cannot truncate, connect, reach an abstract socket or signal outside.
# Each is checked from outside, with its twin that succeeds bare.  The
# older Landlock is fakeabi's (the real kernel's rulesets, the version
# query answered with the older number: rights newer than it are never
# asked for).

need_helper() {
	[ -x "$HELPERS/$1" ] || fail "helper $1 was not built"
}

# under_abi N [cordon options] -- COMMAND...: cordon as on a kernel whose
# Landlock is ABI N; sets $status, $T/stdout, $T/stderr.
under_abi() {
	local abi=$1
	shift
	need_helper fakeabi
	"$HELPERS/fakeabi" "$abi" -- "$CORDON" "$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

test_guarantee_abi2_runs_with_no_option() {
	under_abi 2 -- touch "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
	assert_stderr_lacks "refusing to run"
}

test_guarantee_truncation_outside_held_by_read_only_mounts() {
	need_helper escape
	printf 'old\n' > "$T/out/victim"
	printf 'old\n' > "$T/out/twin"
	under_abi 2 --read "$T/out" -- "$HELPERS/escape" truncate "$T/out/victim"
	assert_status 1
	assert_stdout_has '^fail E' # it ran, and its truncate failed
	assert_content "$T/out/victim" "old"
	# the twins: bare, and granted, the same call truncates
	plain "$HELPERS/escape" truncate "$T/out/twin"
	assert_status 0
	[ ! -s "$T/out/twin" ] || fail "the bare truncate did not truncate"
	printf 'old\n' > "$T/out/twin"
	under_abi 2 --write "$T/out" -- "$HELPERS/escape" truncate "$T/out/twin"
	assert_status 0
	[ ! -s "$T/out/twin" ] || fail "the granted truncate did not truncate"
}

test_guarantee_tcp_with_network_off_held_without_landlock_tcp() {
	need_helper inetpeer
	start_listener -t 4
	under_abi 2 -- "$HELPERS/inetpeer" tcp 127.0.0.1 "$port"
	assert_status 1
	assert_stdout_has '^fail E' # it ran, and its connect failed
	plain "$HELPERS/inetpeer" tcp 127.0.0.1 "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections (1: the twin's)"
}

test_guarantee_abstract_socket_outside_held_by_the_broker() {
	need_helper unixpeer
	local name="cordon-it-$$-$RANDOM"
	start_listener -a "$name" -t 6
	# the network off (its own namespace) and shared (the broker alone)
	under_abi 2 -- "$HELPERS/unixpeer" connect "@$name"
	assert_status 1
	assert_stdout_has '^fail E' # it ran, and its connect failed
	under_abi 2 --net -- "$HELPERS/unixpeer" connect "@$name"
	assert_status 1
	assert_stdout_has '^fail E'
	plain "$HELPERS/unixpeer" connect "@$name"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections (1: the twin's)"
}

test_guarantee_signal_outside_held_by_the_pid_namespace() {
	sleep 30 &
	local victim=$!
	under_abi 5 --net -- sh -c "kill -TERM $victim"
	assert_status 1 # it ran (abstract sockets, signals held) and failed
	kill -0 "$victim" || fail "the process outside was killed (--net)"
	under_abi 2 -- sh -c "kill -TERM $victim"
	assert_status 1
	kill -0 "$victim" || fail "the process outside was killed"
	plain kill -TERM "$victim"
	assert_status 0
	wait "$victim"
	[ $? -eq 143 ] || fail "the twin kill did not kill"
}

# What only Landlock holds is still refused by name: TCP ports with the
# network shared (--connect), where no namespace of the command's own
# stands in front of the host's network.
test_guarantee_tcp_ports_need_landlock_tcp() {
	under_abi 3 --connect 443 -- touch "$T/ws/ran"
	assert_status 125
	assert_absent "$T/ws/ran"
	assert_stderr_has "refusing to run: the kernel cannot enforce TCP connect and bind rules (needs Landlock ABI 4 (Linux 6.7); this is .*Landlock ABI 3)"
	[ "$(grep -c 'refusing to run' "$T/stderr")" -eq 1 ] ||
		{ show; fail "not one refusal: what other mechanisms hold was refused"; }
	# the twin: this kernel's own ABI runs it
	cordon --connect 443 -- touch "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
}

test_guarantee_best_effort_names_only_what_nothing_holds() {
	under_abi 2 --connect 443 --best-effort -- true
	assert_status 0
	assert_stderr_has "WARNING: --best-effort: NOT ENFORCED: TCP connect and bind rules (needs Landlock ABI 4"
	assert_stderr_lacks "truncation"
	assert_stderr_lacks "signals to processes outside"
	assert_stderr_lacks "abstract UNIX sockets"
	assert_stderr_lacks "device ioctls"
}

# Without namespaces the guarantees they held have no mechanism left on
# an old Landlock: refused, each named with what would hold it.
test_guarantee_without_namespaces_names_what_would_hold_each() {
	need_helper nolandlock
	need_helper fakeabi
	"$HELPERS/nolandlock" --no-namespaces -- "$HELPERS/fakeabi" 2 -- \
		"$CORDON" -- touch "$T/ws/ran" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_absent "$T/ws/ran"
	assert_stderr_has "refusing to run: the kernel cannot enforce signals to processes outside (needs Landlock ABI 6 (Linux 6.12), or .*namespaces"
	assert_stderr_has "refusing to run: the kernel cannot enforce truncation of files outside the writable roots (needs Landlock ABI 3 (Linux 6.2), or .*namespaces"
	assert_stderr_lacks "abstract UNIX sockets"
}

test_guarantee_probe_says_what_holds_each() {
	need_helper fakeabi
	"$HELPERS/fakeabi" 2 -- "$CORDON" probe > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_stdout_has '^landlock  signals to processes outside  *held  *held by the pid layer (processes outside (/proc, pids)); Landlock needs Landlock ABI 6'
	assert_stdout_has '^landlock  truncation of files outside the writable roots  *held  *held by the mount layer'
	assert_stdout_lacks 'MISSING'
	# the twin: this kernel's Landlock holds them itself
	cordon probe
	assert_stdout_has '^landlock  signals to processes outside .* available'
}
