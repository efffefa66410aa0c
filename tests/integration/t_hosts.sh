# --allow-host: the command's own network namespace, its loopback alone,
# and cordon's proxy outside, reached through HTTP_PROXY, HTTPS_PROXY
# and ALL_PROXY.  The origin is a local server on the host's loopback,
# named through the hosts entries run.sh adds (allowed.cordon.test and
# other.cordon.test: 127.0.0.1), which resolve outside as any name does.

# These are the proxy variables' tests: a kernel without nf_tables NAT
# has them alone, and --no-capture asks for them here (t_capture.sh
# tests what capture adds).  "cordon learn" and "explain" take no run
# options first.  (A name of its own: the suite sources every file into
# one shell.)
hosts_cordon() {
	case $1 in
	learn | explain | probe | session) "$CORDON" "$@" ;;
	*) "$CORDON" --no-capture "$@" ;;
	esac > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

# origin_start [ADDR]: an HTTP server for $T/www on the host's loopback
# (or ADDR); sets $oport; each request it serves is a line in
# $T/origin.log.
origin_start() {
	mkdir -p "$T/www"
	echo "hello from the origin" > "$T/www/index.txt"
	rm -f "$T/oport"
	python3 - "$T/www" "$T/oport" "$T/origin.log" "${1:-127.0.0.1}" <<'EOF' &
import functools, http.server, sys
www, portfile, log, addr = sys.argv[1:5]
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *a):
        with open(log, "a") as f:
            f.write(self.headers.get("Host", "-") + " " + self.path + "\n")
srv = http.server.ThreadingHTTPServer((addr, 0),
        functools.partial(H, directory=www))
srv.timeout = 0.2
open(portfile + ".tmp", "w").write(str(srv.server_address[1]))
import os; os.rename(portfile + ".tmp", portfile)
import time; end = time.time() + 30
while time.time() < end:
    srv.handle_request()
EOF
	origin_pid=$!
	trap 'kill $origin_pid 2>/dev/null' EXIT
	wait_for_file "$T/oport"
	oport=$(cat "$T/oport") || fail "the origin did not start"
	getent hosts allowed.cordon.test | grep -q '^127\.0\.0\.1' ||
		fail "allowed.cordon.test does not resolve to 127.0.0.1 (run.sh adds it to /etc/hosts)"
	: > "$T/origin.log"
}

# host_ipv4: this host's first IPv4 address but loopback (status 1:
# none).
host_ipv4() {
	hostname -I 2> /dev/null | tr ' ' '\n' | grep -m1 '^[0-9.]*$'
}

# served PATTERN: how many requests the origin logged that match.
served() {
	grep -c -- "$1" "$T/origin.log" 2>/dev/null || true
}

test_hosts_curl_reaches_an_allowed_name_and_nothing_else() {
	origin_start
	hosts_cordon --allow-host "allowed.cordon.test:$oport" -- \
		curl -sS "http://allowed.cordon.test:$oport/index.txt"
	assert_status 0
	assert_stdout_has "hello from the origin"
	[ "$(served "allowed.cordon.test:$oport /index.txt")" = 1 ] ||
		fail "the origin did not serve the allowed name"
	# another name of the very same server is refused, and explained
	hosts_cordon --allow-host "allowed.cordon.test:$oport" -- \
		curl -sS -o /dev/null -w '%{http_code}' \
		"http://other.cordon.test:$oport/index.txt"
	assert_stdout_has 403
	assert_stderr_has "^cordon: denied connect other.cordon.test:$oport \[proxy\] (a host no --allow-host names); allow with --allow-host other.cordon.test:$oport$"
	assert_stderr_has "^cordon: 1 denial reported by cordon's supervisor (the broker, the proxy), recorded in "
	assert_stderr_has "^cordon: allow all of it with: --allow-host other.cordon.test:$oport$"
	[ "$(served other.cordon.test)" = 0 ] ||
		fail "the origin served the name not allowed"
	grep -q "\"destination\":\"other.cordon.test:$oport\"" \
		"$HOME/.local/state/cordon/audit.jsonl" ||
		fail "no record of the refused host"
	# the option, pasted as printed, lets it through
	hosts_cordon --allow-host "allowed.cordon.test:$oport" \
		--allow-host "other.cordon.test:$oport" -- \
		curl -sS "http://other.cordon.test:$oport/index.txt"
	assert_status 0
	[ "$(served "other.cordon.test:$oport /index.txt")" = 1 ] ||
		fail "the option printed did not let the name through"
}

