# UNIX sockets that a process outside binds after the command started:
# the kernel side refuses them unless a writable or --connect-unix root
# holds them, for a static binary that no shim sees, stream and
# datagram, connect, sendto and sendmsg: Landlock's RESOLVE_UNIX where
# the kernel has it (ABI 9, Linux 7.1), the broker elsewhere
# (enforce/broker/broker_loop.c).  A listener outside counts what
# arrives.

# late_try KIND PATH [CORDON OPTIONS]: cordon runs the static unixpeer,
# which waits for PATH; a second later a listener binds PATH outside
# (or $LATE_BIND when set: PATH is then a link to it).  Sets $status,
# $T/stdout and $contacts.  With $LATE_PLAIN set, unixpeer runs
# without cordon (the twin).
late_try() {
	local kind=$1 path=$2 bind=${LATE_BIND:-$2} opt= pid
	shift 2
	[ "$kind" = connect ] || opt=-u
	if [ -n "${LATE_PLAIN:-}" ]; then
		"$HELPERS/unixpeer" "$kind" "$path" 20 > "$T/stdout" 2> "$T/stderr" &
	else
		${LATE_WRAP:-} "$CORDON" "$@" -- "$HELPERS/unixpeer" "$kind" \
			"$path" 20 > "$T/stdout" 2> "$T/stderr" &
	fi
	pid=$!
	sleep 1
	start_listener -t 30 $opt -p "$bind"
	wait "$pid"
	status=$?
	sleep 0.3
	contacts=$(cat "$T/count" 2> /dev/null || echo missing)
	nx_stop
	rm -f "$bind"
}

# late_plain KIND PATH: the twin, unsandboxed.
late_plain() {
	LATE_PLAIN=1 late_try "$1" "$2"
}

test_unix_late_socket_outside_is_unreachable() {
	local kind
	mkdir -p "$T/out/late"
	for kind in connect sendto sendmsg; do
		# a directory the command may not see at all
		late_try $kind "$T/out/late/s"
		[ "$contacts" = 0 ] || { show; fail "$kind: the listener saw $contacts contacts"; }
		assert_status_not 0
		assert_stdout_has "^fail EACCES$"
		# the twin: the same peer reaches it unsandboxed
		late_plain $kind "$T/out/late/s"
		assert_status 0
		[ "$contacts" = 1 ] || fail "$kind: the twin saw $contacts contacts"
	done
}

test_unix_late_socket_in_a_read_only_root_is_unreachable() {
	local kind
	mkdir -p "$T/out/late"
	for kind in connect sendto sendmsg; do
		late_try $kind "$T/out/late/s" --read "$T/out/late"
		[ "$contacts" = 0 ] || { show; fail "$kind: the listener saw $contacts contacts"; }
		assert_status_not 0
		# granted: reached, by --connect-unix and under a --write root
		late_try $kind "$T/out/late/s" --connect-unix "$T/out/late"
		assert_status 0
		[ "$contacts" = 1 ] || { show; fail "$kind: --connect-unix: $contacts contacts"; }
		late_try $kind "$T/out/late/s" --write "$T/out/late"
		assert_status 0
		[ "$contacts" = 1 ] || { show; fail "$kind: --write: $contacts contacts"; }
	done
}

# The workspace is writable: a socket a process outside binds there
# later is the command's to reach (a dev server, a language server).
test_unix_late_socket_in_the_workspace_is_reached() {
	late_try connect "$T/ws/s"
	assert_status 0
	[ "$contacts" = 1 ] || { show; fail "the listener saw $contacts contacts"; }
	late_try sendto "$T/ws/d"
	assert_status 0
	[ "$contacts" = 1 ] || { show; fail "the listener saw $contacts datagrams"; }
}

