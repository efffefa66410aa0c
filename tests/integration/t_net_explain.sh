# Network denials explained, through the launcher: each refused kind
# (a TCP connect with the network off or port-limited, IPv6, a UDP send,
# a socket() the filter refuses,
# an abstract or path-based UNIX socket outside, a raw socket) gets one
# line and one record in --log, and nothing reaches the listener outside
# (its own count); then the same command, rerun with the option taken
# from cordon's own line, reaches it.  The listeners run outside, on
# the host's loopback: with the network off the command has a network
# namespace of its own, where nothing outside is reachable, and the
# option cordon suggests takes it out of it (--connect, --net).

nx_tcp='import socket, sys
socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5).close()'
nx_udp='import socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
socket.socket(fam, socket.SOCK_DGRAM).sendto(b"hi", (sys.argv[1], int(sys.argv[2])))'
nx_unix='import socket, sys
socket.socket(socket.AF_UNIX).connect(sys.argv[1])'
nx_abstract='import socket, sys
socket.socket(socket.AF_UNIX).connect("\0" + sys.argv[1])'
nx_fastopen='import socket, sys
try:
    socket.socket().sendto(b"hi", socket.MSG_FASTOPEN, ("127.0.0.1", int(sys.argv[1])))
except OSError as e:
    print("sendto:", e.errno)
    sys.exit(3)'

nx_need_python() {
	command -v python3 > /dev/null || skip "SKIP: no python3 to connect with"
}

# nx_listen [listener options]: a listener outside, alive long enough
# for a loaded machine; nx_contacts ends it.
nx_listen() {
	start_listener -t 60 "$@"
}

# nx_contacts EXPECTED: wait (up to 10 s) for the listener's count to
# reach EXPECTED, give late arrivals a moment, check it; the listener
# goes on.
nx_contacts() {
	local i
	for i in $(seq 200); do
		[ "$(cat "$T/count" 2> /dev/null)" = "$1" ] && break
		sleep 0.05
	done
	sleep 0.2
	contacts=$(cat "$T/count" 2> /dev/null || echo missing)
	[ "$contacts" = "$1" ] || { show; fail "the listener saw $contacts contacts, expected $1"; }
}

nx_stop() {
	kill "$listener_pid" 2> /dev/null
	wait "$listener_pid" 2> /dev/null
	return 0
}

# nx_one_line REGEX: stderr holds exactly one denial line, matching it.
nx_one_line() {
	local n
	n=$(grep -c '^cordon: denied ' "$T/stderr")
	[ "$n" = 1 ] || { show; fail "$n denial lines, expected 1"; }
	assert_stderr_has "$1"
}

# nx_record OPERATION DESTINATION: the record is in $T/log.jsonl.
nx_record() {
	grep -qF "\"operation\":\"$1\",\"destination\":\"$2\"" "$T/log.jsonl" ||
		{ show; cat "$T/log.jsonl" >&2; fail "no record of $1 $2 in the log"; }
}

# nx_option: the option that cordon's denial line suggests, as cordon
# printed it ("--net", "--connect 8080"); fails when there is none.
nx_option() {
	option=$(sed -n 's/^cordon: denied .*; allow with \(--.*\)$/\1/p' \
		"$T/stderr" | head -n 1)
	[ -n "$option" ] || { show; fail "no option in the denial line"; }
}

# With the network off the command has a network namespace of its own:
# a TCP socket can be made, and its connect() is refused by the port.
test_nx_tcp_connect_refused_with_network_off() {
	nx_need_python
	nx_listen
	cordon --log "$T/log.jsonl" -- python3 -c "$nx_tcp" 127.0.0.1 "$port"
	assert_status 1
	nx_one_line "^cordon: denied connect 127.0.0.1:$port \[connect\] (network is off); allow with --connect $port\$"
	nx_record connect "127.0.0.1:$port"
	# the summary names it too
	grep -v '^cordon: denied' "$T/stderr" | grep -q "127.0.0.1:$port" ||
		{ show; fail "the summary does not name the destination"; }
	nx_contacts 0
	nx_option
	[ "$option" = "--connect $port" ] || fail "the option is '$option'"
	cordon $option --log "$T/log.jsonl" -- python3 -c "$nx_tcp" 127.0.0.1 "$port"
	assert_status 0
	nx_contacts 1
	nx_stop
}

