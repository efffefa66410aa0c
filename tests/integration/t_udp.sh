# UDP: off with the network off (the network namespace and the filter,
# and Landlock where it has UDP, ABI 10), and with the host's network
# only to the UDP ports granted (--connect udp:PORT, --bind udp:PORT),
# which Landlock alone holds: where the kernel lacks its UDP rights,
# such a grant is refused by name (125).  Each datagram is counted by a
# listener outside; the attempts are a static binary (inetpeer: no shim
# sees it) and, for the lines, python.

udp_py='import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(b"hi", ("127.0.0.1", int(sys.argv[1])))'

# another port than the listener's, for a grant that is not its
other_port() {
	echo $(($1 ^ 1))
}

test_udp_datagram_outside_gets_nothing_with_network_off() {
	start_listener -u
	cordon -- "$HELPERS/inetpeer" udp 127.0.0.1 "$port"
	assert_status_not 0
	wait_listener
	[ "$contacts" = 0 ] || fail "the listener saw $contacts datagrams"
	# the twin: the same binary, bare, reaches it
	start_listener -u
	plain "$HELPERS/inetpeer" udp 127.0.0.1 "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the twin: $contacts datagrams"
}

# The host's network with another UDP port granted: a datagram to the
# listener's port gets nothing, sent or connected; the port granted
# is reached.  Only Landlock (ABI 10) can hold it: elsewhere refused.
test_udp_other_port_granted_gets_nothing() {
	local mode other
	if ! kernel_has udp; then
		start_listener -u
		other=$(other_port "$port")
		cordon --connect "udp:$other" -- "$HELPERS/inetpeer" udp 127.0.0.1 "$port"
		assert_status 125
		assert_stderr_has "refusing to run: no UDP beyond the grant: nothing here holds it; it needs Landlock ABI 10 (Linux 7.2)"
		wait_listener
		[ "$contacts" = 0 ] || fail "the listener saw $contacts datagrams"
		skip "SKIP: UDP ports need Landlock ABI 10 (Linux 7.2): refused by name here (checked)"
	fi
	for mode in udp udpconnect; do
		start_listener -u
		other=$(other_port "$port")
		cordon --connect "udp:$other" -- "$HELPERS/inetpeer" $mode 127.0.0.1 "$port"
		assert_status_not 0
		assert_stdout_has "fail EACCES"
		wait_listener
		[ "$contacts" = 0 ] || fail "$mode: the listener saw $contacts datagrams"
		# the twin: the listener's own port granted, reached
		start_listener -u
		cordon --connect "udp:$port" -- "$HELPERS/inetpeer" $mode 127.0.0.1 "$port"
		assert_status 0
		wait_listener
		[ "$contacts" = 1 ] || fail "$mode: granted: $contacts datagrams"
	done
}

# udp_try [CORDON OPTIONS]: the static peer sends a datagram to a fresh
# listener under `cordon OPTIONS --`, each PORT in them its port; sets
# $status and $contacts.
udp_try() {
	local a args=()
	start_listener -u
	for a in "$@"; do
		args+=("${a//PORT/$port}")
	done
	cordon "${args[@]}" -- "$HELPERS/inetpeer" udp 127.0.0.1 "$port"
	wait_listener
}

# The grant's spellings: a suffix, a list after a prefix, a profile.
test_udp_port_spellings_and_profile() {
	kernel_has udp || skip "SKIP: UDP ports need Landlock ABI 10 (Linux 7.2)"
	udp_try --connect "PORT/udp"
	assert_status 0
	[ "$contacts" = 1 ] || fail "PORT/udp: $contacts datagrams"
	udp_try --connect "udp:1,PORT"
	assert_status 0
	[ "$contacts" = 1 ] || fail "udp:1,PORT: $contacts datagrams"
	printf '{"connect": ["udp:PORT"]}\n' > "$T/udp.json.in"
	start_listener -u
	sed "s/PORT/$port/" "$T/udp.json.in" > "$T/udp.json"
	cordon -p "$T/udp.json" -- "$HELPERS/inetpeer" udp 127.0.0.1 "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "profile: $contacts datagrams"
	# a TCP grant is not a UDP one
	udp_try --connect "udp:1,tcp:PORT"
	assert_status_not 0
	[ "$contacts" = 0 ] || fail "tcp:PORT let UDP through: $contacts datagrams"
}

test_udp_bad_grant_is_one_line() {
	cordon --connect "udp:" -- true
	assert_status 125
	assert_stderr_has "cordon: --connect 'udp:': expected ports like 80,443,8000-8010 or udp:53"
	cordon --bind "53/sctp" -- true
	assert_status 125
	assert_stderr_has "cordon: --bind '53/sctp': expected ports"
}

# bind: the port --bind udp:PORT names, no other.
test_udp_bind_only_the_granted_port() {
	local p1 p2
	kernel_has udp || skip "SKIP: UDP ports need Landlock ABI 10 (Linux 7.2)"
	p1=$((20000 + RANDOM % 20000))
	p2=$(other_port "$p1")
	cordon --bind "udp:$p2" -- "$HELPERS/inetpeer" udpbind 127.0.0.1 "$p1"
	assert_status_not 0
	assert_stdout_has "fail EACCES"
	cordon --bind "udp:$p1" -- "$HELPERS/inetpeer" udpbind 127.0.0.1 "$p1"
	assert_status 0
	assert_stdout_has "^ok$"
}

# The line of a refused datagram names the grant; pasted as printed,
# the datagram arrives.
test_udp_denial_line_pasted_works() {
	local other allow
	kernel_has udp || skip "SKIP: UDP ports need Landlock ABI 10 (Linux 7.2)"
	start_listener -u -t 10
	other=$(other_port "$port")
	cordon --connect "udp:$other" -- python3 -c "$udp_py" "$port"
	assert_status_not 0
	assert_stderr_has "denied send 127.0.0.1:$port \[sendto\] (UDP port $port is not among the UDP connect ports $other); allow with --connect udp:$port"
	allow=$(sed -n 's/.*\[sendto\].*; allow with \(--connect [^ ]*\)$/\1/p' "$T/stderr" | head -n 1)
	[ "$allow" = "--connect udp:$port" ] || { show; fail "no option in the line: '$allow'"; }
	cordon --connect "udp:$other" $allow -- python3 -c "$udp_py" "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "pasted: $contacts datagrams"
}

# cordon learn: a datagram the policy refuses is learned as its port,
# and the profile then lets it through.
test_udp_learned_as_a_port() {
	kernel_has udp || skip "SKIP: UDP ports need Landlock ABI 10 (Linux 7.2)"
	start_listener -u -t 10
	"$CORDON" learn -o "$T/learned.json" -- python3 -c "$udp_py" "$port" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	grep -q "\"udp:$port\"" "$T/learned.json" || { cat "$T/learned.json"; fail "no udp:$port learned"; }
	grep -q '"net"' "$T/learned.json" && { cat "$T/learned.json"; fail "learned the whole network"; }
	# learn ran the command with the network on: one datagram so far
	cordon -p "$T/learned.json" -- python3 -c "$udp_py" "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 2 ] || fail "learned profile: $contacts datagrams, expected 2"
}
