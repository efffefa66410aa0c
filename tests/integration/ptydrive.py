"""ptydrive.py - drive a program on a real terminal, for the integration
tests (t_escape.sh, t_isolate.sh): start it on a new pty, then wait for
what the terminal prints, never for a fixed time (on a loaded machine a
fixed pause lets input reach the wrong program).

    from ptydrive import Pty
    t = Pty([cordon, "--", "bash", "--norc", "-i"], rows=33, cols=101)
    t.expect(t.PROMPT)
    t.run("tty\\n", rb"/dev/console")
    t.close()            # prints everything the terminal showed

A step that times out (30 s) or finds the terminal closed prints what
was seen and exits 1.
"""
import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time


class Pty:
    PROMPT = rb"bash-[0-9.]+[$#] $"

    def __init__(self, argv, env=None, rows=None, cols=None):
        self.out = b""
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ.update(env or {})
            os.execv(argv[0], argv)
        if rows:
            self.winsize(rows, cols)

    def winsize(self, rows, cols):
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ,
                    struct.pack("HHHH", rows, cols, 0, 0))

    def give_up(self, why):
        sys.stdout.write(self.out.decode(errors="replace"))
        sys.stdout.write("\n[%s]\n" % why)
        sys.exit(1)

    def expect(self, pattern, since=0):
        end = time.time() + 30
        while not re.search(pattern, self.out[since:]):
            left = end - time.time()
            if left <= 0:
                self.give_up("timed out waiting for %r" % pattern)
            if not select.select([self.fd], [], [], min(left, 1))[0]:
                continue
            try:
                d = os.read(self.fd, 4096)
            except OSError:
                d = b""
            if not d:
                self.give_up("the terminal closed before %r" % pattern)
            self.out += d

    def send(self, text, wait):
        """Type @text, then wait for @wait in what follows."""
        at = len(self.out)
        os.write(self.fd, text.encode())
        self.expect(wait, at)

    def run(self, text, wait):
        """As send(), then the prompt again: input typed before that
        could go to the program still running."""
        at = len(self.out)
        self.send(text, wait)
        self.expect(self.PROMPT, at)

    def close(self, exit_line=b"exit\n"):
        os.write(self.fd, exit_line)
        end = time.time() + 10
        while time.time() < end:
            try:
                d = os.read(self.fd, 4096)
            except OSError:
                break
            if not d:
                break
            self.out += d
        os.waitpid(self.pid, 0)
        sys.stdout.write(self.out.decode(errors="replace"))