# Without namespaces (--best-effort where the host forbids them) the
# filter refuses TCP sockets too: the socket() is explained, and the
# port it would have reached is not known yet, so --net is the option.
test_nx_tcp_socket_refused_without_namespaces() {
	nx_need_python
	[ -x "$HELPERS/nolandlock" ] || fail "helper nolandlock was not built"
	nx_listen
	"$HELPERS/nolandlock" --no-namespaces -- "$CORDON" --best-effort \
		--log "$T/log.jsonl" -- python3 -c "$nx_tcp" 127.0.0.1 "$port" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 1
	nx_one_line '^cordon: denied socket AF_INET SOCK_STREAM IPPROTO_TCP \[socket\] (network is off; --connect PORT would allow TCP to PORT only); allow with --net$'
	nx_record socket "AF_INET SOCK_STREAM IPPROTO_TCP"
	nx_contacts 0
	nx_option
	"$HELPERS/nolandlock" --no-namespaces -- "$CORDON" --best-effort \
		$option -- python3 -c "$nx_tcp" 127.0.0.1 "$port" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	nx_contacts 1
	nx_stop
}

# curl, as a user meets it.
test_nx_curl_gets_a_line() {
	command -v curl > /dev/null || skip "SKIP: no curl"
	nx_listen
	cordon --log "$T/log.jsonl" -- curl -sS -m 5 "http://127.0.0.1:$port/"
	assert_status 7 # couldn't connect
	nx_one_line "^cordon: denied connect 127.0.0.1:$port \[connect\] (network is off); allow with --connect $port\$"
	nx_record connect "127.0.0.1:$port"
	nx_contacts 0
	nx_option
	# the listener accepts and says nothing: curl connects, then fails
	# another way (52, empty reply, or 28, timed out), never with 7
	cordon $option -- curl -sS -m 2 "http://127.0.0.1:$port/"
	assert_status_not 7
	nx_contacts 1
	nx_stop
}

test_nx_tcp_port_not_listed() {
	nx_need_python
	nx_listen
	cordon --connect 1 --log "$T/log.jsonl" -- python3 -c "$nx_tcp" 127.0.0.1 "$port"
	assert_status 1
	nx_one_line "^cordon: denied connect 127.0.0.1:$port \[connect\] (TCP port $port is not among the connect ports 1); allow with --connect $port\$"
	nx_record connect "127.0.0.1:$port"
	nx_contacts 0
	nx_option
	[ "$option" = "--connect $port" ] || fail "the option is '$option'"
	cordon --connect 1 $option -- python3 -c "$nx_tcp" 127.0.0.1 "$port"
	assert_status 0
	nx_contacts 1
	nx_stop
}

test_nx_tcp6_connect_refused_with_network_off() {
	nx_need_python
	nx_listen -6
	cordon --log "$T/log.jsonl" -- python3 -c "$nx_tcp" ::1 "$port"
	assert_status 1
	nx_one_line "^cordon: denied connect \[::1\]:$port \[connect\] (network is off); allow with --connect $port\$"
	nx_record connect "[::1]:$port"
	nx_contacts 0
	nx_option
	cordon $option -- python3 -c "$nx_tcp" ::1 "$port"
	assert_status 0
	nx_contacts 1
	nx_stop
}

