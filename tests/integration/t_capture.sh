# --allow-host with transparent capture (enforce/linux/netcap.c): in the
# command's network namespace every TCP connection to an address not the
# namespace's own reaches cordon's proxy, which decides by the name the
# client sent (TLS SNI, HTTP Host) or, with none (ssh, a bare request),
# by the name the address came from; every DNS query, to any server,
# reaches cordon's resolver.  Programs run as they would bare: no proxy
# variables, no proxy properties.  The origins are servers outside on
# this host's address (far.cordon.test, which run.sh adds to /etc/hosts)
# or its loopback; each effect is read from what they logged, and each
# denial has its twin, the same action with the grant (or bare).
# origin_start, served and host_ipv4 are t_hosts.sh's.

# cap_cordon ARGS...: lib.sh's cordon, under a name of this file's (every
# t_*.sh is sourced into one shell; t_hosts.sh's hosts_cordon adds
# --no-capture).
cap_cordon() {
	"$CORDON" "$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

# cap_track PID...: end these processes with the test (origin_start's
# own EXIT trap is replaced: call this after it).
cap_track() {
	cap_pids+=("$@")
	trap 'kill "${cap_pids[@]}" 2> /dev/null' EXIT
}
cap_pids=()

# cap_require: capture holds in this kernel, or the test is skipped
# with the reason: nft missing, or no nf_tables NAT (cordon says so,
# and falls back to the proxy variables).
cap_require() {
	[ -x /usr/sbin/nft ] || [ -x /sbin/nft ] ||
		skip "SKIP: no nft (Debian's nftables): no transparent capture"
	"$CORDON" --allow-host far.cordon.test -- true > /dev/null 2> "$T/cap.err"
	if grep -q "no transparent capture here" "$T/cap.err"; then
		skip "SKIP: $(grep -m1 "no transparent capture here" "$T/cap.err")"
	fi
}

# cap_far: $far, the address of far.cordon.test, this host's (run.sh's
# hosts entry), or the test is skipped.
cap_far() {
	local own
	own=$(host_ipv4) ||
		skip "SKIP: this host has no IPv4 address but loopback"
	far=$(getent ahostsv4 far.cordon.test | awk 'NR == 1 {print $1}')
	[ -n "$own" ] && [ -n "$far" ] ||
		skip "SKIP: no far.cordon.test on an address of this host's (no network here)"
	[ "$far" = "$own" ] ||
		fail "far.cordon.test is '$far', not this host's $own (run.sh adds it to /etc/hosts)"
}

# cap_origin [ADDR]: origin_start on ADDR (the loopback), ended with
# the test.
cap_origin() {
	origin_start "${1:-127.0.0.1}"
	cap_track "$origin_pid"
}

# cap_free_port ADDR: a TCP port nothing listens on at ADDR.
cap_free_port() {
	python3 -c 'import socket, sys
s = socket.socket()
s.bind((sys.argv[1], 0))
print(s.getsockname()[1])' "$1"
}

# cap_addrs FAMILY NAME: NAME's addresses outside, as getent gives them
# (FAMILY 4 or 6; for 6 not the IPv4-mapped ones that getent adds for
# an IPv4 name), sorted; none: nothing.
cap_addrs() {
	getent "ahostsv$1" "$2" | awk '$1 !~ /^::ffff:/ {print $1}' | sort -u
}

# cap_got: the addresses dnsconnect -q printed, sorted.
cap_got() {
	awk '$1 == "address" {print $2}' "$T/stdout" | sort
}

test_capture_curl_reaches_an_allowed_host_without_proxy_variables() {
	local url
	cap_require
	cap_far
	cap_origin "$far"
	url="http://far.cordon.test:$oport/index.txt"
	# nothing says "proxy" to the command: it connects as it would bare
	cap_cordon --allow-host "far.cordon.test:$oport" -- env
	assert_status 0
	! grep -qi '_proxy=' "$T/stdout" ||
		fail "proxy variables set: $(grep -i '_proxy=' "$T/stdout")"
	# the twin: without capture they are there, and the check sees them
	cap_cordon --no-capture --allow-host "far.cordon.test:$oport" -- env
	grep -q '^HTTPS_PROXY=' "$T/stdout" ||
		fail "--no-capture set no HTTPS_PROXY: $(cat "$T/stdout")"
	cap_cordon --allow-host "far.cordon.test:$oport" -- \
		env -u HTTP_PROXY -u http_proxy -u ALL_PROXY curl -sS -m 10 "$url"
	assert_status 0
	assert_stdout_has "hello from the origin"
	[ "$(served "far.cordon.test:$oport /index.txt")" = 1 ] ||
		fail "the origin did not serve the allowed host: $(cat "$T/origin.log")"
	# the grant of another name: refused, said, nothing served
	cap_cordon --allow-host "other.cordon.test:$oport" -- curl -sS -m 10 "$url"
	assert_status_not 0
	assert_stderr_has "^cordon: denied connect far.cordon.test:$oport \[proxy\] (a host no --allow-host names); allow with --allow-host far.cordon.test:$oport$"
	[ "$(served /index.txt)" = 1 ] ||
		fail "the origin served a host not allowed: $(cat "$T/origin.log")"
}

test_capture_java_reaches_an_allowed_host_without_proxy_properties() {
	local url
	{ command -v javac && command -v java; } > /dev/null ||
		skip "SKIP: no javac and java (Debian's default-jdk-headless)"
	cap_require
	cap_far
	cap_origin "$far"
	url="http://far.cordon.test:$oport/index.txt"
	mkdir -p "$T/ws/java"
	cat > "$T/ws/java/Get.java" <<'EOF'
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;

public class Get {
	public static void main(String[] args) throws Exception {
		HttpURLConnection c =
			(HttpURLConnection) new URL(args[0]).openConnection();
		c.setConnectTimeout(10000);
		c.setReadTimeout(10000);
		try (InputStream in = c.getInputStream()) {
			System.out.println(c.getResponseCode() + " " +
				new String(in.readAllBytes()).trim());
		} catch (java.io.IOException e) {
			System.out.println("failed " + e);
			System.exit(1);
		}
	}
}
EOF
	javac -d "$T/ws/java" "$T/ws/java/Get.java" 2> "$T/javac.err" ||
		fail "javac: $(cat "$T/javac.err")"
	cap_cordon --allow-host "far.cordon.test:$oport" -- \
		java -cp "$T/ws/java" Get "$url"
	assert_status 0
	assert_stdout_has "^200 hello from the origin$"
	[ "$(served "far.cordon.test:$oport /index.txt")" = 1 ] ||
		fail "the origin did not serve Java: $(cat "$T/origin.log")"
	cap_cordon --allow-host "other.cordon.test:$oport" -- \
		java -cp "$T/ws/java" Get "$url"
	assert_status 1
	assert_stdout_has "^failed "
	assert_stderr_has "^cordon: denied connect far.cordon.test:$oport \[proxy\] (a host no --allow-host names); allow with --allow-host far.cordon.test:$oport$"
	[ "$(served /index.txt)" = 1 ] ||
		fail "the origin served a host not allowed: $(cat "$T/origin.log")"
}

# sshd_start: an sshd of the test's own on $far, port $sport, that lets
# the current user in with the key $T/ssh/id; its log is $T/sshd.log.
sshd_start() {
	local user i
	user=$(id -un)
	mkdir -p "$T/ssh"
	ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/host" < /dev/null ||
		fail "ssh-keygen (host key)"
	ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/id" < /dev/null ||
		fail "ssh-keygen (user key)"
	cp "$T/ssh/id.pub" "$T/ssh/authorized_keys"
	sport=$(cap_free_port "$far")
	cat > "$T/ssh/sshd_config" <<EOF
Port $sport
ListenAddress $far
HostKey $T/ssh/host
AuthorizedKeysFile $T/ssh/authorized_keys
AllowUsers $user
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PidFile none
LogLevel VERBOSE
EOF
	# as root, sshd wants its privilege separation directory, which
	# the package's service makes when it starts (here it is not)
	if [ "$(id -u)" -eq 0 ] && [ ! -d /run/sshd ]; then
		install -d -m 755 /run/sshd || fail "cannot make /run/sshd"
	fi
	/usr/sbin/sshd -D -f "$T/ssh/sshd_config" -E "$T/sshd.log" &
	cap_track $!
	for i in $(seq 100); do
		grep -q "Server listening on $far port $sport" "$T/sshd.log" \
			2> /dev/null && return 0
		sleep 0.05
	done
	fail "sshd did not start: $(cat "$T/sshd.log" 2> /dev/null)"
}

# sshd_seen: how many connections sshd logged.
sshd_seen() {
	grep -c "Connection from .* port .* on $far port $sport" "$T/sshd.log" || true
}

test_capture_git_over_ssh_by_the_address_of_an_allowed_name() {
	local sshcmd
	[ -x /usr/sbin/sshd ] ||
		skip "SKIP: no /usr/sbin/sshd (Debian's openssh-server)"
	command -v ssh > /dev/null ||
		skip "SKIP: no ssh (Debian's openssh-client)"
	cap_require
	cap_far
	sshd_start
	git init -q --bare "$T/srv/repo.git"
	git clone -q "$T/srv/repo.git" "$T/out/src" 2> /dev/null
	echo "over ssh" > "$T/out/src/hello.txt"
	git -C "$T/out/src" add hello.txt
	git -C "$T/out/src" -c user.name=t -c user.email=t@t commit -q -m one
	git -C "$T/out/src" push -q origin HEAD 2> /dev/null ||
		fail "cannot fill the bare repository"
	sshcmd="ssh -i $T/ssh/id -o StrictHostKeyChecking=no"
	sshcmd+=" -o UserKnownHostsFile=$T/ws/kh -o BatchMode=yes"
	sshcmd+=" -o ConnectTimeout=10"
	# ssh sends no name: the proxy knows the address by the rule's name
	cap_cordon --allow-host "far.cordon.test:$sport" -r "$T/ssh" \
		-e "GIT_SSH_COMMAND=$sshcmd" -- \
		git clone -q "ssh://far.cordon.test:$sport$T/srv/repo.git" clone
	assert_status 0
	assert_content "$T/ws/clone/hello.txt" "over ssh"
	[ "$(sshd_seen)" = 1 ] ||
		fail "sshd logged $(sshd_seen) connections, expected 1: $(cat "$T/sshd.log")"
	grep -q "Accepted publickey for $(id -un)" "$T/sshd.log" ||
		fail "sshd let no one in: $(cat "$T/sshd.log")"
	# the grant of another name: the clone fails, sshd sees nothing
	cap_cordon --allow-host "other.cordon.test:$sport" -r "$T/ssh" \
		-e "GIT_SSH_COMMAND=$sshcmd" -- \
		git clone -q "ssh://far.cordon.test:$sport$T/srv/repo.git" clone2
	assert_status_not 0
	assert_absent "$T/ws/clone2/hello.txt"
	# no name on the wire, and none of the rules' has this address
	assert_stderr_has "^cordon: denied connect $far:$sport \[proxy\] (an address no allowed name resolved to, and no --allow-host names); allow with --allow-host $far:$sport$"
	[ "$(sshd_seen)" = 1 ] ||
		fail "sshd logged $(sshd_seen) connections, expected 1: $(cat "$T/sshd.log")"
}

# A static binary (no getaddrinfo, no libc wrapper the shim sees) that
# sends its own DNS query and connects to the address it got.
test_capture_static_dns_and_connect_reach_an_allowed_host() {
	cap_require
	cap_far
	cap_origin "$far"
	cap_cordon --allow-host "far.cordon.test:$oport" -- \
		"$HELPERS/dnsconnect" far.cordon.test "$oport"
	assert_status 0
	assert_stdout_has "^resolved far.cordon.test $far$"
	assert_stdout_has "^reply HTTP/1.0 200 OK"
	# no Host header: the proxy knew the address by the name
	[ "$(served "^- /index.txt")" = 1 ] ||
		fail "the origin did not serve the static binary: $(cat "$T/origin.log")"
	# the query over TCP
	cap_cordon --allow-host "far.cordon.test:$oport" -- \
		"$HELPERS/dnsconnect" -t far.cordon.test "$oport"
	assert_status 0
	assert_stdout_has "^reply HTTP/1.0 200 OK"
	[ "$(served "^- /index.txt")" = 2 ] ||
		fail "the origin did not serve the query over TCP: $(cat "$T/origin.log")"
	# the grant of another name: the name is NXDOMAIN, and said
	cap_cordon --allow-host "other.cordon.test:$oport" -- \
		"$HELPERS/dnsconnect" far.cordon.test "$oport"
	assert_status 3
	assert_stdout_has "^nxdomain far.cordon.test$"
	assert_stderr_has "^cordon: denied lookup far.cordon.test \[resolver\] (a name no --allow-host names); allow with --allow-host far.cordon.test$"
	# and its address, without the name, is refused too
	cap_cordon --allow-host "other.cordon.test:$oport" -- \
		"$HELPERS/dnsconnect" "$far" "$oport"
	assert_status_not 0
	assert_stdout_lacks "^reply"
	assert_stderr_has "^cordon: denied connect $far:$oport \[proxy\] (an address no allowed name resolved to, and no --allow-host names); allow with --allow-host $far:$oport$"
	[ "$(served /index.txt)" = 2 ] ||
		fail "the origin served a host not allowed: $(cat "$T/origin.log")"
	# the option printed lets the address through
	cap_cordon --allow-host "other.cordon.test:$oport" \
		--allow-host "$far:$oport" -- "$HELPERS/dnsconnect" "$far" "$oport"
	assert_status 0
	assert_stdout_has "^reply HTTP/1.0 200 OK"
	[ "$(served "^- /index.txt")" = 3 ] ||
		fail "the option printed did not let the address through: $(cat "$T/origin.log")"
}

test_capture_resolver_answers_only_allowed_names() {
	local want6 t
	cap_require
	cap_far
	for t in "" -t; do
		# A: the addresses the host's own resolver gives
		cap_cordon --allow-host far.cordon.test -- \
			"$HELPERS/dnsconnect" -q $t far.cordon.test
		assert_status 0
		[ "$(cap_got)" = "$(cap_addrs 4 far.cordon.test)" ] ||
			fail "A ($t): '$(cap_got)', outside '$(cap_addrs 4 far.cordon.test)'"
		# AAAA: the same, or none (and then no NXDOMAIN: the name is)
		want6=$(cap_addrs 6 far.cordon.test)
		cap_cordon --allow-host far.cordon.test -- \
			"$HELPERS/dnsconnect" -q -6 $t far.cordon.test
		if [ -z "$want6" ]; then
			assert_status 4
			assert_stdout_has "^noanswer far.cordon.test 0$"
		else
			assert_status 0
			[ "$(cap_got)" = "$want6" ] ||
				fail "AAAA ($t): '$(cap_got)', outside '$want6'"
		fi
		assert_stderr_lacks "denied"
		# another name, in /etc/hosts outside too: NXDOMAIN, said
		cap_cordon --allow-host far.cordon.test -- \
			"$HELPERS/dnsconnect" -q $t other.cordon.test
		assert_status 3
		assert_stdout_has "^nxdomain other.cordon.test$"
		assert_stderr_has "^cordon: denied lookup other.cordon.test \[resolver\] (a name no --allow-host names); allow with --allow-host other.cordon.test$"
		cap_cordon --allow-host far.cordon.test -- \
			"$HELPERS/dnsconnect" -q -6 $t other.cordon.test
		assert_status 3
		assert_stdout_has "^nxdomain other.cordon.test$"
	done
}

# A query sent to a server of the program's choice reaches cordon's
# resolver all the same: the allowed name is answered, another refused
# with cordon's line, whatever listens there.
test_capture_dns_sent_elsewhere_is_answered_by_cordon() {
	local t
	cap_require
	cap_far
	for t in "" -t; do
		cap_cordon --allow-host far.cordon.test -- \
			"$HELPERS/dnsconnect" -q -s "$far" $t far.cordon.test
		assert_status 0
		assert_stdout_has "^address $far$"
		cap_cordon --allow-host far.cordon.test -- \
			"$HELPERS/dnsconnect" -q -s 192.0.2.123 $t other.cordon.test
		assert_status 3
		assert_stderr_has "^cordon: denied lookup other.cordon.test \[resolver\] (a name no --allow-host names); allow with --allow-host other.cordon.test$"
	done
}

# fakedns_start: a DNS server outside on $far port 53, UDP and TCP, that
# answers every A query with $far and logs "udp NAME" or "tcp NAME" for
# each in $T/fakedns.log.  Skips the test where port 53 cannot be bound
# (a user, without CAP_NET_BIND_SERVICE).
fakedns_start() {
	: > "$T/fakedns.log"
	python3 - "$far" "$T/fakedns.log" "$T/fakedns.ready" <<'EOF' &
import socket, struct, sys, threading, time
addr, log, ready = sys.argv[1:4]
lock = threading.Lock()
def name_of(q):
    off, labels = 12, []
    while off < len(q) and q[off]:
        labels.append(q[off + 1:off + 1 + q[off]].decode("ascii", "replace"))
        off += 1 + q[off]
    return ".".join(labels), off + 5
def answer(proto, q):
    if len(q) < 12:
        return b""
    name, end = name_of(q)
    with lock, open(log, "a") as f:
        f.write(proto + " " + name + "\n")
    rr = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 60, 4) + socket.inet_aton(addr)
    return q[:2] + b"\x81\x80" + struct.pack(">HHHH", 1, 1, 0, 0) + q[12:end] + rr
def udp(s):
    while True:
        q, peer = s.recvfrom(4096)
        s.sendto(answer("udp", q), peer)
def tcp(s):
    while True:
        c, _ = s.accept()
        c.settimeout(5)
        try:
            n = struct.unpack(">H", c.recv(2, socket.MSG_WAITALL))[0]
            a = answer("tcp", c.recv(n, socket.MSG_WAITALL))
            c.sendall(struct.pack(">H", len(a)) + a)
        except Exception:
            pass
        c.close()
try:
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((addr, 53))
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    t.bind((addr, 53))
    t.listen(8)
except OSError as e:
    open(ready, "w").write("cannot bind %s port 53: %s\n" % (addr, e.strerror))
    sys.exit(1)
for f, s in ((udp, u), (tcp, t)):
    threading.Thread(target=f, args=(s,), daemon=True).start()
open(ready, "w").write("up\n")
time.sleep(30)
EOF
	cap_track $!
	wait_for_file "$T/fakedns.ready"
	case $(cat "$T/fakedns.ready" 2> /dev/null) in
	up) ;;
	cannot*) skip "SKIP: the fake DNS server: $(cat "$T/fakedns.ready")" ;;
	*) fail "the fake DNS server did not start" ;;
	esac
}

