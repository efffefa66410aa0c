# Network: off by default (TCP ports through Landlock, the rest seccomp,
# and a network namespace of its own); ports and --net in the host's.

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

# bind_py PORT: bind 127.0.0.1:PORT and listen; say on stdout what
# happened ("listening PORT", or "bind: ERRNO" and status 3), then hold
# until stdin closes, so that the port can be looked at from outside
# while the process lives.
bind_py='import socket, sys
s = socket.socket()
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
    s.listen(1)
    print("listening", s.getsockname()[1], flush=True)
    code = 0
except OSError as e:
    print("bind:", e.errno, flush=True)
    code = 3
sys.stdin.read()
sys.exit(code)'

# bind_held PORT CORDON-OPTIONS...: bind_py PORT under cordon; once it has
# said what happened, $outside is "listening" when a connection from
# outside reaches 127.0.0.1:PORT, else "refused"; then it ends.  Sets
# $status, $T/stdout and $T/stderr as cordon does.
bind_held() {
	local port=$1 pid i
	shift
	rm -f "$T/hold" && mkfifo "$T/hold" || fail "cannot make $T/hold"
	"$CORDON" "$@" -- python3 -c "$bind_py" "$port" < "$T/hold" \
		> "$T/stdout" 2> "$T/stderr" &
	pid=$!
	exec 8> "$T/hold"
	for i in $(seq 100); do
		[ -s "$T/stdout" ] && break
		sleep 0.05
	done
	if (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; then
		outside=listening
	else
		outside=refused
	fi
	exec 8>&-
	wait "$pid"
	status=$?
}

free_port() {
	python3 -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

test_bind_port_list() {
	command -v python3 >/dev/null || skip "SKIP: no python3 to bind with"
	port=$(free_port) || fail "no free port"
	# a port not in the list: bind() itself fails with EACCES (13),
	# the shim says why, and nothing listens there
	bind_held "$port" --bind 1 --log "$T/log.jsonl"
	assert_status 3
	assert_content "$T/stdout" "bind: 13"
	assert_stderr_has "denied bind 127.0.0.1:$port \[bind\] (TCP port $port is not among the bind ports 1); allow with --bind $port"
	grep -qF "\"operation\":\"bind\",\"destination\":\"127.0.0.1:$port\"" \
		"$T/log.jsonl" || fail "no record of the bind"
	[ "$outside" = refused ] || { show; fail "something listened on $port"; }
	# the kernel alone refuses it too
	bind_held "$port" --no-shim --bind 1
	assert_status 3
	assert_content "$T/stdout" "bind: 13"
	[ "$outside" = refused ] || { show; fail "something listened on $port (--no-shim)"; }
	# the twins: that port in the list, and any port with 0 listed
	bind_held "$port" --bind "$port"
	assert_status 0
	assert_content "$T/stdout" "listening $port"
	[ "$outside" = listening ] || { show; fail "nothing listened on $port"; }
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

# With the network off the command has a network namespace of its own:
# the host's sockets (/proc/net/tcp lists the listener outside) are not
# seen there; with --net they are.
test_network_off_hides_the_hosts_sockets() {
	local hex
	start_listener
	hex=$(printf ':%04X ' "$port")
	plain cat /proc/net/tcp
	assert_stdout_has "$hex"
	cordon -- cat /proc/net/tcp
	assert_status 0
	assert_stdout_lacks "$hex"
	cordon --net -- cat /proc/net/tcp
	assert_stdout_has "$hex"
	kill "$listener_pid" 2> /dev/null
	wait "$listener_pid" 2> /dev/null
	return 0
}
