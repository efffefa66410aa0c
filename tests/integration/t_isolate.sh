# Isolation from cordon's own init and from the host's other processes:
# pid 1 inside holds nothing (no environment, descriptor or way to trace
# it), SysV IPC, /dev/shm and the other terminals of the user are out of
# reach.  Each attempt is made by system calls (tests/helpers/reach.c),
# mostly with --no-shim (the kernel layer alone), its effect is read from
# outside, and its twin shows the same call works on a process or object
# that is the command's own, or without cordon.

reach() { "$HELPERS/reach" "$@"; }

test_isolate_init_has_no_environment_fds_or_tracer() {
	local how
	for how in --no-shim --quiet; do
		CORDON_IT_SECRET=s3cr3t cordon $how -- "$HELPERS/reach" environ 1
		assert_status 1
		assert_stdout_lacks s3cr3t
		cordon $how -- "$HELPERS/reach" mem 1
		assert_status 1
		cordon $how -- "$HELPERS/reach" getfds 1
		assert_status 1
		assert_stdout_lacks '^took'
		cordon $how -- "$HELPERS/reach" ptrace 1
		assert_status 1
		cordon $how -- "$HELPERS/reach" fds 1
		assert_stdout_lacks '^fd '
	done
	# twin: the same calls on a process of the command's own, inside
	# (one holding a descriptor its caller does not have)
	CORDON_IT_SECRET=s3cr3t cordon --no-shim -- sh -c '
		env CORDON_IT_TWIN=t1 sleep 5 < /dev/null > /dev/null 2>&1 7< /dev/null &
		p=$!; sleep 0.3
		"$1" environ $p && "$1" mem $p && "$1" fds $p &&
		"$1" getfds $p && "$1" ptrace $p; r=$?; kill $p; exit $r' \
		sh "$HELPERS/reach"
	assert_status 0
	assert_stdout_has '^CORDON_IT_TWIN=t1$'
	assert_stdout_has '^fd 7$'
	assert_stdout_has '^took 0$'
	assert_stdout_lacks s3cr3t
}

# The audit log was once pid 1's to lose: a forged record appended, the
# log truncated.  Looked at from outside.
test_isolate_audit_log_is_out_of_the_commands_reach() {
	printf '{"first":1}\n' > "$T/out/audit.jsonl"
	echo s3cr3t > "$T/out/secret"
	cordon --log "$T/out/audit.jsonl" -- sh -c \
		'cat "$1" 2> /dev/null; "$2" getfds 1' sh "$T/out/secret" \
		"$HELPERS/reach"
	assert_stdout_lacks '^took'
	assert_stdout_lacks '^wrote'
	[ "$(head -n 1 "$T/out/audit.jsonl")" = '{"first":1}' ] ||
		fail "the log's first record changed"
	! grep -q forged "$T/out/audit.jsonl" || fail "a record was forged"
	grep -q "$T/out/secret" "$T/out/audit.jsonl" ||
		fail "the denial was not recorded"
	# twin: a process outside holding a log is robbed that way
	echo keep > "$T/out/twin.jsonl"
	sleep 5 3>> "$T/out/twin.jsonl" &
	local holder=$! i
	# until the background job is sleep holding the log (before its
	# exec it is a fork of this shell, with the shell's descriptors)
	for i in $(seq 100); do
		[ "$(cat "/proc/$holder/comm" 2> /dev/null)" = sleep ] &&
			[ -e "/proc/$holder/fd/3" ] && break
		sleep 0.05
	done
	plain reach getfds "$holder"
	kill "$holder"
	assert_stdout_has '^truncated 3$'
	[ ! -s "$T/out/twin.jsonl" ] || fail "the twin did not truncate"
}

# A key of our own for this test's SysV objects.
ipc_key() {
	printf '0x%x' $((0x43490000 + ($$ & 0xffff)))
}

test_isolate_sysv_ipc_outside_is_unreachable() {
	local key
	key=$(ipc_key)
	reach shm-rm "$key" > /dev/null; reach msg-rm "$key" > /dev/null
	reach shm-create "$key" orig > /dev/null || fail "cannot make a segment"
	reach msg-create "$key" > /dev/null || fail "cannot make a queue"
	cordon --no-shim -- "$HELPERS/reach" shm-write "$key" pwned
	assert_status 1
	cordon --no-shim -- "$HELPERS/reach" shm-read "$key"
	assert_status 1
	assert_stdout_lacks orig
	cordon --no-shim -- "$HELPERS/reach" msg-send "$key" hi
	assert_status 1
	plain reach shm-read "$key"
	assert_stdout_has '^orig$'
	plain reach msg-count "$key"
	assert_stdout_has '^0$'
	# the command's own IPC works, in its namespace
	cordon --no-shim -- sh -c '"$1" shm-create "$2" own &&
		"$1" shm-read "$2"' sh "$HELPERS/reach" "$key"
	assert_status 0
	assert_stdout_has '^own$'
	plain reach shm-read "$key"
	assert_stdout_has '^orig$'
	# twins: without cordon the same calls reach them
	plain reach shm-write "$key" pwned
	assert_status 0
	plain reach shm-read "$key"
	assert_stdout_has '^pwned$'
	plain reach msg-send "$key" hi
	assert_status 0
	plain reach msg-count "$key"
	assert_stdout_has '^1$'
	reach shm-rm "$key" > /dev/null; reach msg-rm "$key" > /dev/null
}

