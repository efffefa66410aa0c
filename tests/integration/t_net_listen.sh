# With TCP ports allowed (--connect, --bind), a listen() on a TCP socket
# never bound would bind an ephemeral port on every address without the
# bind() Landlock checks (and one a failed connect() left with a port
# listens there): the broker refuses it (EACCES, a record).  A
# static program (tcplisten: raw system calls, no shim) listens; the test
# looks from outside: /proc/net/tcp lists no listening socket of its
# inode, and a connect to the port it got fails.

# nl_run CMD...: run CMD in the background (tcplisten, 4 seconds) and
# wait for its line; sets $nl_pid, $nl_word (ok or fail), $nl_err,
# $nl_port, $nl_ino.
nl_run() {
	rm -f "$T/line"
	"$@" > "$T/line" 2> "$T/stderr" &
	nl_pid=$!
	local i
	for i in $(seq 100); do
		[ -s "$T/line" ] && break
		sleep 0.05
	done
	read -r nl_word nl_err nl_port nl_ino < "$T/line" ||
		fail "no line from tcplisten: $(cat "$T/stderr")"
	if [ "$nl_word" = ok ]; then
		nl_ino=$nl_port nl_port=$nl_err nl_err=
	fi
}

nl_end() {
	kill "$nl_pid" 2> /dev/null
	wait "$nl_pid" 2> /dev/null
	return 0
}

# Is the socket of inode $1 listening, as seen from outside?
nl_listening() {
	cat /proc/net/tcp /proc/net/tcp6 2> /dev/null |
		awk -v ino="$1" '$4 == "0A" && $10 == ino { f = 1 } END { exit !f }'
}

# Does a connect from outside to 127.0.0.1:$1 succeed?
nl_reach() {
	[ "$1" != 0 ] && timeout 3 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2> /dev/null
}

test_net_listen_without_bind_with_ports_is_refused() {
	need_helper tcplisten
	local opt port=$((20000 + RANDOM % 20000))
	for opt in "--connect 443" "--bind $port"; do
		# shellcheck disable=SC2086
		nl_run "$CORDON" --log "$T/log.jsonl" $opt -- "$HELPERS/tcplisten" 4
		[ "$nl_word $nl_err" = "fail EACCES" ] || { nl_end; fail "$opt: $nl_word $nl_err $nl_port"; }
		! nl_listening "$nl_ino" || { nl_end; fail "$opt: socket $nl_ino listens"; }
		! nl_reach "$nl_port" || { nl_end; fail "$opt: port $nl_port reached"; }
		nl_end
	done
	# a socket a failed connect() left with a port: no bind() gave it
	nl_run "$CORDON" --log "$T/log.jsonl" --connect "$port" -- "$HELPERS/tcplisten" -c "$port" 4
	[ "$nl_word $nl_err" = "fail EACCES" ] || { nl_end; fail "after connect: $nl_word $nl_err $nl_port"; }
	! nl_listening "$nl_ino" || { nl_end; fail "after connect: socket $nl_ino listens"; }
	! nl_reach "$nl_port" || { nl_end; fail "after connect: port $nl_port reached"; }
	nl_end
	grep -q '"operation":"listen".*"allow":"with --net"' "$T/log.jsonl" ||
		fail "no record of the refused listen: $(cat "$T/log.jsonl")"
	! grep '"operation":"listen"' "$T/log.jsonl" | grep -q '"allow":"with --bind' ||
		fail "the record suggests --bind"
	# the twin: unsandboxed the same program listens on a random port,
	# reachable from outside
	for opt in "" "-c $port"; do
		# shellcheck disable=SC2086
		nl_run "$HELPERS/tcplisten" $opt 4
		# newer kernels (seen on 6.18.44) refuse a listen() on a socket
		# a failed connect() left: bare as inside, nothing to hold
		if [ -n "$opt" ] && [ "$nl_word $nl_err" = "fail EINVAL" ]; then
			nl_end
			continue
		fi
		[ "$nl_word" = ok ] || { nl_end; fail "bare $opt: $nl_word $nl_err"; }
		nl_listening "$nl_ino" || { nl_end; fail "bare $opt: socket $nl_ino does not listen"; }
		nl_reach "$nl_port" || { nl_end; fail "bare $opt: port $nl_port not reached"; }
		nl_end
	done
}

# bind() to a --bind port, then listen(): the broker performs the
# listen, reachable from outside; --bind 0 (any ephemeral port) and
# --net allow the listen() without bind().
test_net_listen_after_bind_or_with_any_port_works() {
	need_helper tcplisten
	local opt port=$((20000 + RANDOM % 20000))
	nl_run "$CORDON" --bind "$port" -- "$HELPERS/tcplisten" -b "$port" 4
	[ "$nl_word $nl_port" = "ok $port" ] || { nl_end; fail "bind $port: $nl_word $nl_err $nl_port"; }
	nl_listening "$nl_ino" || { nl_end; fail "bind $port: does not listen"; }
	nl_reach "$port" || { nl_end; fail "bind $port: not reached"; }
	nl_end
	for opt in "--bind 0" "--net"; do
		# shellcheck disable=SC2086
		nl_run "$CORDON" $opt -- "$HELPERS/tcplisten" 4
		[ "$nl_word" = ok ] || { nl_end; fail "$opt: $nl_word $nl_err"; }
		nl_listening "$nl_ino" || { nl_end; fail "$opt: does not listen"; }
		nl_end
	done
}
