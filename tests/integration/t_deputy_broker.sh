# The broker (enforce/broker*.c) sends for the command from outside,
# as the supervisor: what it sends must carry no more authority than
# the command's own send would.  A listener outside (credpeer recv,
# SO_PASSCRED) prints the credentials and descriptors that reach it.

# cp_listen: the listener at $T/out/c.sock, its lines in $T/recv.
cp_listen() {
	rm -f "$T/out/c.sock" "$T/recv"
	"$HELPERS/credpeer" recv "$T/out/c.sock" 60 > "$T/recv" &
	cp_pid=$!
	wait_for_socket "$T/out/c.sock"
}

cp_stop() {
	"$HELPERS/credpeer" end "$T/out/c.sock" > /dev/null
	wait "$cp_pid"
}

# cp_sandboxed ARGS...: credpeer ARGS in cordon, the socket granted;
# the supervisor's pid in $sup_pid.
cp_sandboxed() {
	"$CORDON" --connect-unix "$T/out/c.sock" -- "$HELPERS/credpeer" "$@" \
		> "$T/stdout" 2> "$T/stderr" &
	sup_pid=$!
	wait "$sup_pid"
	status=$?
}

# A capability-less root (or a user) inside names pid 1, uid 65534 and
# another uid in SCM_CREDENTIALS: the listener outside never sees them;
# it sees nothing, or the caller's real credentials (root's supervisor
# can vouch for the caller's pid; a user's cannot, and the send fails).
test_deputy_broker_forged_credentials_never_reach_a_listener_outside() {
	local other=4242 uid gid
	uid=$(id -u) gid=$(id -g)
	[ "$uid" -ne 0 ] || other=12345
	cp_listen
	: > "$T/said"
	cp_sandboxed creds "$T/out/c.sock" 1 65534 65534
	cat "$T/stdout" >> "$T/said"
	cp_sandboxed creds "$T/out/c.sock" self 65534 self
	cat "$T/stdout" >> "$T/said"
	cp_sandboxed creds "$T/out/c.sock" self "$other" self
	cat "$T/stdout" >> "$T/said"
	cp_sandboxed creds "$T/out/c.sock" 1 self self
	cat "$T/stdout" >> "$T/said"
	cp_sandboxed creds "$T/out/c.sock" self self self
	cat "$T/stdout" >> "$T/said"
	cp_stop
	cat "$T/recv"
	grep -q '^listening$' "$T/recv" || fail "the listener did not run"
	# the effect, outside: nothing forged, from any of the five
	if grep '^msg creds' "$T/recv" | grep -vE " pid=[0-9]+ uid=$uid gid=$gid\$" ||
		grep -E ' pid=1 ' "$T/recv"; then
		fail "forged credentials reached the listener"
	fi
	if [ "$uid" -eq 0 ]; then
		# the caller's own: its pid as the listener sees it, not the
		# supervisor's, the uid and gid its own
		grep -qE "^msg creds [0-9]+ 0 0 pid=[0-9]+ uid=0 gid=0\$" "$T/recv" ||
			fail "the caller's own credentials did not arrive"
		grep -E " pid=$sup_pid " "$T/recv" && fail "the supervisor's pid"
	fi
	[ "$(grep -c '^msg' "$T/recv")" -eq $((uid == 0 ? 1 : 0)) ] ||
		fail "an unexpected message reached the listener"
	# what the sender heard: refused as the kernel refuses an
	# unprivileged sender (EPERM, or EINVAL for a uid its user namespace
	# does not map: a user's); its own credentials go where the
	# supervisor can vouch for its pid (root)
	cat "$T/said"
	head -4 "$T/said" | grep -vxE 'fail E(PERM|INVAL)' && fail "a forged send went"
	sed -n 4p "$T/said" | grep -qx 'fail EPERM' || fail "pid 1: not EPERM"
	if [ "$uid" -eq 0 ]; then
		sed -n 5p "$T/said" | grep -qx ok || fail "its own did not go"
	else
		sed -n 5p "$T/said" | grep -qx 'fail EPERM' || fail "EPERM expected"
	fi
}

