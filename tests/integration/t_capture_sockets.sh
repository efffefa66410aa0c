# With hosts allowed, no resolver but cordon's is reachable from inside
# (doc/security.md, Hosts): the host's own resolver sockets (nscd,
# systemd-resolved's varlink, the D-Bus system bus) are UNIX socket
# files the policy does not grant, and abstract ones belong to the
# namespace.  Each stands here as a listener outside, in /run as theirs
# are, that logs every connection it accepts; its twin reaches it bare.

# sock_listen PATH|@NAME: a UNIX listener outside; each accepted
# connection a line in $T/out/accepted.
sock_listen() {
	rm -f "$T/out/ready"
	python3 - "$1" "$T/out/accepted" "$T/out/ready" <<'PY' &
import os, socket, sys, time
path, log, ready = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + path[1:] if path.startswith("@") else path)
s.listen(8)
s.settimeout(0.2)
open(ready, "w").close()
end = time.time() + 30
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    with open(log, "a") as f:
        f.write("accepted\n")
    c.close()
PY
	sock_pid=$!
	trap 'kill $sock_pid 2> /dev/null' EXIT
	wait_for_file "$T/out/ready"
	: >> "$T/out/accepted"
}

# sock_try PATH|@NAME: connect to it from python3 (status 0: connected).
sock_try_py='import socket, sys
p = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect("\0" + p[1:] if p.startswith("@") else p)
except OSError as e:
    print("refused:", e)
    sys.exit(1)
print("connected")'

accepted() {
	wc -l < "$T/out/accepted" | tr -d ' '
}

test_capture_the_hosts_resolver_sockets_are_unreachable() {
	command -v python3 > /dev/null || skip "SKIP: no python3"
	local dir
	if [ "$(id -u)" = 0 ]; then
		dir=$(mktemp -d /run/cordon-resolve.XXXXXX) ||
			fail "cannot make a directory in /run"
		trap 'rm -rf "$dir"' RETURN
	else
		dir=/run/cordon-it-$(id -un)
		[ -d "$dir" ] && [ -w "$dir" ] ||
			skip "SKIP: no directory of this user's in /run (run.sh makes one)"
	fi
	sock_listen "$dir/io.systemd.Resolve"
	cordon --allow-host allowed.cordon.test -- \
		python3 -c "$sock_try_py" "$dir/io.systemd.Resolve"
	assert_status_not 0
	[ "$(accepted)" = 0 ] || fail "a resolver socket outside was reached"
	# the twin: bare, it is reached
	plain python3 -c "$sock_try_py" "$dir/io.systemd.Resolve"
	assert_status 0
	[ "$(accepted)" = 1 ] || fail "the listener did not log the twin"
	kill "$sock_pid" 2> /dev/null
	wait "$sock_pid" 2> /dev/null
	rm -rf "$dir/io.systemd.Resolve"
}

test_capture_an_abstract_bus_outside_is_unreachable() {
	command -v python3 > /dev/null || skip "SKIP: no python3"
	local name="@cordon-test-bus-$$"
	sock_listen "$name"
	cordon --allow-host allowed.cordon.test -- \
		python3 -c "$sock_try_py" "$name"
	assert_status_not 0
	[ "$(accepted)" = 0 ] || fail "an abstract socket outside was reached"
	plain python3 -c "$sock_try_py" "$name"
	assert_status 0
	[ "$(accepted)" = 1 ] || fail "the listener did not log the twin"
}