test_nx_udp_socket_refused_with_network_off_and_ports() {
	local opts
	nx_need_python
	nx_listen -u
	for opts in "" "--connect $port"; do
		cordon $opts --log "$T/log.jsonl" -- python3 -c "$nx_udp" 127.0.0.1 "$port"
		assert_status 1
		nx_one_line '^cordon: denied socket AF_INET SOCK_DGRAM \[socket\] (.*); allow with --net$'
		nx_contacts 0
	done
	assert_stderr_has '(not a TCP socket; only TCP ports are allowed'
	# where Landlock holds UDP ports (ABI 10), the line names that grant
	if kernel_has udp; then
		assert_stderr_has 'allowed; --connect udp:PORT would allow UDP to PORT only)'
	else
		assert_stderr_has '(not a TCP socket; only TCP ports are allowed)'
	fi
	nx_record socket "AF_INET SOCK_DGRAM"
	nx_option
	cordon --connect "$port" $option -- python3 -c "$nx_udp" 127.0.0.1 "$port"
	assert_status 0
	nx_contacts 1
	nx_stop
}

test_nx_udp6_socket_refused_with_network_off() {
	nx_need_python
	nx_listen -6 -u
	cordon --log "$T/log.jsonl" -- python3 -c "$nx_udp" ::1 "$port"
	assert_status 1
	if kernel_has udp; then
		nx_one_line '^cordon: denied socket AF_INET6 SOCK_DGRAM \[socket\] (network is off; --connect udp:PORT would allow UDP to PORT only); allow with --net$'
	else
		nx_one_line '^cordon: denied socket AF_INET6 SOCK_DGRAM \[socket\] (network is off); allow with --net$'
	fi
	nx_record socket "AF_INET6 SOCK_DGRAM"
	nx_contacts 0
	nx_option
	cordon $option -- python3 -c "$nx_udp" ::1 "$port"
	assert_status 0
	nx_contacts 1
	nx_stop
}

# A socket file outside the writable roots: a path, refused by the shim
# (Landlock ABI 7 does not check connect() on socket files; the mount
# layer covers the ones bound when the command starts).
test_nx_unix_socket_path_outside() {
	nx_need_python
	nx_listen -p "$T/out/sock"
	cordon --log "$T/log.jsonl" -- python3 -c "$nx_unix" "$T/out/sock"
	assert_status 1
	# the kernel's where Landlock holds the sockets (RESOLVE_UNIX)
	nx_one_line "^cordon: denied connect $T/out/sock \[connect\(, by the kernel\)\?\] (.*); allow with --connect-unix $T/out/sock\$"
	grep -qF "\"operation\":\"connect\",\"path\":\"$T/out/sock\"" "$T/log.jsonl" ||
		{ show; fail "no record of the connect"; }
	nx_contacts 0
	nx_option
	cordon $option -- python3 -c "$nx_unix" "$T/out/sock"
	assert_status 0
	nx_contacts 1
	nx_stop
}

# Landlock's scope refuses an abstract UNIX socket of a process outside,
# even with --net: the line says that no option allows it.
test_nx_abstract_unix_socket_outside() {
	local name="cordon-nx-$$-$RANDOM"
	nx_need_python
	nx_listen -a "$name"
	cordon --net --log "$T/log.jsonl" -- python3 -c "$nx_abstract" "$name"
	assert_status 1
	nx_one_line "^cordon: denied connect @$name \[connect\] (an abstract UNIX socket of a process outside the sandbox: Landlock's scope); no option allows it\$"
	nx_record connect "@$name"
	nx_contacts 0
	plain python3 -c "$nx_abstract" "$name"
	assert_status 0
	nx_contacts 1
	nx_stop
}

# A raw socket needs CAP_NET_RAW, which cordon drops: no option allows
# it, and the line says so rather than suggest --net, which would not.
test_nx_raw_socket_says_no_option_allows_it() {
	local raw='import socket
socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)'
	nx_need_python
	cordon --log "$T/log.jsonl" -- python3 -c "$raw"
	assert_status 1
	nx_one_line '^cordon: denied socket AF_INET SOCK_RAW IPPROTO_ICMP \[socket\] (network is off; a raw or packet socket needs CAP_NET_RAW, which cordon drops); no option allows it$'
	nx_record socket "AF_INET SOCK_RAW IPPROTO_ICMP"
	cordon --net -- python3 -c "$raw"
	assert_status 1
	assert_stderr_has 'PermissionError: \[Errno 1\]'
	if [ "$(id -u)" = 0 ]; then
		plain python3 -c "$raw"
		assert_status 0
	fi
}