test_hosts_connect_tunnel_and_socks() {
	origin_start
	hosts_cordon --allow-host "allowed.cordon.test:$oport" -- \
		curl -sS --proxytunnel "http://allowed.cordon.test:$oport/index.txt"
	assert_status 0
	assert_stdout_has "hello from the origin"
	hosts_cordon --allow-host "allowed.cordon.test:$oport" -- \
		curl -sS --proxytunnel "http://other.cordon.test:$oport/index.txt"
	assert_status_not 0
	assert_stderr_has "allow with --allow-host other.cordon.test:$oport$"
	# ALL_PROXY: SOCKS5 with the name (socks5h)
	hosts_cordon --allow-host "allowed.cordon.test:$oport" -- bash -c \
		'curl -sS --proxy "$ALL_PROXY" "$0"' \
		"http://allowed.cordon.test:$oport/index.txt"
	assert_status 0
	assert_stdout_has "hello from the origin"
	[ "$(served "allowed.cordon.test:$oport /index.txt")" = 2 ] ||
		fail "the origin did not serve both tunnels"
	[ "$(served other.cordon.test)" = 0 ] ||
		fail "the origin served the name not allowed"
}

test_hosts_python_urllib_and_git_over_http() {
	origin_start
	git init -q --bare "$T/www/repo.git"
	git clone -q "$T/www/repo.git" "$T/out/src" 2> /dev/null
	git -C "$T/out/src" -c user.name=t -c user.email=t@t commit -q \
		--allow-empty -m "from the origin"
	git -C "$T/out/src" push -q origin HEAD 2> /dev/null
	git -C "$T/www/repo.git" update-server-info
	hosts_cordon --allow-host "allowed.cordon.test:$oport" -- python3 -c \
		'import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1]).read().decode())' \
		"http://allowed.cordon.test:$oport/index.txt"
	assert_status 0
	assert_stdout_has "hello from the origin"
	hosts_cordon --allow-host "allowed.cordon.test:$oport" -- \
		git clone -q "http://allowed.cordon.test:$oport/repo.git" clone
	assert_status 0
	[ "$(git -C "$T/ws/clone" log --format=%s)" = "from the origin" ] ||
		fail "git did not clone through the proxy"
	hosts_cordon --allow-host "allowed.cordon.test:$oport" -- \
		git clone -q "http://other.cordon.test:$oport/repo.git" clone2
	assert_status_not 0
	assert_absent "$T/ws/clone2/.git"
	[ "$(served other.cordon.test)" = 0 ] ||
		fail "the origin served the name not allowed"
}

test_hosts_ip_literal_and_other_port_refused() {
	origin_start
	# the host's loopback, asked of the proxy (NO_PROXY keeps the
	# sandbox's own loopback from it, hence --noproxy '')
	hosts_cordon --allow-host "allowed.cordon.test:$oport" -- \
		curl -sS --noproxy '' -o /dev/null -w '%{http_code}' \
		"http://127.0.0.1:$oport/index.txt"
	assert_stdout_has 403
	assert_stderr_has "allow with --allow-host 127.0.0.1:$oport$"
	# the allowed name, another port: the rule is for $oport only
	hosts_cordon --allow-host "allowed.cordon.test:$oport" -- \
		curl -sS -o /dev/null -w '%{http_code}' \
		"http://allowed.cordon.test:$((oport + 1))/index.txt"
	assert_stdout_has 403
	assert_stderr_has "allow with --allow-host allowed.cordon.test:$((oport + 1))$"
	# without a port, 80 and 443 only
	hosts_cordon --allow-host allowed.cordon.test -- \
		curl -sS -o /dev/null -w '%{http_code}' \
		"http://allowed.cordon.test:$oport/index.txt"
	assert_stdout_has 403
	[ "$(served /index.txt)" = 0 ] || fail "the origin served a refusal"
	# the IP rule printed lets the literal through
	hosts_cordon --allow-host "127.0.0.1:$oport" -- \
		curl -sS --noproxy '' "http://127.0.0.1:$oport/index.txt"
	assert_status 0
	[ "$(served "127.0.0.1:$oport /index.txt")" = 1 ] ||
		fail "the IP rule did not let the literal through"
}

