# With the network shared (--net, --connect, --bind) the command lives in
# the host's network namespace: a socket it binds in /tmp, or at an
# abstract name, sits beside the host's.  The broker tells them apart by
# the bind() the command made (enforce/broker/broker_own.c): a socket a process
# outside binds later in /tmp, or at an abstract name, receives nothing;
# the command's own are reached.  Static peers (no shim), counted from
# outside by the listener.

# us_own KIND NAME OPTIONS...: inside cordon, a listener binds NAME (a
# path in a fresh /tmp dir, or @NAME abstract), and unixpeer KIND
# reaches it; prints unixpeer's line and the listener's count.
us_own() {
	local kind=$1 name=$2 lopt=
	shift 2
	[ "$kind" = connect ] || lopt=-u
	cordon "$@" -- sh -c 'd=$(mktemp -d /tmp/cordon-own.XXXXXX) || exit 9
		n=$4; case $n in @*) a="-a ${n#@}" ;; *) n=$d/$n; a="$3 -p $n" ;; esac
		"$1" $a -t 4 "$d/port" "$d/count" &
		"$2" "$5" "$n" 5; sleep 0.3; cat "$d/count"; echo; rm -rf "$d"' _ \
		"$HELPERS/listener" "$HELPERS/unixpeer" "$lopt" "$name" "$kind"
}

test_unix_shared_tmp_socket_of_a_process_outside_is_unreachable() {
	local dir kind opt
	dir=$(mktemp -d /tmp/cordon-it-shared.XXXXXX) || fail "mktemp"
	port_opts --net "--connect 443" "--bind 8080"
	for opt in "${opts[@]}"; do
		for kind in connect sendto sendmsg; do
			[ "$opt" = --net ] || [ "$kind" = connect ] || continue
			# shellcheck disable=SC2086
			late_try $kind "$dir/s" $opt
			[ "$contacts" = 0 ] || { show; rm -rf "$dir"; fail "$opt $kind: the listener saw $contacts contacts"; }
			assert_status_not 0
			assert_stdout_has "^fail EACCES$"
		done
	done
	# the twins: unsandboxed, and granted by --connect-unix
	for kind in connect sendto; do
		late_plain $kind "$dir/s"
		[ "$contacts" = 1 ] || { rm -rf "$dir"; fail "$kind: the twin saw $contacts contacts"; }
		late_try $kind "$dir/s" --net --connect-unix "$dir"
		[ "$contacts" = 1 ] || { show; rm -rf "$dir"; fail "$kind: --connect-unix: $contacts contacts"; }
	done
	rm -rf "$dir"
}

# The command's own sockets in /tmp: a server and a client inside, the
# network shared; stream and datagram.
test_unix_shared_tmp_socket_of_the_command_is_reached() {
	local kind opt
	port_opts --net "--bind 8080"
	for opt in "${opts[@]}"; do
		for kind in connect sendto; do
			# shellcheck disable=SC2086
			us_own $kind s $opt
			assert_status 0
			assert_stdout_has '^ok$'
			assert_stdout_has '^1$'
		done
	done
}

# Abstract names live in the network namespace: with it shared, one a
# process outside bound is refused as Landlock's scope refuses it
# (EPERM), and the command's own is reached.
test_unix_shared_abstract_socket_outside_is_refused_own_reached() {
	local name=cordon-it-abs-$$-$RANDOM
	start_listener -a "$name"
	cordon --net -- "$HELPERS/unixpeer" connect "@$name"
	assert_status_not 0
	assert_stdout_has "^fail EPERM$"
	if kernel_has tcp; then
		cordon --connect 443 -- "$HELPERS/unixpeer" connect "@$name"
		assert_stdout_has "^fail EPERM$"
	else
		port_opts "--connect 443"
	fi
	# the twin: the same peer reaches it unsandboxed
	plain "$HELPERS/unixpeer" connect "@$name"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections"
	# the command's own abstract socket
	us_own connect "@$name-own" --net
	assert_status 0
	assert_stdout_has '^ok$'
	assert_stdout_has '^1$'
}
