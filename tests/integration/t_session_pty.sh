# Sessions at a terminal: a call gets a pseudo-terminal of the
# session's own, relayed by `cordon run`, never the caller's terminal;
# what a call leaves behind keeps only what the caller passed that is
# no terminal (session_pty.c, session_tty.c).  session_start and the
# other helpers are t_session.sh's.  Every test drives a real terminal
# (ptydrive.py) running bash; the effects are checked from outside.

# pty_drive NAME: run the Python driver read from stdin with the
# session, the helpers and $T; its output in $T/drive.
pty_drive() {
	PYTHONPATH=$HELPERS python3 - "$CORDON" "$sid" "$HELPERS" "$T" \
		> "$T/drive" 2>&1
	local rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/drive"; fail "the terminal's driver failed ($rc)"; }
}

# The prelude of every driver: bash on a new terminal, 33x101.
PTY_PRELUDE='
import os, re, select, signal, sys, time
from ptydrive import Pty
cordon, sid, helpers, T = sys.argv[1:]
run = "%s run --session %s -- " % (cordon, sid)
t = Pty(["/bin/bash", "--norc", "--noprofile", "-i"],
        env={"TERM": "xterm"}, rows=33, cols=101)
t.expect(t.PROMPT)
t.run("tty > %s/caller_tty; stty -g > %s/modes.before\n" % (T, T), rb"")
caller = os.stat(open(T + "/caller_tty").read().strip()).st_rdev

def leftover(tag):
    """The pid of the ttygrab whose command line ends with @tag (not
    the client, whose command line ends the same)."""
    end = time.time() + 10
    while time.time() < end:
        for p in os.listdir("/proc"):
            try:
                cmd = open("/proc/%s/cmdline" % p, "rb").read()
            except OSError:
                continue
            if (p.isdigit() and cmd.endswith(tag.encode() + b"\0") and
                    cmd.split(b"\0")[0].endswith(b"/ttygrab")):
                return int(p)
        time.sleep(0.05)
    t.give_up("no leftover " + tag)

def finish():
    """finish(), but a shell that lost its input to a leftover (and
    waits on in a read) is killed rather than waited for forever."""
    os.write(t.fd, b"exit\n")
    end, done = time.time() + 5, False
    while time.time() < end and not done:
        if select.select([t.fd], [], [], 0.2)[0]:
            try:
                d = os.read(t.fd, 4096)
            except OSError:
                d = b""
            t.out += d
        done = os.waitpid(t.pid, os.WNOHANG)[0] != 0
    if not done:
        os.kill(t.pid, signal.SIGKILL)
        os.waitpid(t.pid, 0)
    sys.stdout.write(t.out.decode(errors="replace") + "\n")

def fds(pid):
    """Each descriptor of @pid: (fd, link, rdev or None)."""
    out = []
    for fd in sorted(os.listdir("/proc/%d/fd" % pid), key=int):
        f = "/proc/%d/fd/%s" % (pid, fd)
        st = os.stat(f)
        out.append((int(fd), os.readlink(f),
                    st.st_rdev if (st.st_mode & 0o170000) == 0o020000 else None))
    return out
'

# The attack: a call at a terminal leaves a reader of its fd 0 and of
# /dev/tty (a static helper, in a session of its own, deaf to SIGHUP)
# and returns; what is typed at the terminal afterwards (a password at
# a prompt, then a command line) reaches the shell and never the
# leftover's file, which is read from outside; the leftover holds no
# descriptor of the caller's terminal, and what it writes a second
# later never shows there.  On 622aafc the leftover read the caller's
# terminal itself and its file held the typed secret.
test_session_pty_leftover_loses_the_terminal() {
	local secret="pw$RANDOM$RANDOM"
	session_start
	pty_drive <<PY
$PTY_PRELUDE
# the call, then at once the shell's password prompts, as a script has
at = len(t.out)
t.send(run + helpers + "/ttygrab " + T + "/ws/cap 12; sleep 1.5; "
       "for i in 0 1 2; do read -r -p pass-\$i: x; echo got=\$x; done\n",
       rb"left")
pid = leftover("/ws/cap\0" + "12")
held = fds(pid)
print("leftover", pid, held)
print("holds-the-callers-terminal" if [f for f in held if f[2] == caller]
      else "holds-no-terminal-of-the-callers")
try:
    for i in range(3):
        t.expect(rb"pass-%d:" % i, at)
        t.send("$secret-%d\n" % i, rb"got=$secret-%d" % i)
    t.expect(t.PROMPT, at)
    t.run("echo typed-$secret-line\n", rb"typed-$secret-line")
    print("the-shell-read-every-line")
except SystemExit:
    print("the shell lost a line")
time.sleep(1)
print("the-leftover-wrote" if b"LEFTOVER-WROTE" in t.out else "nothing-from-the-leftover")
finish()
PY
	assert_exists "$T/ws/cap"
	if grep -q "$secret" "$T/ws/cap" || [ -s "$T/ws/cap" ]; then
		cat "$T/drive"
		fail "the leftover read what was typed: $(cat "$T/ws/cap")"
	fi
	grep -q '^holds-no-terminal-of-the-callers$' "$T/drive" || { cat "$T/drive"; fail "the leftover holds the caller's terminal"; }
	grep -q '^nothing-from-the-leftover$' "$T/drive" || { cat "$T/drive"; fail "the leftover wrote to the caller's terminal"; }
	grep -q '^the-shell-read-every-line$' "$T/drive" || { cat "$T/drive"; fail "a line typed never reached the shell"; }
}

