# The rows of the differential harness (t_actionable.sh) for the
# network: one row a class of denial, refused, explained and fixed by
# the options cordon prints; a listener outside counts the contacts.
declare -F act_row > /dev/null ||
	. "$(dirname "${BASH_SOURCE[0]}")/t_actionable.sh"

# Off by default.
act_row tcp_connect \
	'act_listen' \
	'python3 -c "import socket; socket.create_connection((\"127.0.0.1\", @P), 5).close()"' \
	'act_contacted' \
	$'127.0.0.1:@P\n[socket]' \
	'least=--connect'
act_row tcp_connect_curl \
	'act_listen' \
	'curl -s -m 1 -o /dev/null http://127.0.0.1:@P/' \
	'act_contacted' \
	$'127.0.0.1:@P\n[socket]' \
	'least=--connect' \
	'need=command -v curl || { echo "SKIP: no curl"; false; }'
act_row udp_sendto \
	'act_listen -u' \
	'python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"x\", (\"127.0.0.1\", @P))"' \
	'act_contacted' \
	$'127.0.0.1:@P\n[socket]'
act_row tcp6_connect \
	'act_listen -6' \
	'python3 -c "import socket; socket.create_connection((\"::1\", @P), 5).close()"' \
	'act_contacted' \
	$'[::1]:@P\n::1:@P\n::1 port @P\n[socket]' \
	'least=--connect' \
	'need=python3 -c "import socket; socket.socket(socket.AF_INET6).bind((\"::1\", 0))" || { echo "SKIP: no IPv6 loopback"; false; }'
act_row udp6_sendto \
	'act_listen -6 -u' \
	'python3 -c "import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).sendto(b\"x\", (\"::1\", @P))"' \
	'act_contacted' \
	$'[::1]:@P\n::1:@P\n::1 port @P\n[socket]' \
	'need=python3 -c "import socket; socket.socket(socket.AF_INET6).bind((\"::1\", 0))" || { echo "SKIP: no IPv6 loopback"; false; }'
# A UNIX socket of a process outside, in a directory outside the roots
# (in @T: it lives through the steps).
act_row unix_connect \
	'mkdir -p @T/sd && act_listen -p @T/sd/s' \
	'python3 -c "import socket; socket.socket(socket.AF_UNIX).connect(\"@T/sd/s\")"' \
	'act_contacted' \
	'@T/sd/s' \
	'least=@T/sd/s'
# The same in a directory the command may read: still no connection
# (a socket is no file to read), and --connect-unix, not --write, is
# the least grant.
act_row unix_connect_read_only_root \
	'mkdir -p @T/sr && act_listen -p @T/sr/s' \
	'python3 -c "import socket; socket.socket(socket.AF_UNIX).connect(\"@T/sr/s\")"' \
	'act_contacted' \
	'@T/sr/s' \
	'least=@T/sr/s' \
	'base=--read @T/sr'
# A datagram to a UNIX socket of a process outside.
act_row unix_sendto \
	'mkdir -p @T/su && act_listen -u -p @T/su/s' \
	'python3 -c "import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b\"x\", \"@T/su/s\")"' \
	'act_contacted' \
	'@T/su/s' \
	'least=@T/su/s'
# A listening port: reached from outside while the action holds it.
act_row tcp_bind \
	'act_free_port && act_probe_port' \
	'python3 -c "import socket, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((\"127.0.0.1\", @P)); s.listen(); time.sleep(1.5)"' \
	'act_reached' \
	'127.0.0.1:@P' \
	'least=--bind'
# Port-limited: the connect or bind itself is what is refused; UDP is
# off all the same.
act_row tcp_connect_port_limited \
	'act_listen' \
	'python3 -c "import socket; socket.create_connection((\"127.0.0.1\", @P), 5).close()"' \
	'act_contacted' \
	'127.0.0.1:@P' \
	'least=--connect' \
	'base=--connect 1'
act_row udp_sendto_port_limited \
	'act_listen -u' \
	'python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"x\", (\"127.0.0.1\", @P))"' \
	'act_contacted' \
	$'127.0.0.1:@P\n[socket]' \
	'base=--connect 1'
act_row tcp_bind_port_limited \
	'act_free_port && act_probe_port' \
	'python3 -c "import socket, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((\"127.0.0.1\", @P)); s.listen(); time.sleep(1.5)"' \
	'act_reached' \
	'127.0.0.1:@P' \
	'least=--bind' \
	'base=--bind 1'
