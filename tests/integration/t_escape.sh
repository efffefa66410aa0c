# Escapes the kernel layer must contain without the shim (--no-shim):
# each attempt is made by a system call (tests/helpers/escape.c), its
# effect is read from outside, and its twin shows the same attempt works
# without cordon.  What Landlock itself covers (files, TCP, signals,
# abstract sockets) is in t_fs.sh and t_net.sh; this file holds what
# seccomp and the capability drop add (enforce/linux/sysfilter.c, caps.c).

esc() { # cordon|plain [cordon options --] ACTION ARG...
	local how=$1
	shift
	if [ "$how" = cordon ]; then
		local opts=()
		while [ "$1" != -- ]; do
			opts+=("$1")
			shift
		done
		shift
		cordon --no-shim "${opts[@]}" -- "$HELPERS/escape" "$@"
	else
		plain "$HELPERS/escape" "$@"
	fi
}

esc_root_only() {
	[ "$(id -u)" -eq 0 ] || skip "SKIP: $1 needs root for its twin to work"
}

# --- terminal input injection -----------------------------------------

# run_on_pty OUT CMD...: CMD with a new pty as its controlling terminal
# and stdin; what is then waiting in the terminal's input goes to OUT.
run_on_pty() {
	python3 - "$@" <<'PY'
import os, pty, select, sys, tty
out, cmd = sys.argv[1], sys.argv[2:]
master, slave = pty.openpty()
tty.setraw(slave)
pid = os.fork()
if pid == 0:
    os.setsid()
    os.close(master)
    fd = os.open(os.ttyname(slave), os.O_RDWR)   # the controlling tty
    os.dup2(fd, 0)
    os.execvp(cmd[0], cmd)
_, st = os.waitpid(pid, 0)
os.set_blocking(slave, False)
try:
    data = os.read(slave, 100)
except BlockingIOError:
    data = b""
open(out, "wb").write(data)
sys.exit(os.waitstatus_to_exitcode(st))
PY
}

test_escape_tiocsti_cannot_type_into_the_terminal() {
	command -v python3 > /dev/null || skip "SKIP: no python3 for the pty"
	run_on_pty "$T/typed" "$CORDON" --no-shim -- "$HELPERS/escape" tiocsti 'id; '
	[ ! -s "$T/typed" ] || fail "the terminal received '$(cat "$T/typed")'"
	# twin: without cordon the text lands in the terminal's input
	run_on_pty "$T/typed" "$HELPERS/escape" tiocsti 'id; ' > /dev/null
	[ "$(cat "$T/typed")" = 'id; ' ] ||
		skip "SKIP: TIOCSTI does not work here without cordon (dev.tty.legacy_tiocsti=0?)"
}

# --- io_uring ------------------------------------------------------------

test_escape_io_uring_cannot_create_outside() {
	esc cordon --read "$T/out" -- uring-create "$T/out/new"
	assert_status 1
	assert_stdout_has "^fail ENOSYS$"
	assert_absent "$T/out/new"
	# inside the workspace too: io_uring is refused as a whole
	esc cordon -- uring-create "$T/ws/new"
	assert_absent "$T/ws/new"
	esc plain uring-create "$T/out/new"
	assert_status 0
	assert_exists "$T/out/new"
}

# --- kernel-global state ---------------------------------------------------

test_escape_keyring_is_out_of_reach() {
	local desc=cordon-it-$$-$RANDOM
	esc cordon -- add-key "$desc"
	assert_status 1
	esc plain find-key "$desc"
	assert_status 1 # nothing was added
	esc plain add-key "$desc"
	assert_status 0
	esc cordon -- find-key "$desc"
	assert_status 1
	esc plain find-key "$desc"
	assert_status 0
	esc plain unlink-key "$desc"
}

test_escape_hostname_cannot_change() {
	local before
	before=$(uname -n)
	esc cordon -- sethostname cordon-evil
	assert_status 1
	[ "$(uname -n)" = "$before" ] || { hostname "$before"; fail "the hostname changed"; }
	# twin, in a UTS namespace of its own (never the machine's name)
	if [ "$(id -u)" -eq 0 ]; then
		plain unshare -u "$HELPERS/escape" sethostname cordon-twin
	else
		plain unshare -Ur -u "$HELPERS/escape" sethostname cordon-twin
	fi
	assert_status 0
	[ "$(uname -n)" = "$before" ] || fail "the twin changed the machine's hostname"
}

