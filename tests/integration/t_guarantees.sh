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
	assert_stderr_has "refusing to run: no TCP beyond the grant: nothing here holds it; it needs Landlock ABI 4 (Linux 6.7) (this is .*Landlock ABI 3)"
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
	# exactly the one guarantee nothing holds, and nothing else
	assert_stderr_has "^cordon: WARNING: --best-effort: NOT ENFORCED: no TCP beyond the grant (needs Landlock ABI 4 (Linux 6.7)) \[.*Landlock ABI 2\]$"
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
	assert_stderr_has "refusing to run: no signal to processes outside: nothing here holds it; it needs Landlock ABI 6 (Linux 6.12) or the PID namespace (.*namespaces"
	assert_stderr_has "refusing to run: truncate only under the writable roots: nothing here holds it; it needs Landlock ABI 3 (Linux 6.2) or the mount namespace (.*namespaces"
	# the broker holds abstract sockets, the filter TCP and SysV IPC
	assert_stderr_lacks "abstract UNIX socket"
	assert_stderr_lacks "TCP"
	assert_stderr_lacks "SysV"
}

test_guarantee_probe_says_what_holds_each() {
	need_helper fakeabi
	"$HELPERS/fakeabi" 2 -- "$CORDON" probe > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	# the guarantees first, each with what holds it here
	assert_stdout_has '^GUARANTEE  *HELD BY$'
	assert_stdout_has '^no signal to processes outside  *held by the PID namespace$'
	assert_stdout_has '^truncate only under the writable roots  *held by the mount namespace$'
	assert_stdout_has '^landlock  signals to processes outside  *held  *held by the PID namespace; this needs Landlock ABI 6'
	assert_stdout_has '^landlock  truncation of files outside the writable roots  *held  *held by the mount namespace'
	assert_stdout_lacks 'MISSING'
	assert_stdout_lacks 'NOT HELD'
	# the twin: this kernel's Landlock holds them too
	cordon probe
	assert_stdout_has '^no signal to processes outside  *held by Landlock and the PID namespace$'
	assert_stdout_has '^landlock  signals to processes outside .* available'
}