# A symlink in the workspace to a socket outside: the broker decides on
# what the link leads to.
test_unix_late_symlink_to_a_socket_outside_is_refused() {
	mkdir -p "$T/out/late"
	ln -s "$T/out/late/s" "$T/ws/link"
	LATE_BIND=$T/out/late/s late_try connect "$T/ws/link"
	[ "$contacts" = 0 ] || { show; fail "the listener saw $contacts contacts"; }
	assert_status_not 0
	# the twin: the link to a socket in the workspace is followed
	ln -sf "$T/ws/real" "$T/ws/link"
	LATE_BIND=$T/ws/real late_try connect "$T/ws/link"
	assert_status 0
	[ "$contacts" = 1 ] || { show; fail "the twin saw $contacts contacts"; }
	rm -f "$T/ws/link"
}

# /tmp is the host's, shared with its other processes (an ssh-agent or
# a tmux started after the command): their sockets there are not the
# command's for lying under a default writable root.  The command's own
# socket there is (it is bound in the command's network namespace).
test_unix_late_socket_in_shared_tmp_of_a_process_outside_is_unreachable() {
	local dir kind
	dir=$(mktemp -d /tmp/cordon-it-late.XXXXXX) || fail "mktemp"
	for kind in connect sendto; do
		late_try $kind "$dir/s"
		[ "$contacts" = 0 ] || { show; rm -rf "$dir"; fail "$kind: the listener saw $contacts contacts"; }
		assert_status_not 0
		late_try $kind "$dir/s" --connect-unix "$dir"
		assert_status 0
		[ "$contacts" = 1 ] || { show; rm -rf "$dir"; fail "$kind: --connect-unix: $contacts contacts"; }
		late_plain $kind "$dir/s"
		[ "$contacts" = 1 ] || { rm -rf "$dir"; fail "$kind: the twin saw $contacts contacts"; }
	done
	rm -rf "$dir"
	# the command's own, bound and reached inside (static: no shim)
	cordon -- sh -c 'd=$(mktemp -d /tmp/cordon-own.XXXXXX) &&
		{ "$1" -p "$d/s" -t 5 "$d/port" "$d/count" & } &&
		"$2" connect "$d/s" 5 && sleep 0.3 && cat "$d/count"; rm -rf "$d"' _ \
		"$HELPERS/listener" "$HELPERS/unixpeer"
	assert_status 0
	assert_stdout_has '^ok$'
	assert_stdout_has '^1$'
}

# Under another supervisor's seccomp listener (the kernel takes one per
# chain of filters), the broker cannot be made: where Landlock holds the
# UNIX sockets (RESOLVE_UNIX) none is needed, and a late socket outside
# stays unreachable; elsewhere cordon refuses (125) and names it, unless
# --best-effort, which says what it lacks.
test_unix_late_no_broker_under_another_supervisor() {
	need_helper holdnotify
	if kernel_has resolve_unix; then
		"$HELPERS/holdnotify" "$CORDON" -- touch "$T/ws/ran" > "$T/stdout" 2> "$T/stderr"
		status=$?
		assert_status 0
		assert_exists "$T/ws/ran"
		mkdir -p "$T/out/late"
		LATE_WRAP="$HELPERS/holdnotify" late_try connect "$T/out/late/s"
		[ "$contacts" = 0 ] || { show; fail "the listener saw $contacts contacts"; }
		assert_status_not 0
		# the twin: granted, it is reached under the same supervisor
		LATE_WRAP="$HELPERS/holdnotify" late_try connect "$T/out/late/s" \
			--connect-unix "$T/out/late"
		assert_status 0
		[ "$contacts" = 1 ] || { show; fail "granted: $contacts contacts"; }
		return
	fi
	"$HELPERS/holdnotify" "$CORDON" -- touch "$T/ws/ran" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 125
	assert_stderr_has "refusing to run: no pathname UNIX socket outside bound after the start: nothing here holds it; it needs Landlock ABI 9 (Linux 7.1) or the broker"
	assert_absent "$T/ws/ran"
	"$HELPERS/holdnotify" "$CORDON" --best-effort -- touch "$T/ws/ran" > "$T/stdout" 2> "$T/stderr"
	status=$?
	assert_status 0
	assert_stderr_has "NOT ENFORCED: no pathname UNIX socket outside bound after the start (needs Landlock ABI 9 (Linux 7.1) or the broker"
	assert_exists "$T/ws/ran"
	# the twin: without the listener above, the run is whole
	rm -f "$T/ws/ran"
	cordon -- touch "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
}

