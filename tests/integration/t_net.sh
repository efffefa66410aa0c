# Network: off by default; TCP ports through Landlock, the rest seccomp.

tcp_connect='exec 3<>/dev/tcp/127.0.0.1/$0 && echo hi >&3'
udp_send='echo hi > /dev/udp/127.0.0.1/$0'

test_tcp_refused_with_network_off() {
	start_listener
	cordon -- bash -c "$tcp_connect" "$port"
	assert_status_not 0
	wait_listener
	[ "$contacts" = 0 ] || fail "the listener saw $contacts connections"
}

test_tcp_allowed_with_net() {
	start_listener
	cordon --net -- bash -c "$tcp_connect" "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections"
}

test_tcp_allowed_with_workspace_net_mode() {
	start_listener
	cordon -m workspace-net -- bash -c "$tcp_connect" "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections"
}

test_tcp_connect_port_list() {
	start_listener
	cordon --connect "1,$port" -- bash -c "$tcp_connect" "$port"
	assert_status 0
	cordon --connect 1 -- bash -c "$tcp_connect" "$port"
	assert_status_not 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections"
}

test_udp_refused_with_network_off_and_with_tcp_ports() {
	start_listener -u
	cordon -- bash -c "$udp_send" "$port"
	assert_status_not 0
	cordon --connect "$port" -- bash -c "$udp_send" "$port"
	assert_status_not 0
	wait_listener
	[ "$contacts" = 0 ] || fail "the listener saw $contacts datagrams"
	start_listener -u
	cordon --net -- bash -c "$udp_send" "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts datagrams"
}

test_tcp6_refused_with_network_off() {
	start_listener -6
	cordon -- bash -c 'exec 3<>/dev/tcp/::1/$0' "$port"
	assert_status_not 0
	wait_listener
	[ "$contacts" = 0 ] || fail "the listener saw $contacts connections"
	start_listener -6
	cordon --net -- bash -c 'exec 3<>/dev/tcp/::1/$0' "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections"
}

test_bind_port_list() {
	command -v python3 >/dev/null || skip "SKIP: no python3 to bind with"
	cordon -- python3 -c 'import socket; socket.socket().bind(("127.0.0.1", 0))'
	assert_status_not 0
	cordon --bind 0 -- python3 -c 'import socket; socket.socket().bind(("127.0.0.1", 0))'
	assert_status 0
}

test_signal_to_outside_process_is_refused() {
	sleep 30 &
	victim=$!
	cordon -- kill -TERM "$victim"
	assert_status_not 0
	kill -0 "$victim" || fail "the process outside was killed"
	plain kill -TERM "$victim"
	assert_status 0
	wait "$victim"
	[ $? -eq 143 ] || fail "the twin kill did not kill"
}

test_abstract_unix_socket_outside_is_refused() {
	command -v python3 >/dev/null || skip "SKIP: no python3 to connect with"
	name="cordon-it-$$-$RANDOM"
	start_listener -a "$name"
	conn='import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect("\0"+sys.argv[1])'
	cordon --net -- python3 -c "$conn" "$name"
	assert_status_not 0
	plain python3 -c "$conn" "$name"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections"
}
