#!/usr/bin/env python3
# A client of the session protocol (doc/session-protocol.md):
# runs one command in a session without spawning cordon, and leaves
# with its status.
#   session_client.py [--record PATH] [--answer yes|no|always|none]
#                     SOCKET CWD COMMAND [ARGS...]
# --answer: the run says "ask": true, and each {"ask": HOST, "id": N}
# (--ask's question) is answered so ("none": never, the session's
# timeout decides); each question is printed on stderr as
# "session_client: asked HOST".
# Before it sends anything it checks, as cordon's own client does, that
# the socket's listener is the session's supervisor: the record the
# supervisor wrote at its start (PATH; by default
# ${XDG_STATE_HOME:-~/.local/state}/cordon/sessions/ID.peer: "PID
# STARTTIME UID DEV INO") against the kernel's word on the listener
# (SO_PEERCRED), the pid's start time and the socket file; else 125.
import json, os, signal, socket, struct, sys

def record_path(sock_path):
    state = os.environ.get("XDG_STATE_HOME") or ""
    if not state.startswith("/"):
        state = os.path.join(os.path.expanduser("~"), ".local", "state")
    sid = os.path.basename(sock_path)[:-len(".sock")]
    return os.path.join(state, "cordon", "sessions", sid + ".peer")

def start_time(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[19])

def check(s, sock_path, record):
    """Why the listener is not the supervisor recorded, or None."""
    try:
        fd = os.open(record, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd) as f:
            pid, start, uid, dev, ino = (int(w) for w in f.read().split())
    except (OSError, ValueError) as e:
        return "no record of its supervisor (%s)" % e
    cpid, cuid, _ = struct.unpack("3i", s.getsockopt(
        socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    if (cpid, cuid) != (pid, uid):
        return "its listener is pid %d uid %d, not %d %d" % (cpid, cuid,
                                                            pid, uid)
    try:
        if start_time(cpid) != start:
            return "pid %d is another process now" % cpid
        st = os.stat(sock_path, follow_symlinks=False)
    except OSError as e:
        return str(e)
    if (st.st_dev, st.st_ino) != (dev, ino):
        return "the socket file is not the one it bound"
    return None

def run(sock_path, argv, cwd, env=None, record=None, answer=None):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    why = check(s, sock_path, record or record_path(sock_path))
    if why:
        print("session_client: the socket is not the session's "
              "supervisor's: %s; nothing was sent" % why, file=sys.stderr)
        return 125
    req = {"op": "run", "argv": argv, "cwd": cwd, "env": env or {}}
    if answer:
        req["ask"] = True
    # one line of JSON; our stdin, stdout and stderr go with it
    try:
        socket.send_fds(s, [json.dumps(req).encode() + b"\n"], [0, 1, 2])
    except OSError:
        pass                                # refused: its answer is there
    # Ctrl-C and TERM are forwarded to the command as requests
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda n, _: s.sendall(
            json.dumps({"op": "signal", "signal": n}).encode() + b"\n"))
    buf = b""
    while True:
        data = s.recv(65536)
        if not data:
            return 125                      # the session ended
        buf += data
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            msg = json.loads(line)
            if "line" in msg:               # the proxy refused a host
                print(msg["line"], file=sys.stderr)
            if "ask" in msg:                # --ask: a host to allow?
                print("session_client: asked", msg["ask"], file=sys.stderr)
                if answer in ("yes", "no", "always"):
                    s.sendall(json.dumps({"op": "answer", "id": msg["id"],
                                          "allow": answer}).encode() + b"\n")
            if "exit" in msg:               # {"call": N} came first
                if "error" in msg:
                    print("cordon:", msg["error"], file=sys.stderr)
                # the call's denials, as a plain run ends with them
                print(msg.get("summary", ""), end="", file=sys.stderr)
                return msg["exit"]

if __name__ == "__main__":
    args, record, answer = sys.argv[1:], None, None
    while args[:1] in (["--record"], ["--answer"]):
        if args[0] == "--record":
            record = args[1]
        else:
            answer = args[1]
        args = args[2:]
    sys.exit(run(args[0], args[2:], args[1], record=record, answer=answer))