# TCP Fast Open connects inside sendto(), without the connect() that
# Landlock checks: the filter makes it fail as where the host disables
# it, so that the program falls back to connect().  Kernel layer only.
test_nx_fastopen_does_not_pass_the_port_rules() {
	nx_need_python
	[ "$(($(cat /proc/sys/net/ipv4/tcp_fastopen) & 1))" = 1 ] ||
		skip "SKIP: TCP Fast Open is off for clients on this host"
	nx_listen
	cordon --no-shim --connect 1 -- python3 -c "$nx_fastopen" "$port"
	assert_status 3
	assert_content "$T/stdout" "sendto: 95" # EOPNOTSUPP
	nx_contacts 0
	plain python3 -c "$nx_fastopen" "$port"
	assert_status 0
	nx_contacts 1
	nx_stop
}

# A host name: libc's resolver makes its UDP socket through an internal
# alias no hook sees, so the failed lookup itself is explained; only
# --net allows the DNS it needs with TCP ports only; with the network
# off the name is suggested (--allow-host), which the proxy resolves.  The
# effect: the lookup ends as it does without the sandbox (the host's
# name server answered), not as a lookup that could ask nobody.
test_nx_host_name_lookup_needs_net() {
	local lookup='import socket
try:
    socket.getaddrinfo("cordon-nx.example.com", 443)
    print("found")
except socket.gaierror as e:
    print("gaierror", e.errno)' bare opts
	nx_need_python
	plain python3 -c "$lookup"
	bare=$(cat "$T/stdout")
	[ "$bare" != "gaierror -3" ] ||
		skip "SKIP: no name server answers on this host ($bare)"
	# the network off: the name, reached through cordon's proxy (a
	# program that takes the proxy's variables asks no DNS)
	cordon --log "$T/log.jsonl" -- python3 -c "$lookup"
	assert_status 0
	assert_stdout_lacks "^$bare\$"
	nx_one_line '^cordon: denied lookup cordon-nx.example.com \[getaddrinfo\] (network is off; looking up a host name needs DNS, over UDP); allow with --allow-host cordon-nx.example.com$'
	# TCP ports only (the host's network): the DNS it asks, --net
	cordon --connect 443 --log "$T/log.jsonl" -- python3 -c "$lookup"
	assert_status 0
	assert_stdout_lacks "^$bare\$"
	nx_one_line '^cordon: denied lookup cordon-nx.example.com \[getaddrinfo\] (.*looking up a host name needs DNS, over UDP); allow with --net$'
	nx_record getaddrinfo cordon-nx.example.com
	nx_option
	cordon --connect 443 $option -- python3 -c "$lookup"
	assert_status 0
	assert_content "$T/stdout" "$bare"
	! grep -q '^cordon: denied' "$T/stderr" || { show; fail "a denial with $option"; }
}

# Names that need no server (numeric, /etc/hosts) are never reported.
test_nx_lookup_without_dns_is_not_reported() {
	nx_need_python
	cordon -- python3 -c 'import socket
socket.getaddrinfo("127.0.0.1", 80)
socket.getaddrinfo("localhost", 80)
try:
    socket.getaddrinfo("not-a-number", 80, flags=socket.AI_NUMERICHOST)
except socket.gaierror:
    pass'
	assert_status 0
	! grep -q '^cordon: denied' "$T/stderr" || { show; fail "a denial line"; }
}