test_hosts_wildcard_never_reaches_the_hosts_own_addresses() {
	origin_start
	# *.cordon.test matches, but the name is the host's loopback: only
	# the exact name lets it through (the rule in doc/security.md, "Hosts")
	hosts_cordon --allow-host "*.cordon.test:$oport" -- \
		curl -sS -o /dev/null -w '%{http_code}' \
		"http://allowed.cordon.test:$oport/index.txt"
	assert_stdout_has 403
	assert_stderr_has "allow with --allow-host allowed.cordon.test:$oport$"
	[ "$(served /index.txt)" = 0 ] || fail "a wildcard reached loopback"
	hosts_cordon --allow-host "*.cordon.test:$oport" \
		--allow-host "allowed.cordon.test:$oport" -- \
		curl -sS "http://allowed.cordon.test:$oport/index.txt"
	assert_status 0
	[ "$(served /index.txt)" = 1 ] || fail "the exact name was refused"
}

# A static binary's raw connect and sendto, to a listener on every
# address of the host: no route out of the namespace.
test_hosts_static_direct_connect_and_udp_reach_nothing() {
	local addr
	addr=$(host_ipv4) ||
		skip "SKIP: this host has no IPv4 address but loopback"
	start_listener -A
	hosts_cordon --allow-host "allowed.cordon.test" -- \
		"$HELPERS/inetpeer" tcp "$addr" "$port"
	assert_status 1
	hosts_cordon --allow-host "allowed.cordon.test" -- \
		"$HELPERS/inetpeer" tcp 127.0.0.1 "$port"
	assert_status 1
	wait_listener
	[ "$contacts" = 0 ] || fail "the listener saw $contacts connections"
	start_listener -A -u
	hosts_cordon --allow-host "allowed.cordon.test" -- \
		"$HELPERS/inetpeer" udp "$addr" "$port"
	assert_status 1
	wait_listener
	[ "$contacts" = 0 ] || fail "the listener saw $contacts datagrams"
	# the twins: the same calls unsandboxed, and with --net
	start_listener -A
	plain "$HELPERS/inetpeer" tcp "$addr" "$port"
	assert_status 0
	hosts_cordon --net --allow-host "allowed.cordon.test" -- \
		"$HELPERS/inetpeer" tcp "$addr" "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 2 ] || fail "the listener saw $contacts connections, expected 2"
	start_listener -A -u
	plain "$HELPERS/inetpeer" udp "$addr" "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts datagrams, expected 1"
}

test_hosts_direct_connect_of_a_shimmed_program_is_explained() {
	local addr
	addr=$(host_ipv4) ||
		skip "SKIP: this host has no IPv4 address but loopback"
	start_listener -A
	hosts_cordon --allow-host "allowed.cordon.test" -- \
		bash -c 'exec 3<>/dev/tcp/$0/$1' "$addr" "$port"
	assert_status_not 0
	assert_stderr_has "^cordon: denied connect $addr:$port \[connect\] (only the allowed hosts are reached, through cordon's proxy (HTTPS_PROXY, ALL_PROXY), and this program went round it); allow with --net$"
	# the option printed
	hosts_cordon --allow-host "allowed.cordon.test" --net -- \
		bash -c 'exec 3<>/dev/tcp/$0/$1' "$addr" "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections, expected 1"
}

