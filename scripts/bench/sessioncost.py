#!/usr/bin/env python3
"""sessioncost.py - a command in a session, from a Python client (issue 20).

    sessioncost.py CORDON [CALLS [OPTION...]]

Starts a session (`CORDON session start --json -q OPTION...`), then times,
interleaved call by call in 20 rounds of CALLS, /bin/true spawned bare by
this client (subprocess.run) and /bin/true run in the session through the
protocol spoken by this client (tests/integration/session_client.py's
way); prints "bare US" and "protocol US", the medians.  Stops the session.
"""
import json
import socket
import subprocess
import sys
import time


def call(sock):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    req = {"op": "run", "argv": ["/bin/true"], "cwd": "/tmp", "env": {}}
    socket.send_fds(s, [json.dumps(req).encode() + b"\n"], [0, 1, 2])
    buf = b""
    while b"\n" not in buf or b'"exit"' not in buf:
        data = s.recv(65536)
        if not data:
            raise SystemExit("sessioncost.py: the session ended")
        buf += data
    s.close()
    return json.loads(buf.split(b"\n")[-2])["exit"]


def main():
    cordon = sys.argv[1]
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    doc = json.loads(subprocess.run([cordon, "session", "start", "--json",
                                     "-q"] + sys.argv[3:], check=True,
                                    capture_output=True).stdout)
    times = {"bare": [], "protocol": []}
    try:
        for r in range(20):
            for _ in range(calls):
                ways = ["bare", "protocol"] if r % 2 else ["protocol", "bare"]
                for way in ways:
                    t = time.perf_counter()
                    st = (subprocess.run(["/bin/true"]).returncode
                          if way == "bare" else call(doc["socket"]))
                    times[way].append(time.perf_counter() - t)
                    if st != 0:
                        raise SystemExit("sessioncost.py: a call failed")
    finally:
        subprocess.run([cordon, "session", "stop", doc["id"]])
    for way in ("bare", "protocol"):
        v = sorted(times[way])
        print("%s %.1f" % (way, v[len(v) // 2] * 1e6))


if __name__ == "__main__":
    main()