# py_connect PATH [CORDON OPTIONS]: python (the shim sees it) waits for
# PATH, then connects; $status, $T/stderr.
unix_py='import os, socket, sys, time
for i in range(100):
    if os.path.exists(sys.argv[1]):
        break
    time.sleep(0.05)
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"x")'

# The allow-all line's options, as printed.
late_pasted() {
	sed -n 's/^cordon: allow all of it with: //p' "$T/stderr" | tail -n 1
}

# A socket a process outside binds later in /tmp (shared with the host)
# is refused whichever mechanism holds it here, explained (the shim's
# line where Landlock refuses it, the summary either way) with the
# option that allows it; pasted, it is reached.
test_unix_late_shared_tmp_refusal_explained_and_pasted() {
	local dir opts
	dir=$(mktemp -d /tmp/cordon-it-late.XXXXXX) || fail "mktemp"
	( sleep 1; exec "$HELPERS/listener" -t 20 -p "$dir/s" "$T/port" "$T/count" ) &
	cordon -- python3 -c "$unix_py" "$dir/s"
	assert_status_not 0
	if kernel_has resolve_unix; then
		assert_stderr_has "^cordon: denied connect $dir/s \[connect, by the kernel\] (a socket of a process outside, in a temp dir shared with the host); allow with --connect-unix $dir/s$"
	fi
	opts=$(late_pasted)
	[ "$opts" = "--connect-unix $dir/s" ] || { show; rm -rf "$dir"; fail "the summary says '$opts'"; }
	cordon $opts -- python3 -c "$unix_py" "$dir/s"
	assert_status 0
	wait
	[ "$(cat "$T/count")" = 1 ] || { rm -rf "$dir"; fail "pasted: $(cat "$T/count") contacts"; }
	rm -rf "$dir"
}

# A --connect-unix of a socket file, and the server binds its path
# again during the run (it restarted): where Landlock holds the sockets
# (its rules are on the socket's inode), the new socket is refused and
# the line names the directory, which pasted reaches it; where the
# broker holds them (by path), it is reached.
test_unix_late_socket_bound_again_at_a_granted_path() {
	mkdir -p "$T/out/sd"
	listen_unix "$T/out/sd/s"
	unlisten_unix
	# the socket file stays (python does not unlink it): the grant's
	( sleep 1; rm -f "$T/out/sd/s"
	  exec "$HELPERS/listener" -t 20 -p "$T/out/sd/s" "$T/port" "$T/count" ) &
	cordon --connect-unix "$T/out/sd/s" -- python3 -c 'import os, socket, sys, time
time.sleep(2)
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"x")' "$T/out/sd/s"
	if kernel_has resolve_unix; then
		assert_status_not 0
		assert_stderr_has "^cordon: denied connect $T/out/sd/s \[connect, by the kernel\] (not the socket that was there at the start: a grant of a socket file holds that socket, one bound at its path later needs its directory); allow with --connect-unix $T/out/sd$"
		cordon --connect-unix "$T/out/sd" -- python3 -c "$unix_py" "$T/out/sd/s"
	elif ! kernel_has landlock; then
		# the command's world binds a granted file: the socket of the
		# start, which no longer listens
		assert_status_not 0
		wait
		[ "$(cat "$T/count")" = 0 ] || fail "reached without Landlock"
		skip "SKIP: without Landlock the command's world binds a granted socket file as it was at the start: a socket bound again there needs its directory granted (checked: nothing reached)"
	fi
	assert_status 0
	wait
	[ "$(cat "$T/count")" = 1 ] || { show; fail "$(cat "$T/count") contacts, expected 1"; }
}