# The twin, without cordon: the kernel's own rule.  Root's forged
# credentials reach the listener as written; a user's are refused.
test_deputy_broker_forged_credentials_twin_without_cordon() {
	local uid
	uid=$(id -u)
	cp_listen
	plain "$HELPERS/credpeer" creds "$T/out/c.sock" 1 65534 65534
	if [ "$uid" -eq 0 ]; then
		assert_stdout_has '^ok$'
	else
		assert_stdout_has '^fail EPERM$'
	fi
	plain "$HELPERS/credpeer" creds "$T/out/c.sock" self self self
	assert_stdout_has '^ok$'
	cp_stop
	cat "$T/recv"
	if [ "$uid" -eq 0 ]; then
		grep -q '^msg creds 1 65534 65534 pid=1 uid=65534 gid=65534$' \
			"$T/recv" || fail "root's forged credentials did not arrive"
	else
		grep -q 'uid=65534' "$T/recv" && fail "the kernel took a user's"
	fi
	grep -qE "^msg creds [0-9]+ $uid [0-9]+ pid=[0-9]+ uid=$uid " "$T/recv" ||
		fail "the sender's own credentials did not arrive"
}

# SCM_RIGHTS through the broker: only descriptors the command holds
# reach the listener (taken from it by number, never the supervisor's
# own at that number: the broker's listener, its log, its eventfd).
# Each number goes in a second header 20 bytes long, the length glibc's
# CMSG_NXTHDR walked differently from the kernel before 2.36.
test_deputy_broker_descriptors_only_the_callers_own() {
	cp_listen
	cp_sandboxed rights "$T/out/c.sock" 0 64
	cp_stop
	cat "$T/recv"
	grep -q '^msg rights 3 ' "$T/recv" || fail "its own socket did not go"
	if grep '^fd ' "$T/recv" | grep -E 'anon_inode|pidfd|\.jsonl'; then
		fail "a descriptor of the supervisor's reached the listener"
	fi
	# the twin: without cordon the same numbers pass what the sender
	# holds, the listener's side unchanged
	cp_listen
	plain "$HELPERS/credpeer" rights "$T/out/c.sock" 0 3
	cp_stop
	grep -q '^msg rights 3 ' "$T/recv" || fail "the twin sent nothing"
}

# A send without SCM_CREDENTIALS to a receiver with SO_PASSCRED: the
# kernel attaches the sender's credentials, and the broker's task is the
# supervisor.  As root the broker attaches the caller's own, so the
# listener sees the caller, never the supervisor (a notify socket that
# trusts its service's main pid, a journal that names the sender); a
# user's supervisor cannot vouch for another pid: the same uid and gid,
# its own pid (doc/security.md, "The UNIX-socket broker": not made equal).
test_deputy_broker_kernel_credentials_name_the_caller() {
	local uid gid
	uid=$(id -u) gid=$(id -g)
	cp_listen
	cp_sandboxed rights "$T/out/c.sock" 3 3
	assert_stdout_has '^ok$'
	cp_stop
	cat "$T/recv"
	grep -qE "^msg rights 3 pid=[0-9]+ uid=$uid gid=$gid\$" "$T/recv" ||
		fail "no message, or another's uid or gid"
	if [ "$uid" -eq 0 ]; then
		grep -E " pid=$sup_pid " "$T/recv" && fail "the supervisor's pid"
		grep -qE ' pid=1 ' "$T/recv" && fail "pid 1"
	fi
	# the twin: the sender's own pid, as the kernel attaches it
	cp_listen
	"$HELPERS/credpeer" rights "$T/out/c.sock" 3 3 > "$T/stdout" &
	local plain_pid=$!
	wait "$plain_pid"
	cp_stop
	grep -qE "^msg rights 3 pid=$plain_pid uid=$uid " "$T/recv" ||
		fail "the twin's own pid did not arrive"
}

# pc_listen: peercap's listener at $T/out/p.sock, what it learns of its
# peer in $T/peer.
pc_listen() {
	rm -f "$T/out/p.sock" "$T/peer"
	"$HELPERS/peercap" listen "$T/out/p.sock" "$T/peer" 30 &
	pc_pid=$!
	wait_for_socket "$T/out/p.sock"
}