# A leftover that writes on and on to its terminal holds neither the
# client (it returns: what it reads after the call's end is bounded)
# nor the caller's terminal (nothing of it comes after the prompt);
# hung up, the writer ends.  On 622aafc it wrote to the caller's
# terminal for as long as it lived.
test_session_pty_writing_leftover_lets_go() {
	local tag="8$RANDOM$RANDOM"
	session_start
	pty_drive <<PY
$PTY_PRELUDE
at = len(t.out)
t.send(run + "sh -c '(trap \"\" HUP; while echo flood-\$((6*7)); do :; done) & "
       "sleep 0.3'; echo status-$tag=\$?\n", rb"status-$tag=0")
t.expect(t.PROMPT, at)
time.sleep(1)
at = len(t.out)
t.run("echo after-\$((6*7))\n", rb"after-42")
assert b"flood" not in t.out[at:], "the leftover still writes to the terminal"
finish()
print("ok")
PY
	grep -q '^ok$' "$T/drive" || { tail -c 3000 "$T/drive"; fail "no ok"; }
}

# The twin, and what stays shared: a leftover of a call at a terminal
# whose fd 0 is a pipe keeps that pipe and reads what is written to it
# after the call returned (the same open file: shared, as documented);
# its other descriptors are the call's pty and its own file, none the
# caller's terminal; nothing typed reaches it.
test_session_pty_leftover_keeps_only_the_callers_pipe() {
	local secret="pw$RANDOM$RANDOM"
	session_start
	pty_drive <<PY
$PTY_PRELUDE
t.run("(sleep 2; echo pipe-data-$secret) | " + run + helpers + "/ttygrab "
      + T + "/ws/cap 8\n", rb"left")
pid = leftover("/ws/cap\0" + "8")
held = fds(pid)
print("leftover", pid, held)
# 0: the caller's pipe; 1, 2: the call's pty; beyond: its own file
# and /dev/tty (its controlling terminal: the pty; its inode, 5:0, is
# all /proc shows of it); nothing else, the caller's terminal never
assert held[0][0] == 0 and held[0][1].startswith("pipe:"), held
pty = held[1][2]
assert pty is not None and pty != caller and held[2][2] == pty, held
assert not [f for f in held if f[2] == caller], "holds the caller's terminal"
assert [f for f in held[3:] if not f[1].endswith("/ws/cap") and f[2] != pty
        and f[1] != "/dev/tty"] == [], held
t.send("$secret-typed\n", rb"")
end = time.time() + 10
while b"pipe-data" not in open(T + "/ws/cap", "rb").read():
    if time.time() > end:
        t.give_up("the pipe's data never reached the leftover")
    time.sleep(0.1)
finish()
print("ok")
PY
	grep -q "pipe-data-$secret" "$T/ws/cap" || fail "the pipe's data did not reach the leftover"
	grep -q "$secret-typed" "$T/ws/cap" && fail "the leftover read what was typed"
	grep -q '^ok$' "$T/drive" || { tail -c 3000 "$T/drive"; fail "no ok"; }
}