test_hosts_proxy_variables_survive_a_cleared_environment() {
	hosts_cordon --allow-host allowed.cordon.test -- \
		env -i /bin/sh -c 'echo "$HTTPS_PROXY $https_proxy $ALL_PROXY $NO_PROXY"'
	assert_status 0
	assert_stdout_has "^http://127.0.0.1:3128 http://127.0.0.1:3128 socks5h://127.0.0.1:3128 localhost,127.0.0.1,::1$"
	# the user's own are replaced: traffic goes to the proxy or nowhere
	HTTPS_PROXY=http://elsewhere:1 hosts_cordon -e HTTPS_PROXY \
		--allow-host allowed.cordon.test -- printenv HTTPS_PROXY
	assert_stdout_has "^http://127.0.0.1:3128$"
	# --net is the whole network: no proxy
	hosts_cordon --net --allow-host allowed.cordon.test -- printenv HTTPS_PROXY
	assert_status 1
}

test_hosts_profile_key_and_bad_input() {
	origin_start
	printf '{"allow_hosts": ["allowed.cordon.test:%s"]}\n' "$oport" > "$T/out/p.json"
	hosts_cordon -p "$T/out/p.json" -- curl -sS "http://allowed.cordon.test:$oport/index.txt"
	assert_status 0
	assert_stdout_has "hello from the origin"
	hosts_cordon --allow-host 'bad host' -- true
	assert_status 125
	assert_stderr_lines 2
	assert_stderr_has "^cordon: --allow-host 'bad host': expected HOST"
	hosts_cordon --allow-host allowed.cordon.test --connect 443 -- true
	assert_status 125
	assert_stderr_has "^cordon: --allow-host and --connect"
	printf '{"allow_hosts": "x"}\n' > "$T/out/bad.json"
	hosts_cordon -p "$T/out/bad.json" -- true
	assert_status 125
	assert_stderr_has "takes a list of hosts"
}

# Where no network namespace can be made, refused; --best-effort runs
# with no network at all.
test_hosts_refused_without_a_network_namespace() {
	hosts_cordon -- true
	assert_status 0
	plain "$HELPERS/nolandlock" --no-netns -- "$CORDON" \
		--allow-host allowed.cordon.test -- true
	assert_status 125
	assert_stderr_has "hosts reached only through cordon's proxy"
	start_listener
	plain "$HELPERS/nolandlock" --no-netns -- "$CORDON" --best-effort \
		--allow-host allowed.cordon.test -- \
		bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0' "$port"
	assert_status_not 0
	wait_listener
	[ "$contacts" = 0 ] || fail "the listener saw $contacts connections"
	# the twin: the same filter and hosts off reach it with --net
	start_listener
	plain "$HELPERS/nolandlock" --no-netns -- "$CORDON" --net -- \
		bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0' "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections"
}

# learn: a name looked up and connected to is learned as that host; the
# profile reruns through the proxy.
test_hosts_learned_from_a_run() {
	getent hosts far.cordon.test > /dev/null ||
		skip "SKIP: far.cordon.test: this host has no IPv4 address but loopback"
	origin_start 0.0.0.0
	hosts_cordon learn -o "$T/out/p.json" -- \
		curl -sS -o /dev/null "http://far.cordon.test:$oport/index.txt"
	assert_status 0
	assert_stderr_has "1 host into $T/out/p.json"
	python3 -c "import json,sys; p=json.load(open(sys.argv[1]))
assert p == {'allow_hosts': ['far.cordon.test:' + sys.argv[2]]}, p" \
		"$T/out/p.json" "$oport" || fail "the profile learned: $(cat "$T/out/p.json")"
	hosts_cordon -p "$T/out/p.json" -- \
		curl -sS "http://far.cordon.test:$oport/index.txt"
	assert_status 0
	assert_stdout_has "hello from the origin"
	# the twin: without the profile, nothing reaches it
	hosts_cordon -- curl -sS "http://far.cordon.test:$oport/index.txt"
	assert_status_not 0
	[ "$(served /index.txt)" = 2 ] ||
		fail "the origin served $(served /index.txt) requests, expected 2"
}

