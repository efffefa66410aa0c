# The shim's network hooks alone (no kernel layer): connect, __connect,
# sendto, sendmsg, sendmmsg and bind against the network policy, and
# UNIX socket paths against the roots.  Every effect is counted outside:
# tests/helpers/listener, or a python3 server on UNIX socket paths.

# net_shim_drive OP ARGS...: tests/helpers/shimdrive_net under shim_run.
net_shim_drive() {
	[ -x "$HELPERS/shimdrive_net" ] ||
		fail "no shimdrive_net: build the helpers (make integration)"
	shim_run "$HELPERS/shimdrive_net" "$@"
}

# net_shim_with NET CON BND OP ARGS...: the same with the network part
# of shim_policy replaced (net 0 off, 1 ports, 2 on).
net_shim_with() {
	local net=$1 con=$2 bnd=$3 policy
	shift 3
	policy=$(shim_policy | sed "s/|net=0|con=|bnd=|/|net=$net|con=$con|bnd=$bnd|/")
	CORDON_POLICY=$policy LD_PRELOAD="$HELPERS/libcordon.so" \
		"$HELPERS/shimdrive_net" "$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

net_shim_no_denial() {
	! grep -q 'cordon: denied' "$T/stderr" || { show; fail "a denial line"; }
}

# net_shim_listen [listener options]: start_listener, alive long enough
# for a loaded machine; net_shim_contacts ends it.
net_shim_listen() {
	start_listener -t 60 "$@"
}

# net_shim_contacts EXPECTED: wait (up to 10 s) for the listener's count
# to reach EXPECTED, give late arrivals a moment, then stop it
# (t_net_explain.sh's nx_contacts and nx_stop).
net_shim_contacts() {
	nx_contacts "$1"
	nx_stop
}

# net_shim_unix_server PATH...: a python3 server accepting on each UNIX
# socket PATH, for at most 60 s; $T/unix.count holds "PATH N" lines,
# rewritten after every connection.  net_shim_unix_count PATH N waits
# for PATH's count to be N; net_shim_unix_stop ends the server.
net_shim_unix_server() {
	command -v python3 >/dev/null || skip "SKIP: no python3 for the UNIX server"
	rm -f "$T/unix.count"
	python3 - "$T/unix.count" "$@" <<'PY' &
import os, select, socket, sys, time
out, paths = sys.argv[1], sys.argv[2:]
socks = {}
for p in paths:
    s = socket.socket(socket.AF_UNIX)
    s.bind(p)
    s.listen(16)
    socks[s] = p
counts = dict.fromkeys(paths, 0)
def save():
    with open(out + ".tmp", "w") as f:
        for p in paths:
            f.write("%s %d\n" % (p, counts[p]))
    os.rename(out + ".tmp", out)
save()
end = time.time() + 60
while time.time() < end:
    r, _, _ = select.select(list(socks), [], [], max(0, end - time.time()))
    for s in r:
        c, _ = s.accept()
        c.close()
        counts[socks[s]] += 1
        save()
PY
	unix_pid=$!
	local i
	for i in $(seq 200); do
		[ -e "$T/unix.count" ] && return 0
		sleep 0.05
	done
	fail "the UNIX server did not start"
}

net_shim_unix_count() { # PATH expected
	local i got
	for i in $(seq 200); do
		got=$(awk -v p="$1" '$1 == p { print $2 }' "$T/unix.count")
		[ "$got" = "$2" ] && return 0
		sleep 0.05
	done
	fail "the server at $1 saw '$got' connections, expected $2"
}

net_shim_unix_stop() {
	kill "$unix_pid" 2>/dev/null
	wait "$unix_pid" 2>/dev/null
	return 0
}

test_net_shim_tcp_refused_with_network_off() {
	net_shim_listen
	net_shim_drive tcp 127.0.0.1 "$port"
	assert_status 1
	assert_stdout_has "failed: 13 "
	assert_stderr_has "^cordon: denied connect 127.0.0.1:$port \[connect\] (network is off); allow with --connect $port\$"
	assert_stderr_lines 1
	grep -q "\"operation\":\"connect\",\"destination\":\"127.0.0.1:$port\"" \
		"$T/audit.jsonl" || fail "no audit record of the connect"
	net_shim_contacts 0
}

test_net_shim_tcp_allowed_with_network_on() {
	net_shim_listen
	net_shim_with 2 "" "" tcp 127.0.0.1 "$port"
	assert_status 0 # 3 would be errno changed by the shim
	net_shim_no_denial
	net_shim_contacts 1
}

test_net_shim_bash_dev_tcp_is_refused() {
	net_shim_listen
	shim_run bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0' "$port"
	assert_status_not 0
	assert_stderr_has "cordon: denied connect 127.0.0.1:$port \[connect\]"
	net_shim_contacts 0
}

test_net_shim_connect_alias_is_hooked() {
	net_shim_listen
	net_shim_drive tcp-alias 127.0.0.1 "$port"
	assert_status 1
	assert_stderr_has "cordon: denied connect 127.0.0.1:$port \[__connect\]"
	net_shim_with 2 "" "" tcp-alias 127.0.0.1 "$port"
	assert_status 0
	net_shim_contacts 1
}

test_net_shim_tcp_port_list() {
	net_shim_listen
	net_shim_with 1 "1,$port" "" tcp 127.0.0.1 "$port"
	assert_status 0
	net_shim_no_denial
	net_shim_with 1 1 "" tcp 127.0.0.1 "$port"
	assert_status 1
	assert_stderr_has "denied connect 127.0.0.1:$port \[connect\] (TCP port $port is not among the connect ports 1); allow with --connect $port"
	net_shim_contacts 1
}

test_net_shim_tcp6_names_the_address() {
	net_shim_listen -6
	net_shim_drive tcp ::1 "$port"
	assert_status 1
	assert_stderr_has "denied connect \[::1\]:$port \[connect\] (network is off); allow with --connect $port"
	net_shim_with 2 "" "" tcp ::1 "$port"
	assert_status 0
	net_shim_contacts 1
}

test_net_shim_udp_refused_unless_network_on() {
	local op
	net_shim_listen -u
	for op in udp udp-msg; do
		net_shim_drive "$op" 127.0.0.1 "$port"
		assert_status 1
		assert_stderr_has "denied send 127.0.0.1:$port \[send.*\] (network is off); allow with --net"
		net_shim_with 1 "$port" "" "$op" 127.0.0.1 "$port"
		assert_status 1
		assert_stderr_has "(not a TCP socket; only TCP ports are allowed); allow with --net"
	done
	net_shim_drive udp-mmsg 127.0.0.1 "$port" 3
	assert_status 1
	assert_stdout_has "failed: 13 "
	assert_stderr_has "denied send 127.0.0.1:$port \[sendmmsg\]"
	net_shim_contacts 0
	net_shim_listen -u
	net_shim_with 2 "" "" udp 127.0.0.1 "$port"
	assert_status 0
	net_shim_with 2 "" "" udp-msg 127.0.0.1 "$port"
	assert_status 0
	net_shim_with 2 "" "" udp-mmsg 127.0.0.1 "$port" 3
	assert_status 0
	net_shim_contacts 5
}

test_net_shim_bind_port_list() {
	net_shim_drive bind-tcp 0
	assert_status 1
	assert_stderr_has "denied bind 127.0.0.1:0 \[bind\] (network is off); allow with --bind 0"
	net_shim_with 1 0 "" bind-tcp 0
	assert_status 1
	assert_stderr_has "(no TCP bind port is allowed); allow with --bind 0"
	net_shim_with 1 "" 0 bind-tcp 0
	assert_status 0
	net_shim_no_denial
}

test_net_shim_unix_socket_path_needs_write() {
	net_shim_unix_server "$T/out/sock" "$T/ws/sock"
	net_shim_drive unix "$T/out/sock"
	assert_status 1
	assert_stderr_has "cordon: denied connect $T/out/sock \[connect\] (outside the writable and --connect-unix roots"
	assert_stderr_has "allow with --connect-unix $T/out/sock\$"
	net_shim_drive unix ../out/sock
	assert_status 1
	assert_stderr_has "denied connect ../out/sock ($T/out/sock) \[connect\]"
	net_shim_drive unix "$T/ws/sock"
	assert_status 0
	net_shim_drive unix sock
	assert_status 0
	plain "$HELPERS/shimdrive_net" unix "$T/out/sock"
	assert_status 0
	net_shim_unix_count "$T/out/sock" 1
	net_shim_unix_count "$T/ws/sock" 2
	net_shim_unix_stop
}

test_net_shim_unix_bind_creates_a_file() {
	net_shim_drive bind-unix "$T/out/sock"
	assert_status 1
	assert_stderr_has "cordon: denied write $T/out/sock \[bind\]"
	assert_absent "$T/out/sock"
	net_shim_drive bind-unix "$T/ws/sock"
	assert_status 0
	assert_exists "$T/ws/sock"
	plain "$HELPERS/shimdrive_net" bind-unix "$T/out/sock"
	assert_status 0
	assert_exists "$T/out/sock"
}

test_net_shim_abstract_unix_socket_is_not_a_path() {
	local name="cordon-it-$$-$RANDOM"
	net_shim_listen -a "$name"
	net_shim_drive unix-abstract "$name"
	assert_status 0
	net_shim_no_denial
	net_shim_contacts 1
}

test_net_shim_errno_preserved_on_success() {
	local op
	net_shim_unix_server "$T/ws/sock"
	net_shim_drive unix "$T/ws/sock"
	assert_status 0
	net_shim_drive bind-unix "$T/ws/other"
	assert_status 0
	net_shim_unix_count "$T/ws/sock" 1
	net_shim_unix_stop
	net_shim_listen
	net_shim_with 2 "" "" tcp 127.0.0.1 "$port"
	assert_status 0
	net_shim_with 1 "$port" "" tcp-alias 127.0.0.1 "$port"
	assert_status 0
	net_shim_contacts 2
	net_shim_listen -u
	for op in udp udp-msg; do
		net_shim_with 2 "" "" "$op" 127.0.0.1 "$port"
		assert_status 0
	done
	net_shim_with 2 "" "" udp-mmsg 127.0.0.1 "$port" 2
	assert_status 0
	net_shim_contacts 4
}

# Catalog D-15 case 3: name resolution connects through libc's internal
# aliases; under network off it must neither crash nor hang.
test_net_shim_getent_hosts_does_not_crash() {
	command -v getent >/dev/null || skip "SKIP: no getent"
	shim_run timeout 20 getent hosts example.com
	[ "$status" -lt 124 ] || { show; fail "getent ended with status $status"; }
	shim_run timeout 20 getent hosts localhost
	assert_status 0
}