# With the network off, a listen() without bind() (which binds an
# ephemeral port without the bind() Landlock checks) listens in the
# command's own network namespace: nothing outside reaches it.  Kernel
# layer only; the twin, with --net, is reached.
test_nx_listen_without_bind_is_unreachable_with_network_off() {
	local opts pid i lport reached
	local serve='import socket, sys, time
s = socket.socket()
s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(10)'
	nx_need_python
	for opts in --no-shim --net; do
		rm -f "$T/ws/lport"
		"$CORDON" $opts -- python3 -c "$serve" "$T/ws/lport" \
			> "$T/stdout" 2> "$T/stderr" &
		pid=$!
		for i in $(seq 200); do
			[ -s "$T/ws/lport" ] && break
			sleep 0.05
		done
		lport=$(cat "$T/ws/lport") || { kill "$pid"; show; fail "no port ($opts)"; }
		if (exec 3<> "/dev/tcp/127.0.0.1/$lport") 2> /dev/null; then
			reached=yes
		else
			reached=no
		fi
		kill "$pid" 2> /dev/null
		wait "$pid" 2> /dev/null
		case $opts in
		--no-shim) [ "$reached" = no ] || fail "port $lport was reached from outside" ;;
		--net) [ "$reached" = yes ] || fail "port $lport was not reached with --net" ;;
		esac
	done
}

# cordon learn: a host name looked up through a name server needs the
# network in the profile (only --net lets DNS through); one /etc/hosts
# answers, or an address, does not.  The rerun with the profile looks
# the name up as the bare run does, with no denial.
test_nx_learn_host_name_lookup_learns_the_host() {
	local lookup='import socket, sys
for n in sys.argv[1:]:
    try:
        socket.getaddrinfo(n, 443)
        print(n, "found")
    except socket.gaierror as e:
        print(n, "gaierror", e.errno)' bare
	nx_need_python
	cordon learn -o "$T/local.json" -- python3 -c "$lookup" localhost 127.0.0.1
	assert_status 0
	python3 -c 'import json, sys; sys.exit("net" in json.load(open(sys.argv[1])))' \
		"$T/local.json" || { cat "$T/local.json"; fail "the network learned for names /etc/hosts answers"; }
	plain python3 -c "$lookup" cordon-nx.example.com
	bare=$(cat "$T/stdout")
	[ "$bare" != "cordon-nx.example.com gaierror -3" ] ||
		skip "SKIP: no name server answers on this host"
	cordon learn -o "$T/dns.json" -- python3 -c "$lookup" cordon-nx.example.com
	assert_status 0
	# a name looked up, never reached: learned as that host (cordon's
	# resolver then answers it as the host's does), not the network
	python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
sys.exit("net" in p or p.get("allow_hosts") != [sys.argv[2]])' \
		"$T/dns.json" cordon-nx.example.com ||
		{ cat "$T/dns.json"; fail "the name was not learned as a host"; }
	cordon -p "$T/dns.json" -- python3 -c "$lookup" cordon-nx.example.com
	assert_status 0
	assert_content "$T/stdout" "$bare"
	! grep -q '^cordon: denied' "$T/stderr" || { show; fail "a denial with the profile"; }
}

# bind() of a socket file outside the writable roots makes a file: the
# directory is what the option names.
test_nx_unix_bind_outside() {
	nx_need_python
	local bind='import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])'
	mkdir -p "$T/out/sockdir"
	cordon --log "$T/log.jsonl" -- python3 -c "$bind" "$T/out/sockdir/s"
	assert_status 1
	nx_one_line "^cordon: denied write $T/out/sockdir/s \[bind\] (.*); allow with --write $T/out/sockdir\$"
	grep -qF "\"operation\":\"bind\",\"path\":\"$T/out/sockdir/s\"" "$T/log.jsonl" ||
		{ show; fail "no record of the bind"; }
	assert_absent "$T/out/sockdir/s"
	nx_option
	cordon $option -- python3 -c "$bind" "$T/out/sockdir/s"
	assert_status 0
	[ -S "$T/out/sockdir/s" ] || fail "no socket file with $option"
}