# explain: a port, with hosts allowed, is reached through the proxy only;
# the option it names (--net) is what reaches it directly.
test_hosts_explain_a_port() {
	hosts_cordon explain --connect 443 --allow-host allowed.cordon.test
	assert_status 1
	assert_stdout_has "^denied connect 443: with --allow-host, the hosts named are reached through cordon's proxy, and none directly; allow with --net$"
	hosts_cordon explain --connect 443 --allow-host allowed.cordon.test --net
	assert_status 0
	assert_stdout_has "^allowed connect 443: the network is on$"
}

# netns_start: a network namespace of the test's own, its loopback up,
# where the proxy (cordon's supervisor) runs and dials: its addresses
# and routes are the test's to add (netns_ip), and no packet leaves it,
# so a name of a special range reaches only what the test put there.
# As root a network namespace; as a user, with a user namespace that
# maps the user to itself, whose capabilities only the control shell
# keeps: cordon and the listener run there as the user, without any
# (in_netns CMD...).  Ends with the test.
netns_start() {
	local userns=()
	[ "$(id -u)" -eq 0 ] || userns=(-U -c --keep-caps)
	mkfifo "$T/netns.ctl" || fail "mkfifo"
	unshare "${userns[@]}" -n bash -c '
		ip link set lo up || exit 1
		exec 3<> "$1/netns.ctl"
		echo up > "$1/netns.ready"
		while read -r -t 120 -u 3 line; do
			ip $line > "$1/netns.out" 2>&1
			echo "$?" >> "$1/netns.out"
			mv "$1/netns.out" "$1/netns.ack"
		done' netns "$T" 2> "$T/netns.err" &
	netns_pid=$!
	trap 'kill $netns_pid 2> /dev/null' EXIT
	wait_for_file "$T/netns.ready"
	[ -s "$T/netns.ready" ] ||
		skip "SKIP: no network namespace of the test's own: $(head -c 200 "$T/netns.err")"
	if [ "$(id -u)" -eq 0 ]; then
		in_ns=(nsenter -t "$netns_pid" -n)
	else
		in_ns=(nsenter -t "$netns_pid" -U -n --preserve-credentials)
	fi
}

# netns_ip ARGS...: `ip ARGS` in the test's namespace, or the test fails.
netns_ip() {
	rm -f "$T/netns.ack"
	echo "$*" > "$T/netns.ctl"
	wait_for_file "$T/netns.ack"
	[ "$(tail -n 1 "$T/netns.ack" 2> /dev/null)" = 0 ] ||
		fail "ip $*: $(cat "$T/netns.ack" 2> /dev/null)"
}

in_netns() {
	"${in_ns[@]}" "$@"
}

# netns_listener: $HELPERS/listener on every address of the test's
# namespace for 20 s; sets $port; the count so far is $T/count's.
netns_listener() {
	rm -f "$T/port" "$T/count"
	in_netns "$HELPERS/listener" -A -t 20 "$T/port" "$T/count" &
	listener_pid=$!
	wait_for_file "$T/port"
	port=$(cat "$T/port") || fail "the listener did not start"
}