# Without user namespaces (a host where unshare fails: nolandlock
# --no-namespaces), what Landlock and the filter hold is enforced.
# nons [cordon options] -- COMMAND...: cordon on such a host; sets
# $status, $T/stdout, $T/stderr.
nons() {
	need_helper nolandlock
	"$HELPERS/nolandlock" --no-namespaces -- "$CORDON" "$@" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

# What nothing holds without namespaces on this kernel, one a line,
# sorted: each needs the mount or the PID namespace.
unheld_without_namespaces() {
	printf '%s\n' \
		"change metadata only under the writable roots" \
		"no /dev/shm of the host" \
		"no /proc view of processes outside (listing, command lines)" \
		"no program mapped from a non-exec root" \
		"no terminal of the host (other ptys)" \
		"protected paths in writable roots stay read-only" | LC_ALL=C sort
}

test_guarantee_without_namespaces_refusal_names_exactly_the_unheld() {
	nons -- touch "$T/ws/ran"
	assert_status 125
	assert_absent "$T/ws/ran"
	sed -n 's/^cordon: refusing to run: \(.*\): nothing here holds it; it needs .*/\1/p' \
		"$T/stderr" | LC_ALL=C sort > "$T/named"
	unheld_without_namespaces > "$T/expected"
	diff "$T/expected" "$T/named" || { show; fail "the refusal names another set"; }
	[ "$(grep -c '^cordon: refusing to run: ' "$T/stderr")" -eq 6 ] ||
		{ show; fail "a refusal line that names no guarantee"; }
	assert_stderr_has "refusing to run: no /proc view of processes outside (listing, command lines): nothing here holds it; it needs the PID namespace ("
	# --best-effort's banner: the same six, nothing else
	nons --best-effort -- touch "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
	grep '^cordon: WARNING: --best-effort: NOT ENFORCED: ' "$T/stderr" |
		sed 's/^cordon: WARNING: --best-effort: NOT ENFORCED: //; s/ \[[^]]*\]$//' |
		sed 's/ (needs [^;]*)\(; \|$\)/\n/g' | sed '/^$/d' | LC_ALL=C sort > "$T/named"
	diff "$T/expected" "$T/named" || { show; fail "the banner names another set"; }
	# the twin: with namespaces, the same run is whole
	rm "$T/ws/ran"
	cordon -- touch "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
	assert_stderr_lacks "refusing to run"
}

# The files: a secret under $HOME is not read (copied into the
# workspace), nothing outside is written, created or truncated; each
# call made bare succeeds.
test_guarantee_without_namespaces_files_outside_are_held() {
	need_helper breakout
	printf 'secret-%s\n' "$RANDOM" > "$T/out/secret"
	printf 'old\n' > "$T/out/victim"
	nons --best-effort -- "$HELPERS/breakout" copy "$T/out/secret" "$T/ws/loot"
	assert_status 1
	assert_stdout_has '^fail E'
	[ ! -e "$T/ws/loot" ] || fail "the secret reached the workspace"
	nons --best-effort -- "$HELPERS/breakout" write "$T/out/victim" forged
	assert_status 1
	nons --best-effort -- "$HELPERS/breakout" create "$T/out/new"
	assert_status 1
	nons --best-effort -- "$HELPERS/breakout" truncate "$T/out/victim"
	assert_status 1
	assert_content "$T/out/victim" "old"
	assert_absent "$T/out/new"
	# the twins, bare
	plain "$HELPERS/breakout" copy "$T/out/secret" "$T/ws/loot"
	assert_status 0
	cmp -s "$T/out/secret" "$T/ws/loot" || fail "the bare copy did not copy"
	plain "$HELPERS/breakout" create "$T/out/new"
	assert_status 0
	assert_exists "$T/out/new"
	plain "$HELPERS/breakout" write "$T/out/victim" forged
	assert_status 0
	[ "$(head -c 6 "$T/out/victim")" = forged ] || fail "the bare write did not write"
	plain "$HELPERS/breakout" truncate "$T/out/victim"
	assert_status 0
	[ ! -s "$T/out/victim" ] || fail "the bare truncate did not truncate"
}

# The network, off: no TCP connection and no UDP datagram reaches a
# listener outside (the listener counts); bare, each does.
test_guarantee_without_namespaces_network_outside_is_held() {
	need_helper inetpeer
	start_listener -t 4
	nons --best-effort -- "$HELPERS/inetpeer" tcp 127.0.0.1 "$port"
	assert_status 1
	assert_stdout_has '^fail E'
	plain "$HELPERS/inetpeer" tcp 127.0.0.1 "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the TCP listener saw $contacts connections (1: the twin's)"
	start_listener -u -t 4
	nons --best-effort -- "$HELPERS/inetpeer" udp 127.0.0.1 "$port"
	assert_status 1
	assert_stdout_has '^fail E'
	plain "$HELPERS/inetpeer" udp 127.0.0.1 "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the UDP listener saw $contacts datagrams (1: the twin's)"
}

# Processes outside: no signal reaches one (Landlock's signal scope),
# no SysV segment of one is attached (the filter); bare, both are.
test_guarantee_without_namespaces_processes_outside_are_held() {
	need_helper breakout
	local key=$((0x5e000000 + RANDOM))
	sleep 30 &
	local victim=$!
	nons --best-effort -- "$HELPERS/breakout" kill "$victim"
	assert_status 1
	assert_stdout_has '^fail EPERM'
	kill -0 "$victim" || fail "the process outside was killed"
	"$HELPERS/breakout" shm-create "$key" old > /dev/null || fail "shm-create"
	nons --best-effort -- "$HELPERS/breakout" shm-write "$key" forged
	local sandboxed=$status
	plain "$HELPERS/breakout" shm-read "$key"
	local seen
	seen=$(head -1 "$T/stdout")
	plain "$HELPERS/breakout" shm-write "$key" forged
	local bare=$status
	"$HELPERS/breakout" shm-read "$key" > "$T/bare"
	"$HELPERS/breakout" shm-rm "$key" > /dev/null
	[ "$sandboxed" -eq 1 ] || fail "the sandboxed shm-write exited $sandboxed"
	[ "$seen" = old ] || fail "the segment outside holds '$seen'"
	[ "$bare" -eq 0 ] && [ "$(head -1 "$T/bare")" = forged ] ||
		fail "the bare shm-write did not write"
	# the twin kill
	plain "$HELPERS/breakout" kill "$victim"
	assert_status 0
	wait "$victim"
	[ $? -eq 143 ] || fail "the twin kill did not kill"
}