test_escape_core_pattern_cannot_change() {
	local before
	before=$(cat /proc/sys/kernel/core_pattern)
	cordon --no-shim -- sh -c 'echo "|/bin/sh -c id" > /proc/sys/kernel/core_pattern'
	assert_status_not 0
	[ "$(cat /proc/sys/kernel/core_pattern)" = "$before" ] ||
		{ echo "$before" > /proc/sys/kernel/core_pattern; fail "core_pattern changed"; }
	esc_root_only "writing /proc/sys"
	# twin: root writes a sysctl of its own UTS namespace
	plain unshare -u sh -c 'echo cordon-twin > /proc/sys/kernel/domainname && cat /proc/sys/kernel/domainname'
	assert_status 0
	assert_stdout_has '^cordon-twin$'
}

test_escape_mount_and_namespaces_are_refused() {
	mkdir "$T/ws/mnt"
	if [ "$(id -u)" -eq 0 ]; then
		esc cordon -- mount-tmpfs "$T/ws/mnt"
		assert_status 1
	fi
	# a user namespace would give the command capabilities of its own
	cordon --no-shim -- unshare -Urm sh -c "mount -t tmpfs none '$T/ws/mnt'"
	assert_status_not 0
	! grep -qF " $T/ws/mnt " /proc/self/mountinfo || fail "a tmpfs was mounted"
	# twin: the same works without cordon
	plain unshare -Urm sh -c "mount -t tmpfs none '$T/ws/mnt' && grep -c ' $T/ws/mnt ' /proc/self/mountinfo"
	assert_status 0
	assert_stdout_has '^1$'
}

# --- a root user's capabilities ----------------------------------------

test_escape_root_has_no_capabilities() {
	esc_root_only "a capability"
	echo mine > "$T/ws/f"
	esc cordon -- chown "$T/ws/f" 4321
	assert_status 1
	assert_stdout_has "^fail EPERM$"
	[ "$(stat -c %u "$T/ws/f")" -eq 0 ] || fail "the owner changed"
	cordon --no-shim -- sh -c 'grep -E "^Cap(Eff|Prm|Bnd)" /proc/self/status'
	assert_stdout_has "^CapBnd:[[:space:]]*0000000000000000$"
	assert_stdout_has "^CapEff:[[:space:]]*0000000000000000$"
	# twin
	esc plain chown "$T/ws/f" 4321
	assert_status 0
	[ "$(stat -c %u "$T/ws/f")" -eq 4321 ] || fail "the twin did not chown"
}

test_escape_open_by_handle_is_refused() {
	esc_root_only "open_by_handle_at (CAP_DAC_READ_SEARCH)"
	echo s3cr3t > "$T/out/secret"
	esc cordon --read "$T/out/secret" -- by-handle "$T/out/secret"
	assert_status 1
	assert_stdout_lacks s3cr3t
	esc cordon -- by-handle "$T/out/secret"
	assert_stdout_lacks s3cr3t
	esc plain by-handle "$T/out/secret"
	assert_status 0
	assert_stdout_has '^s3cr3t$'
}

# --- processes outside ------------------------------------------------------