# An interactive call at a terminal works as bare: a terminal inside,
# the caller's size and TERM, a resize seen, /dev/tty, Ctrl-C typed
# interrupts it (130), a client in the background is not stopped, the
# error of a command not found comes through; the caller's terminal
# modes are the same after all.
test_session_pty_interactive_call() {
	session_start
	pty_drive <<PY
$PTY_PRELUDE
t.run(run + "sh -c 'test -t 0 && test -t 1 && test -t 2 && echo on-a-tty; "
      "stty size; echo term=\$TERM; echo via-dev-tty > /dev/tty'\n",
      rb"on-a-tty\r\n33 101\r\nterm=xterm\r\nvia-dev-tty")
at = len(t.out)
t.send(run + "sh -c 'trap \"stty size; exit 3\" WINCH; echo armed-\$((6*7)); "
       "while :; do sleep 0.1; done'; echo status=\$?\n", rb"armed-42")
t.winsize(40, 120)
t.expect(rb"40 120\r\n", at)
t.expect(rb"status=3", at)
t.expect(t.PROMPT, at)
at = len(t.out)
t.send(run + "sh -c 'echo ready-\$((6*7)); exec sleep 60'; echo status=\$?\n",
       rb"ready-42")
t.send("\x03", rb"status=130")
t.expect(t.PROMPT, at)
at = len(t.out)
t.send(run + "sh -c 'echo ready-\$((6*7)); read x; echo read-\$x'\n",
       rb"ready-42")
t.send("typed\n", rb"read-typed")
t.expect(t.PROMPT, at)
# a client in the background of the shell is not stopped for the
# terminal's modes, and its call's output still comes
t.run(run + "sh -c 'sleep 0.5; echo bg-\$((6*7))' & wait; echo bgst=\$?\n",
      rb"bg-42(.|\n)*bgst=0")
# what cordon says when the command cannot start comes through the pty
t.run(run + "no-such-command-here; echo status=\$?\n",
      rb"command not found[^\n]*\r\n(.|\n)*status=127")
t.run("stty -g > %s/modes.after\n" % T, rb"")
finish()
print("ok")
PY
	grep -q '^ok$' "$T/drive" || { tail -c 3000 "$T/drive"; fail "no ok"; }
	cmp "$T/modes.before" "$T/modes.after" ||
		fail "the terminal's modes changed: $(cat "$T/modes.before") / $(cat "$T/modes.after")"
}

# A signal sent to the client itself (not typed) is forwarded as a
# request, as ssh -t does: TERM ends the call (143), and the caller's
# terminal comes back in the modes it had, raw mode undone.
test_session_pty_signal_to_client_restores_modes() {
	local tag="7$RANDOM$RANDOM"
	session_start
	pty_drive <<PY
$PTY_PRELUDE
at = len(t.out)
t.send(run + "sh -c 'echo ready-\$((6*7)); exec sleep $tag'; echo status=\$?\n",
       rb"ready-42")
client = [int(p) for p in os.listdir("/proc") if p.isdigit() and
          os.path.exists("/proc/%s/cmdline" % p) and
          open("/proc/%s/cmdline" % p, "rb").read().startswith(cordon.encode() + b"\0run\0")]
assert len(client) == 1, client
os.kill(client[0], signal.SIGTERM)
t.expect(rb"status=143", at)
t.expect(t.PROMPT, at)
t.run("stty -g > %s/modes.after\n" % T, rb"")
finish()
print("ok")
PY
	grep -q '^ok$' "$T/drive" || { tail -c 3000 "$T/drive"; fail "no ok"; }
	cmp "$T/modes.before" "$T/modes.after" || fail "the terminal's modes changed"
	! pgrep -f "^sleep $tag" > /dev/null || fail "the call outlived TERM"
}

# A protocol client that passes a terminal without asking for a pty of
# the session's own is refused (125), and the command does not run; a
# "tty" that is no boolean is refused too.
test_session_pty_protocol_client_terminal_refused() {
	session_start
	pty_drive <<PY
$PTY_PRELUDE
t.run("python3 %s/session_client.py %s %s/ws touch %s/ws/ran; echo status=\$?\n"
      % (helpers, "$sock", T, T), rb"a terminal never enters a session")
assert b"status=125" in t.out, "not 125"
finish()
print("ok")
PY
	grep -q '^ok$' "$T/drive" || { tail -c 3000 "$T/drive"; fail "no ok"; }
	assert_absent "$T/ws/ran"
	python3 - "$sock" "$T/ws" > "$T/stdout" 2>&1 < /dev/null <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
req = {"op": "run", "argv": ["true"], "cwd": sys.argv[2], "tty": "yes"}
socket.send_fds(s, [json.dumps(req).encode() + b"\n"], [0, 1, 2])
print(s.recv(4096).decode())
PY
	assert_stdout_has '"exit":125'
	assert_stdout_has 'tty.. is true or false'
}