# A brokered connect to a pathname UNIX socket outside: the kernel names
# the task that called connect() to the listener (SO_PEERCRED, and
# SO_PEERPIDFD).  A peer that reads that pid's capabilities from
# /proc/PID/status (sd_bus_query_sender_privilege, polkit) must find
# none the command lacks: the broker's deputy (no capability), never the
# supervisor (as root, every capability).
test_deputy_broker_unix_peer_has_no_capability() {
	local uid
	uid=$(id -u)
	pc_listen
	"$CORDON" --connect-unix "$T/out/p.sock" -- \
		"$HELPERS/peercap" connect "$T/out/p.sock" \
		> "$T/stdout" 2> "$T/stderr" &
	sup_pid=$!
	wait "$sup_pid"
	status=$?
	wait "$pc_pid"
	cat "$T/peer"
	assert_stdout_has '^ok$'
	grep -qE "^pid=[0-9]+ uid=$uid capeff=[0-9a-f]+\$" "$T/peer" ||
		fail "the listener read no peer, or another uid"
	grep -qE ' capeff=0+$' "$T/peer" ||
		fail "the peer's pid holds capabilities"
	grep -E "^pid=$sup_pid " "$T/peer" && fail "the supervisor's pid"
	# the twin: the same connect without cordon names its own task,
	# whose capabilities the listener reads (root: not none)
	pc_listen
	"$HELPERS/peercap" connect "$T/out/p.sock" > "$T/stdout" &
	local plain_pid=$!
	wait "$plain_pid"
	wait "$pc_pid"
	cat "$T/peer"
	grep -qE "^pid=$plain_pid uid=$uid " "$T/peer" ||
		fail "the twin's own pid did not arrive"
	if [ "$uid" -eq 0 ]; then
		grep -qE ' capeff=0+$' "$T/peer" &&
			fail "root's twin shows no capability: the test sees nothing"
	fi
	return 0
}

# With TCP ports allowed (--bind 0) the broker performs every listen();
# a UNIX listener's clients see the credentials of the task that called
# it.  A client outside that reads them (SO_PEERCRED, /proc/PID/status)
# finds no capability and not the supervisor.
test_deputy_broker_unix_listener_has_no_capability() {
	local uid i
	uid=$(id -u)
	rm -f "$T/out/l.sock" "$T/peer"
	"$CORDON" -w "$T/out" --bind 0 -- \
		"$HELPERS/peercap" listen "$T/out/l.sock" /dev/null 30 \
		> "$T/stdout" 2> "$T/stderr" &
	sup_pid=$!
	for i in $(seq 100); do
		[ -S "$T/out/l.sock" ] && break
		sleep 0.05
	done
	"$HELPERS/peercap" ask "$T/out/l.sock" "$T/peer" || {
		cat "$T/stderr"
		fail "no connection to the listener inside"
	}
	wait "$sup_pid" || fail "the listener inside failed"
	cat "$T/peer"
	grep -qE "^pid=[0-9]+ uid=$uid capeff=0+\$" "$T/peer" ||
		fail "the listener's pid holds capabilities, or another uid"
	grep -E "^pid=$sup_pid " "$T/peer" && fail "the supervisor's pid"
	# the twin: a listener without cordon names its own task
	rm -f "$T/out/l.sock"
	"$HELPERS/peercap" listen "$T/out/l.sock" /dev/null 30 &
	local plain_pid=$!
	for i in $(seq 100); do
		[ -S "$T/out/l.sock" ] && break
		sleep 0.05
	done
	"$HELPERS/peercap" ask "$T/out/l.sock" "$T/peer"
	wait "$plain_pid"
	cat "$T/peer"
	grep -qE "^pid=$plain_pid uid=$uid " "$T/peer" ||
		fail "the twin's own pid did not arrive"
	if [ "$uid" -eq 0 ]; then
		grep -qE ' capeff=0+$' "$T/peer" &&
			fail "root's twin shows no capability: the test sees nothing"
	fi
	return 0
}