test_escape_limits_and_priority_of_outside_processes() {
	sleep 30 &
	local victim=$! before
	before=$(grep 'Max open files' "/proc/$victim/limits")
	esc cordon -- prlimit "$victim" 64
	assert_status 1
	[ "$(grep 'Max open files' "/proc/$victim/limits")" = "$before" ] ||
		fail "the limit of the process outside changed"
	esc cordon -- setprio "$victim" 7
	assert_status 1
	[ "$(ps -o ni= -p "$victim" | tr -d ' ')" = 0 ] || fail "its priority changed"
	cordon --no-shim -- renice -n 7 -p "$victim"
	assert_status_not 0
	[ "$(ps -o ni= -p "$victim" | tr -d ' ')" = 0 ] || fail "renice reached it"
	# without its own PID namespace (a host that forbids it, with
	# --best-effort), seccomp still keeps the command to itself
	"$HELPERS/nolandlock" --no-namespaces -- "$CORDON" --best-effort --no-shim -- \
		"$HELPERS/escape" prlimit "$victim" 64 > "$T/stdout" 2> "$T/stderr"
	assert_stdout_has "^fail EPERM$"
	"$HELPERS/nolandlock" --no-namespaces -- "$CORDON" --best-effort --no-shim -- \
		"$HELPERS/escape" setprio "$victim" 7 > "$T/stdout" 2> "$T/stderr"
	assert_stdout_has "^fail EPERM$"
	[ "$(grep 'Max open files' "/proc/$victim/limits")" = "$before" ] ||
		fail "the limit of the process outside changed"
	[ "$(ps -o ni= -p "$victim" | tr -d ' ')" = 0 ] || fail "its priority changed"
	# the command's own limits and priority still work, its children's too
	cordon --no-shim -- sh -c 'ulimit -n 64 && ulimit -n && nice -n 3 sh -c "ps -o ni= -p \$\$" || exit 1
		sleep 5 & renice -n 5 -p $! > /dev/null && ps -o ni= -p $!; kill $!'
	assert_status 0
	assert_stdout_has '^64$'
	assert_stdout_has '^ *3$'
	assert_stdout_has '^ *5$'
	# twins
	esc plain prlimit "$victim" 64
	assert_status 0
	grep -q 'Max open files *64 *64' "/proc/$victim/limits" || fail "twin prlimit"
	esc plain setprio "$victim" 7
	assert_status 0
	[ "$(ps -o ni= -p "$victim" | tr -d ' ')" = 7 ] || fail "twin setpriority"
	kill "$victim"
}

test_escape_environ_and_memory_of_outside_processes() {
	CORDON_IT_SECRET=s3cr3t sleep 30 &
	local victim=$!
	cordon --no-shim -- sh -c "tr '\\0' '\\n' < /proc/$victim/environ"
	assert_stdout_lacks s3cr3t
	cordon --no-shim -- sh -c "head -c 16 /proc/$victim/mem"
	assert_status_not 0
	plain sh -c "tr '\\0' '\\n' < /proc/$victim/environ"
	assert_stdout_has '^CORDON_IT_SECRET=s3cr3t$'
	kill "$victim"
}

# --- bypasses of the shim: the kernel layer alone ---------------------------

# A program run from a memfd, or through the dynamic loader, with a
# cleared environment, is still confined.
test_escape_memfd_and_loader_programs_are_confined() {
	echo orig > "$T/out/f"
	local bad="echo bad > '$T/out/f'"
	cordon --read "$T/out" -- "$HELPERS/escape" memfd-exec /bin/sh -c "$bad"
	assert_content "$T/out/f" orig
	cordon --read "$T/out" -- env -i /lib64/ld-linux-x86-64.so.2 /bin/sh -c "$bad"
	assert_content "$T/out/f" orig
	plain "$HELPERS/escape" memfd-exec /bin/sh -c "$bad"
	assert_content "$T/out/f" bad
	echo orig > "$T/out/f"
	plain env -i /lib64/ld-linux-x86-64.so.2 /bin/sh -c "$bad"
	assert_content "$T/out/f" bad
}

test_escape_32bit_system_calls_are_refused() {
	esc plain int80-creat "$T/out/plain32"
	[ -e "$T/out/plain32" ] ||
		skip "SKIP: this kernel runs no 32-bit system calls (IA32 emulation off)"
	esc cordon --read "$T/out" -- int80-creat "$T/out/new32"
	assert_status_not 0
	assert_absent "$T/out/new32"
}

# --- what only the mount and PID namespaces close --------------------------

# Landlock has no right for metadata: every mount but the writable roots
# is read-only in the command's namespace.
# has_xattr FILE: FILE has the attribute user.cordon (escape setxattr's).
has_xattr() {
	python3 -c 'import os, sys; os.getxattr(sys.argv[1], "user.cordon")' "$1" 2> /dev/null
}

