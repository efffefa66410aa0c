#!/usr/bin/env python3
# A client of the session protocol (README, "The session protocol"):
# runs one command in a session without spawning cordon, and leaves
# with its status.  Usage: session_client.py SOCKET CWD COMMAND [ARGS...]
import json, os, signal, socket, sys

def run(sock_path, argv, cwd, env=None):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    req = {"op": "run", "argv": argv, "cwd": cwd, "env": env or {}}
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
            if "exit" in msg:               # {"call": N} came first
                if "error" in msg:
                    print("cordon:", msg["error"], file=sys.stderr)
                # the call's denials, as a plain run ends with them
                print(msg.get("summary", ""), end="", file=sys.stderr)
                return msg["exit"]

if __name__ == "__main__":
    sys.exit(run(sys.argv[1], sys.argv[3:], sys.argv[2]))