# The same, with a server that listens there: it never hears a query
# from inside; bare, it hears each.
test_capture_dns_sent_elsewhere_never_leaves() {
	local t
	cap_require
	cap_far
	fakedns_start
	for t in "" -t; do
		cap_cordon --allow-host far.cordon.test -- \
			"$HELPERS/dnsconnect" -q -s "$far" $t other.cordon.test
		assert_status 3
		assert_stderr_has "^cordon: denied lookup other.cordon.test \[resolver\] "
		cap_cordon --allow-host far.cordon.test -- \
			"$HELPERS/dnsconnect" -q -s "$far" $t far.cordon.test
		assert_status 0
	done
	[ ! -s "$T/fakedns.log" ] ||
		fail "the server outside heard from the sandbox: $(cat "$T/fakedns.log")"
	# the twins: bare, each query reaches it
	plain "$HELPERS/dnsconnect" -q -s "$far" other.cordon.test
	assert_status 0
	assert_stdout_has "^address $far$"
	plain "$HELPERS/dnsconnect" -q -s "$far" -t other.cordon.test
	assert_status 0
	assert_content "$T/fakedns.log" "udp other.cordon.test
tcp other.cordon.test"
}

# --allow-host of a loopback address and port: a listener on that port
# of the namespace's loopback, forwarded to the host's.
test_capture_loopback_grants_reach_the_hosts_loopback() {
	local n=0 name
	cap_require
	cap_origin
	for name in localhost 127.0.0.1 allowed.cordon.test; do
		cap_cordon --allow-host "$name:$oport" -- \
			curl -sS -m 10 "http://$name:$oport/index.txt"
		assert_status 0
		assert_stdout_has "hello from the origin"
		n=$((n + 1))
		[ "$(served "$name:$oport /index.txt")" = 1 ] ||
			fail "the origin did not serve $name: $(cat "$T/origin.log")"
	done
	# a static binary, by the address
	cap_cordon --allow-host "127.0.0.1:$oport" -- \
		"$HELPERS/dnsconnect" 127.0.0.1 "$oport"
	assert_status 0
	assert_stdout_has "^reply HTTP/1.0 200 OK"
	n=$((n + 1))
	[ "$(served /index.txt)" = "$n" ] ||
		fail "the origin served $(served /index.txt), expected $n: $(cat "$T/origin.log")"
	# the twins: hosts allowed, but not that port of the loopback
	for name in localhost 127.0.0.1; do
		cap_cordon --allow-host "far.cordon.test:$oport" -- \
			curl -sS -m 10 "http://$name:$oport/index.txt"
		assert_status_not 0
		assert_stdout_lacks "hello from the origin"
	done
	cap_cordon --allow-host "far.cordon.test:$oport" -- \
		"$HELPERS/dnsconnect" 127.0.0.1 "$oport"
	assert_status 5
	[ "$(served /index.txt)" = "$n" ] ||
		fail "the origin served $(served /index.txt), expected $n: $(cat "$T/origin.log")"
}