test_escape_metadata_of_readable_files_cannot_change() {
	echo orig > "$T/out/f"
	chmod 644 "$T/out/f"
	local before action
	before=$(stat -c '%a %u %Y' "$T/out/f")
	for action in "chmod $T/out/f 777" "chown $T/out/f $(( $(id -u) + 1 ))" \
		"utimes $T/out/f" "setxattr $T/out/f"; do
		# shellcheck disable=SC2086
		esc cordon --read "$T/out" -- $action
		assert_status 1
		assert_stdout_has "^fail E\(ROFS\|PERM\|ACCES\)$"
		[ "$(stat -c '%a %u %Y' "$T/out/f")" = "$before" ] ||
			fail "$action changed $T/out/f"
	done
	! has_xattr "$T/out/f" || fail "an xattr was set"
	# inode flags (chattr +d, which the owner may set)
	cordon --no-shim --read "$T/out" -- chattr +d "$T/out/f"
	assert_status_not 0
	! lsattr "$T/out/f" 2> /dev/null | cut -d' ' -f1 | grep -q d ||
		fail "an inode flag was set"
	# the workspace stays writable, metadata included
	echo mine > "$T/ws/f"
	esc cordon -- chmod "$T/ws/f" 600
	assert_status 0
	[ "$(stat -c %a "$T/ws/f")" = 600 ] || fail "chmod in the workspace"
	# twins
	esc plain chmod "$T/out/f" 600
	assert_status 0
	[ "$(stat -c %a "$T/out/f")" = 600 ] || fail "the twin chmod"
	esc plain utimes "$T/out/f"
	assert_status 0
	[ "$(stat -c %Y "$T/out/f")" = 0 ] || fail "the twin utimes"
	esc plain setxattr "$T/out/f"
	assert_status 0
	has_xattr "$T/out/f" || fail "the twin setxattr"
	if plain chattr +d "$T/out/f" && [ "$status" -eq 0 ]; then
		lsattr "$T/out/f" | cut -d' ' -f1 | grep -q d || fail "the twin chattr"
	else
		echo "note: this filesystem has no inode flags: $(cat "$T/stderr")"
	fi
}

# Landlock checks execve, not mmap: ld.so could map a program from a
# root that is only readable.  Those mounts are noexec.
test_escape_loader_cannot_run_a_program_from_a_readable_root() {
	cp /bin/touch "$T/out/touch"
	cordon --no-shim --read "$T/out" -- /lib64/ld-linux-x86-64.so.2 "$T/out/touch" "$T/ws/ran"
	assert_status_not 0
	assert_absent "$T/ws/ran"
	# an exec root still works through the loader
	cordon --no-shim -- /lib64/ld-linux-x86-64.so.2 /bin/touch "$T/ws/ran2"
	assert_status 0
	assert_exists "$T/ws/ran2"
	# twin
	plain /lib64/ld-linux-x86-64.so.2 "$T/out/touch" "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
}

# Landlock does not check connect() on a socket file: the sockets under
# /run that no writable root grants are covered.
test_escape_socket_under_run_is_unreachable() {
	local dir=/run/cordon-it-$$
	# a user has the directory run.sh made for it
	[ "$(id -u)" -eq 0 ] || dir=/run/cordon-it-$(id -un)/$$
	mkdir "$dir" 2> /dev/null || skip "SKIP: cannot make a socket under /run as $(id -un)"
	rm -f "$T/port"
	"$HELPERS/listener" -p "$dir/sock" -t 4 "$T/port" "$T/count" &
	listener_pid=$!
	for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
	local conn='import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])'
	cordon --no-shim --net -- python3 -c "$conn" "$dir/sock"
	assert_status_not 0
	plain python3 -c "$conn" "$dir/sock"
	assert_status 0
	wait_listener
	rmdir "$dir" 2> /dev/null
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections, expected the twin's only"
}