test_isolate_dev_shm_is_the_commands_own() {
	[ -d /dev/shm ] || skip "SKIP: this host has no /dev/shm"
	local f=/dev/shm/cordon-it-$$-$RANDOM
	echo orig > "$f"
	cordon --no-shim -- sh -c "cat $f; echo pwned > $f; echo own > $f.new &&
		cat $f.new && ls /dev/shm"
	assert_stdout_lacks '^orig$'
	assert_stdout_has '^own$'
	assert_content "$f" orig
	assert_absent "$f.new"
	# the grant: --write /dev/shm is the host's
	cordon --no-shim --write /dev/shm -- sh -c "cat $f; echo granted > $f"
	assert_status 0
	assert_stdout_has '^orig$'
	assert_content "$f" granted
	# twin
	plain sh -c "echo plain > $f"
	assert_content "$f" plain
	rm -f "$f"
}

# Another terminal of the user (a shell, an editor): not opened by name,
# nothing typed into it, nothing typed there read.
test_isolate_other_terminals_are_unreachable() {
	command -v python3 > /dev/null || skip "SKIP: no python3 for the pty"
	python3 - "$CORDON" > "$T/stdout" 2>&1 <<'PY'
import os, subprocess, sys, tty
cordon = sys.argv[1]
m, s = os.openpty()
tty.setraw(s)
name = os.ttyname(s)
os.write(m, b"typed-secret\n")          # what the user typed there
script = 'echo injected > %s; timeout 2 cat %s' % (name, name)
r = subprocess.run([cordon, "--no-shim", "--", "sh", "-c", script],
                   capture_output=True, timeout=60)
print("inside:", r.returncode, r.stdout, r.stderr)
os.set_blocking(m, False)
try:
    got = os.read(m, 100)
except BlockingIOError:
    got = b""
os.set_blocking(s, False)
try:
    left = os.read(s, 100)
except BlockingIOError:
    left = b""
print("master got:", got)
print("still typed:", left)
# twin: without cordon, the same command reaches it
subprocess.run(["sh", "-c", "echo injected > %s" % name], timeout=60)
try:
    twin = os.read(m, 100)
except BlockingIOError:
    twin = b""
print("twin got:", twin)
PY
	grep -q "^master got: b''$" "$T/stdout" || { show; fail "the terminal received what the command typed"; }
	grep -q "^still typed: b'typed-secret" "$T/stdout" || { show; fail "what was typed there was read inside"; }
	grep -q "^twin got: b'injected" "$T/stdout" || { show; fail "the twin could not type"; }
}

# An interactive shell on a real terminal keeps working with a devpts of
# its own: its terminal's name, the window size and its changes, ptys
# made inside (script, Python's pty, tmux).  Job control and Ctrl-C are
# test_escape_job_control_in_an_interactive_terminal's.
test_isolate_interactive_terminal_keeps_working() {
	command -v python3 > /dev/null || skip "SKIP: no python3 for the pty"
	command -v script > /dev/null || skip "SKIP: no script(1)"
	command -v tmux > /dev/null || skip "SKIP: no tmux"
	# TERM: tmux needs a terminal it knows
	PYTHONPATH=$HELPERS python3 - "$CORDON" > "$T/stdout" 2>&1 <<'PY'
import sys
from ptydrive import Pty
t = Pty([sys.argv[1], "--", "bash", "--norc", "--noprofile", "-i"],
        env={"TERM": "xterm"}, rows=33, cols=101)
t.expect(t.PROMPT)
t.run("tty\n", rb"/dev/console\r?\n")
t.run("stty size\n", rb"33 101\r?\n")
t.winsize(40, 120)
t.run("stty size\n", rb"40 120\r?\n")
t.run("python3 -c 'import pty; pty.spawn([\"sh\", \"-c\", \"echo in-pty-$((6*7))\"])'\n",
      rb"in-pty-42")
t.run("script -qc 'echo in-script-$((6*7)); tty' /dev/null\n",
      rb"in-script-42\r?\n/dev/pts/\d+")
t.run("tmux -L cordon-it -f /dev/null new-session 'echo in-tmux-$((6*7)); sleep 1'\n",
      rb"in-tmux-42")
t.run("echo done-$((6*7))\n", rb"done-42")
t.close()
PY
	local rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/stdout"; fail "the terminal session failed ($rc)"; }
	assert_stdout_has 'done-42'
}
