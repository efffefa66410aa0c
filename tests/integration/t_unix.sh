# Pathname UNIX sockets of processes outside: reached only under a
# writable root or one given with --connect-unix (the option, the
# profile key, the shim used alone), never through a root that is only
# readable.  A listener outside counts the contacts.

# ux_py PATH [dgram]: the Python client that connects (or sends a
# datagram) to PATH.
ux_py() {
	if [ "${2:-}" = dgram ]; then
		echo "import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b'x', '$1')"
	else
		echo "import socket; socket.socket(socket.AF_UNIX).connect('$1')"
	fi
}

test_unix_connect_unix_option_reaches_a_socket_outside() {
	local kind opt
	for kind in stream dgram; do
		rm -rf "$T/out/sd"
		mkdir -p "$T/out/sd"
		opt=; [ $kind = dgram ] && opt=-u
		start_listener -t 60 $opt -p "$T/out/sd/s"
		# refused: in a directory the command may only read, too
		cordon --read "$T/out/sd" -- python3 -c "$(ux_py "$T/out/sd/s" $kind)"
		assert_status_not 0
		assert_stderr_has "^cordon: denied connect $T/out/sd/s \[.*\] ($T/out/sd is granted r only); allow with --connect-unix $T/out/sd/s$"
		# the option, and the same from a profile
		cordon --connect-unix "$T/out/sd/s" -- python3 -c "$(ux_py "$T/out/sd/s" $kind)"
		assert_status 0
		printf '{"connect_unix": ["%s"]}\n' "$T/out/sd" > "$T/p.json"
		cordon -p "$T/p.json" -- python3 -c "$(ux_py "$T/out/sd/s" $kind)"
		assert_status 0
		grep -q 'cordon: denied' "$T/stderr" && { show; fail "a denial"; }
		nx_contacts 2
		nx_stop
	done
}

# --connect-unix grants the sockets and nothing else: a file beside
# them stays unreadable, a new socket cannot be bound there.
test_unix_connect_unix_grants_no_file_right() {
	mkdir -p "$T/out/sd"
	echo s3cr3t > "$T/out/sd/f"
	cordon --connect-unix "$T/out/sd" -- cat "$T/out/sd/f"
	assert_status_not 0
	assert_stdout_lacks s3cr3t
	cordon --connect-unix "$T/out/sd" -- python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('$T/out/sd/new')"
	assert_status_not 0
	assert_absent "$T/out/sd/new"
	# the twins: granted as files, the same work
	cordon --read "$T/out/sd" -- cat "$T/out/sd/f"
	assert_status 0
	assert_stdout_has s3cr3t
	cordon --write "$T/out/sd" -- python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('$T/out/sd/new')"
	assert_status 0
	[ -S "$T/out/sd/new" ] || fail "no socket bound"
}

test_unix_explain_connect_unix() {
	mkdir -p "$T/out/sd"
	listen_unix "$T/out/sd/s"
	cordon explain --connect-unix "$T/out/sd/s"
	assert_status 1
	assert_stdout_has "^denied connect-unix $T/out/sd/s: outside the writable and --connect-unix roots .*; allow with --connect-unix $T/out/sd/s$"
	cordon explain --connect-unix "$T/out/sd/s" --connect-unix "$T/out/sd"
	assert_status 0
	assert_stdout_has "^allowed connect-unix $T/out/sd/s: granted by $T/out/sd (c)$"
	# a writable root lets its sockets be reached as well
	cordon explain --connect-unix "$T/out/sd/s" --write "$T/out"
	assert_status 0
	unlisten_unix
}

# The shim used alone: CORDON_CONNECT_UNIX, named by the denial line.
test_unix_connect_unix_standalone() {
	mkdir -p "$T/out/sd"
	start_listener -t 60 -p "$T/out/sd/s"
	local sys=/usr:/bin:/lib:/lib64:/etc
	CORDON_EXEC=$sys LD_PRELOAD="$HELPERS/libcordon.so" \
		python3 -c "$(ux_py "$T/out/sd/s")" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status_not 0
	assert_stderr_has "allow by adding $T/out/sd/s to CORDON_CONNECT_UNIX$"
	CORDON_EXEC=$sys CORDON_CONNECT_UNIX="$T/out/sd" LD_PRELOAD="$HELPERS/libcordon.so" \
		python3 -c "$(ux_py "$T/out/sd/s")" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	nx_contacts 1
	nx_stop
}

# cordon learn writes the socket as "connect_unix", and the profile
# reaches it.
test_unix_learn_connect_unix() {
	mkdir -p "$T/out/sd"
	start_listener -t 60 -p "$T/out/sd/s"
	cordon learn -o "$T/p.json" -- python3 -c "$(ux_py "$T/out/sd/s")"
	assert_status 0
	python3 -c 'import json, os, sys
p = json.load(open(sys.argv[1]))
got = [os.path.expanduser(x) for x in p.get("connect_unix", [])]
assert got == [sys.argv[2]], p
assert "write" not in p, p' "$T/p.json" "$T/out/sd/s" || { cat "$T/p.json"; fail "the profile"; }
	cordon -p "$T/p.json" -- python3 -c "$(ux_py "$T/out/sd/s")"
	assert_status 0
	nx_contacts 2
	nx_stop
}

# An abstract UNIX socket between the command's own processes: with the
# network off it lives in the command's own network namespace, and the
# broker performs the connect; a process outside binds in the host's
# namespace, out of reach.  With the network shared, the broker knows
# it as the command's by the bind() it made (broker_own.c).
test_unix_abstract_socket_of_the_command_itself() {
	local prog='import os, socket, sys
name = b"\0cordon-it-own-%d" % os.getpid()
l = socket.socket(socket.AF_UNIX); l.bind(name); l.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect(name)
a, _ = l.accept(); c.send(b"hi"); print(a.recv(2).decode())'
	cordon -- python3 -c "$prog"
	assert_status 0
	assert_stdout_has '^hi$'
	# the same program bare (the twin of the numbers, not of a refusal)
	plain python3 -c "$prog"
	assert_status 0
	assert_stdout_has '^hi$'
	# with the network shared, and with ports allowed
	cordon --net -- python3 -c "$prog"
	assert_status 0
	assert_stdout_has '^hi$'
	cordon --connect 443 -- python3 -c "$prog"
	assert_status 0
	assert_stdout_has '^hi$'
}