# A socket under /run bound in another network namespace (a container's
# daemon) is not in this one's /proc/net/unix: the search of /run covers
# it (to its limit of 8 levels).  The broker would refuse the connect
# too: it is kept out (another supervisor above, --best-effort), so
# that the cover alone is tried.
test_escape_socket_under_run_of_another_network_namespace_is_unreachable() {
	[ "$(id -u)" -eq 0 ] || skip "SKIP: another network namespace and /run need root"
	need_helper holdnotify
	local dir=/run/cordon-it-ns-$$
	mkdir -p "$dir/a/b/c" || fail "mkdir"
	rm -f "$T/port"
	unshare --net "$HELPERS/listener" -p "$dir/a/b/c/sock" -t 4 "$T/port" "$T/count" &
	listener_pid=$!
	for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
	grep -q "$dir" /proc/net/unix && fail "the socket is listed in this network namespace"
	local conn='import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])'
	plain "$HELPERS/holdnotify" "$CORDON" -q --best-effort --no-shim --net -- \
		python3 -c "$conn" "$dir/a/b/c/sock"
	assert_status_not 0
	plain python3 -c "$conn" "$dir/a/b/c/sock"
	assert_status 0
	wait_listener
	rm -rf "$dir"
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections, expected the twin's only"
}

# A socket that a process outside listens on in the shared /tmp (tmux,
# X11, ssh-agent) is covered too, unless a --write root names it; the
# command's own sockets in /tmp work.
test_escape_socket_in_tmp_of_a_process_outside_is_unreachable() {
	local dir sock conn
	dir=$(mktemp -d /tmp/cordon-it-sock.XXXXXX) || fail "mktemp"
	sock=$dir/s
	"$HELPERS/listener" -p "$sock" -t 6 "$T/port" "$T/count" &
	listener_pid=$!
	for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
	conn='import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])'
	cordon --no-shim -- python3 -c "$conn" "$sock"
	assert_status_not 0
	# named by a --write root, it is reachable (the one contact)
	cordon --no-shim --write "$dir" -- python3 -c "$conn" "$sock"
	assert_status 0
	# the command's own socket in /tmp
	cordon --no-shim -- python3 -c 'import socket, tempfile, os
d = tempfile.mkdtemp(); p = os.path.join(d, "own")
l = socket.socket(socket.AF_UNIX); l.bind(p); l.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect(p); print("own ok")'
	assert_stdout_has '^own ok$'
	# twin
	plain python3 -c "$conn" "$sock"
	assert_status 0
	wait_listener
	rm -rf "$dir"
	[ "$contacts" = 2 ] || fail "the listener saw $contacts connections, expected 2"
}

# A socket in $HOME (a rootless docker's ~/.docker/run/docker.sock) is
# covered too, unless a writable root holds it.
test_escape_socket_in_home_is_unreachable() {
	# three levels under $HOME, as ~/.docker/run/docker.sock
	local sock=$T/out/docker.sock
	"$HELPERS/listener" -p "$sock" -t 5 "$T/port" "$T/count" &
	listener_pid=$!
	for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
	local conn='import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])'
	cordon --no-shim --read "$T/out" -- python3 -c "$conn" "$sock"
	assert_status_not 0
	cordon --no-shim --write "$T/out" -- python3 -c "$conn" "$sock"
	assert_status 0
	plain python3 -c "$conn" "$sock"
	assert_status 0
	wait_listener
	[ "$contacts" = 2 ] || fail "the listener saw $contacts connections, expected 2"
}

# Any socket file bound when the command starts is covered, however deep
# (the launcher reads /proc/net/unix, it does not search directories),
# unless a writable root holds it.
test_escape_socket_deep_anywhere_is_unreachable() {
	mkdir -p "$T/out/a/b/c/d/e/f"
	local sock=$T/out/a/b/c/d/e/f/deep.sock
	"$HELPERS/listener" -p "$sock" -t 5 "$T/port" "$T/count" &
	listener_pid=$!
	for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
	local conn='import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])'
	cordon --no-shim --read "$T/out" -- python3 -c "$conn" "$sock"
	assert_status_not 0
	cordon --no-shim --write "$T/out/a/b" -- python3 -c "$conn" "$sock"
	assert_status 0
	plain python3 -c "$conn" "$sock"
	assert_status 0
	wait_listener
	[ "$contacts" = 2 ] || fail "the listener saw $contacts connections, expected 2"
}