# A name below the wildcard that resolves into a special-purpose range
# (RFC 6598's shared address space: tailnets, a cloud's metadata
# service; RFC 2544's benchmarking range) reaches nothing, and the line
# names the exact rule, which reaches it.  The address is a local route
# of the test's namespace, not an address of it: a neighbour, as the
# metadata service is, not the host's own.
test_hosts_wildcard_never_reaches_a_special_range() {
	local name addr range
	netns_start
	netns_listener
	for name in shared bench; do
		addr=$(getent ahostsv4 "$name.cordon.test" | awk 'NR == 1 {print $1}')
		case $name in
		shared) [ "$addr" = 100.100.100.200 ] || fail "shared.cordon.test is '$addr' (run.sh adds it to /etc/hosts)"
			range="shared address space (100.64.0.0/10, RFC 6598)" ;;
		bench) [ "$addr" = 198.18.0.1 ] || fail "bench.cordon.test is '$addr' (run.sh adds it to /etc/hosts)"
			range="benchmarking (198.18.0.0/15, RFC 2544)" ;;
		esac
		netns_ip route add local "$addr/32" dev lo
		in_netns "$CORDON" --no-capture --allow-host "*.cordon.test:$port" -- \
			curl -sS -m 3 -o /dev/null -w '%{http_code}' \
			"http://$name.cordon.test:$port/" > "$T/stdout" 2> "$T/stderr"
		[ "$(cat "$T/count")" = 0 ] ||
			fail "a wildcard reached $addr: the listener saw $(cat "$T/count") connections"
		assert_stdout_has 403
		assert_stderr_has "^cordon: denied connect $name.cordon.test:$port \[proxy\] (a name under a wildcard that resolves to $addr, $range: only a rule naming it reaches it); allow with --allow-host $name.cordon.test:$port$"
		grep "\"destination\":\"$name.cordon.test:$port\"" \
			"$HOME/.local/state/cordon/audit.jsonl" |
			grep -q "\"allow\":\"with --allow-host $name.cordon.test:$port\"" ||
			fail "no record of the refusal of $name.cordon.test"
		# CONNECT, the same
		in_netns "$CORDON" --no-capture --allow-host "*.cordon.test:$port" -- \
			curl -sS -m 3 --proxytunnel "http://$name.cordon.test:$port/" \
			> "$T/stdout" 2> "$T/stderr"
		assert_stderr_has "allow with --allow-host $name.cordon.test:$port$"
		[ "$(cat "$T/count")" = 0 ] ||
			fail "a wildcard reached $addr: the listener saw $(cat "$T/count") connections"
	done
	# the twin: the option printed, pasted, reaches the listener
	in_netns "$CORDON" --no-capture --allow-host "*.cordon.test:$port" \
		--allow-host "shared.cordon.test:$port" -- \
		curl -sS -m 2 "http://shared.cordon.test:$port/" > /dev/null 2>&1
	[ "$(cat "$T/count")" = 1 ] ||
		fail "the exact name did not reach the listener: $(cat "$T/count") connections"
}

# The host's own addresses are re-read when they change: an address
# added to the host while a run lives is refused to a wildcard at once,
# with no restart (added.cordon.test: 100.128.0.1, a global address, on
# the test namespace's loopback only once the run is up).
test_hosts_wildcard_refuses_an_address_added_while_running() {
	local pid
	netns_start
	netns_listener
	getent ahostsv4 added.cordon.test | grep -q '^100\.128\.0\.1 ' ||
		fail "added.cordon.test is not 100.128.0.1 (run.sh adds it to /etc/hosts)"
	in_netns "$CORDON" --no-capture --allow-host "*.cordon.test:$port" -- sh -c \
		'echo up > up; while [ ! -e go ]; do sleep 0.05; done
		curl -sS -m 3 -o /dev/null -w "%{http_code}" "$0"' \
		"http://added.cordon.test:$port/" > "$T/stdout" 2> "$T/stderr" &
	pid=$!
	wait_for_file "$T/ws/up"
	[ -s "$T/ws/up" ] || fail "the run did not start: $(cat "$T/stderr")"
	netns_ip addr add 100.128.0.1/32 dev lo
	: > "$T/ws/go"
	wait "$pid"
	[ "$(cat "$T/count")" = 0 ] ||
		fail "a wildcard reached the address added: $(cat "$T/count") connections"
	assert_stdout_has 403
	assert_stderr_has "^cordon: denied connect added.cordon.test:$port \[proxy\] (a name under a wildcard that resolves to 100.128.0.1, an address of this host: only a rule naming it reaches it); allow with --allow-host added.cordon.test:$port$"
	# the twin: the exact name reaches it
	in_netns "$CORDON" --no-capture --allow-host "added.cordon.test:$port" -- \
		curl -sS -m 2 "http://added.cordon.test:$port/" > /dev/null 2>&1
	[ "$(cat "$T/count")" = 1 ] ||
		fail "the exact name did not reach the listener: $(cat "$T/count") connections"
}