# An allowed host that the host's own network fails is said to be that,
# not a denial: a refused port, a name that does not resolve outside.
test_capture_allowed_host_the_network_fails_is_not_the_policy() {
	local dead
	cap_require
	cap_far
	dead=$(cap_free_port "$far")
	cap_cordon --allow-host "far.cordon.test:$dead" -- \
		curl -sS -m 10 "http://far.cordon.test:$dead/"
	assert_status_not 0
	assert_stderr_has "^cordon: far.cordon.test:$dead is allowed, but the host's own network failed it (Connection refused): not the policy$"
	assert_stderr_lacks "denied"
	# the twin: bare, refused the same
	plain curl -sS -m 10 "http://far.cordon.test:$dead/"
	assert_status 7
	# a static binary, the same
	cap_cordon --allow-host "far.cordon.test:$dead" -- \
		"$HELPERS/dnsconnect" far.cordon.test "$dead"
	assert_status_not 0
	assert_stdout_lacks "^reply"
	assert_stderr_has "^cordon: far.cordon.test:$dead is allowed, but the host's own network failed it (Connection refused): not the policy$"
	assert_stderr_lacks "denied"
	# a name that resolves nowhere
	! getent hosts nosuch.cordon.test > /dev/null ||
		fail "nosuch.cordon.test resolves outside: $(getent hosts nosuch.cordon.test)"
	cap_cordon --allow-host nosuch.cordon.test -- \
		curl -sS -m 10 http://nosuch.cordon.test/
	assert_status 6
	assert_stderr_has "Could not resolve host: nosuch.cordon.test"
	assert_stderr_has "^cordon: nosuch.cordon.test is allowed, but the host's own network failed it (.*): not the policy$"
	assert_stderr_lacks "denied"
	plain curl -sS -m 10 http://nosuch.cordon.test/
	assert_status 6
}