# Processes outside have no pid inside: not listed, not named.
test_escape_outside_processes_are_invisible() {
	sleep 30 &
	local victim=$!
	cordon --no-shim -- sh -c "cat /proc/$victim/cmdline; ls /proc | grep -cx '[0-9]*'"
	assert_stdout_lacks 'sleep'
	[ "$(tail -n 1 "$T/stdout")" -lt 10 ] || { show; fail "too many processes listed"; }
	plain sh -c "tr '\\0' ' ' < /proc/$victim/cmdline"
	assert_stdout_has 'sleep 30'
	kill "$victim"
}

# --- indirect writes ----------------------------------------------------------

test_escape_indirect_writes_are_refused() {
	echo orig > "$T/out/f"
	esc cordon --read "$T/out" -- reopen-write "$T/out/f" bad
	assert_status 1
	esc cordon --read "$T/out" -- write "/proc/self/root$T/out/f" bad
	assert_status 1
	ln -s "$T/out/f" "$T/ws/link"
	esc cordon --read "$T/out" -- write "$T/ws/link" bad
	assert_status 1
	esc cordon --read "$T/out" -- link "$T/out/f" "$T/ws/hard"
	assert_status 1
	assert_absent "$T/ws/hard"
	esc cordon --read "$T/out" -- rename "$T/out/f" "$T/ws/moved"
	assert_status 1
	assert_absent "$T/ws/moved"
	assert_content "$T/out/f" orig
	# twins
	esc plain reopen-write "$T/out/f" bad1
	assert_content "$T/out/f" bad1
	esc plain write "$T/ws/link" bad2
	assert_content "$T/out/f" bad2
	esc plain link "$T/out/f" "$T/ws/hard"
	assert_exists "$T/ws/hard"
}

# --- what must keep working -----------------------------------------------------

test_escape_must_work_under_the_whole_layer() {
	cat > "$T/ws/hello.c" <<'EOF'
#include <stdio.h>
int main(void) { puts("built and run in the workspace"); return 0; }
EOF
	printf 'hello: hello.c\n\tcc -o hello hello.c\n' > "$T/ws/Makefile"
	cordon -- sh -c 'make -s && ./hello && printf "a\nb\n" | sort -r | head -1 &&
		t=$(mktemp) && echo tmp > "$t" && cat "$t" && rm "$t" &&
		python3 -c "import subprocess; print(subprocess.run([\"echo\", \"py\"], capture_output=True, text=True).stdout.strip())" &&
		git init -q r && git -C r -c user.email=a@b -c user.name=a commit -q --allow-empty -m m && git -C r log --oneline | wc -l &&
		(sleep 0.1 & wait) && echo jobs-ok'
	assert_status 0
	assert_stdout_has '^built and run in the workspace$'
	assert_stdout_has '^b$'
	assert_stdout_has '^tmp$'
	assert_stdout_has '^py$'
	assert_stdout_has '^1$'
	assert_stdout_has '^jobs-ok$'
}

# Job control in an interactive shell on a terminal: a background job,
# then brought to the foreground.
test_escape_job_control_in_an_interactive_terminal() {
	command -v python3 > /dev/null || skip "SKIP: no python3 for the pty"
	PYTHONPATH=$HELPERS python3 - "$CORDON" > "$T/stdout" 2>&1 <<'PY'
import os, sys, time
from ptydrive import Pty
t = Pty([sys.argv[1], "--", "bash", "--norc", "-i"])
def running(argv):
    for p in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                if f.read() == argv:
                    return True
        except OSError:
            pass
    return False
t.expect(t.PROMPT)
t.send("sleep 1 &\n", t.PROMPT)
t.send("jobs\n", rb"Running[^\n]*sleep 1(.|\n)*" + t.PROMPT)
t.send("fg\n", t.PROMPT)    # the prompt is back when sleep 1 has ended
os.write(t.fd, b"sleep 30\n")
end = time.time() + 30
while not running(b"sleep\x0030\x00"):
    if time.time() > end:
        t.give_up("sleep 30 never started")
    time.sleep(0.05)
t.send("\x03", t.PROMPT)      # Ctrl-C ends the foreground job, not cordon
t.send("echo done-$((6*7))\n", rb"\ndone-42")
t.close()
PY
	assert_stdout_has 'Running.*sleep 1'
	assert_stdout_has 'done-42'
	! grep -q 'no job control' "$T/stdout" || { show; fail "bash has no job control"; }
}
