#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drive a guest's serial console over a QEMU unix-socket chardev.

    serialchat.py [--wait-socket S] [--log FILE] [--qmp QMP] SOCKET STEP...

connects to SOCKET (QEMU's "-chardev socket,path=SOCKET,server=on"; it is
waited for up to --wait-socket seconds, default 60) and runs the steps in
order:

    expect:SECONDS:REGEX   wait at most SECONDS for a line of the cleaned
                           output (no ANSI sequences, CRs, NULs; a cursor
                           move starts a new line) matching REGEX (Python
                           re.search), counted from where the previous
                           expect matched
    send:TEXT              type TEXT followed by a carriage return, one
                           character at a time, as a terminal would

Prints one "serialchat: ..." line per step; exits 0 when every step was
done, 1 at the first expect that timed out or when the guest closed the
socket first (the last cleaned lines are printed), 2 on bad usage or no
socket.  --log FILE: every byte read, as read (QEMU's own logfile= of a
socket chardev may repeat bytes it had to send again).  --qmp QMP: once
the steps are over (done or not), QEMU is told to quit through its QMP
socket (qmon.py) and the serial port is read until QEMU closes it.
"""

import os
import re
import subprocess
import select
import socket
import sys
import time

# a cursor position or movement: what follows is a line of its own (a full
# screen program draws its fields this way)
MOVE = re.compile(rb"\x1b\[[0-9;]*[HfABCDEFGd]")
ANSI = re.compile(rb"\x1b\[[0-9;?=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78cDEHM]")


def clean(raw):
    """The text of raw serial bytes as lines, escape sequences gone."""
    raw = MOVE.sub(b"\n", raw)
    raw = ANSI.sub(b"", raw)
    raw = raw.replace(b"\r", b"").replace(b"\0", b"")
    return raw.decode("latin-1").split("\n")


def connect(path, wait):
    """A socket connected to path, retried until wait seconds passed."""
    end = time.monotonic() + wait
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.monotonic() >= end:
                return None
            time.sleep(0.2)


def main(argv):
    wait = 60.0
    log = qmp = None
    while len(argv) > 2 and argv[1] in ("--wait-socket", "--log", "--qmp"):
        if argv[1] == "--wait-socket":
            wait = float(argv[2])
        elif argv[1] == "--log":
            log = argv[2]
        else:
            qmp = argv[2]
        argv = argv[:1] + argv[3:]
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    steps = []
    for arg in argv[2:]:
        kind, _, rest = arg.partition(":")
        if kind == "expect":
            secs, _, rx = rest.partition(":")
            try:
                steps.append(("expect", float(secs), re.compile(rx)))
            except (ValueError, re.error) as e:
                print(f"serialchat: bad step '{arg}': {e}", file=sys.stderr)
                return 2
        elif kind == "send":
            steps.append(("send", rest, None))
        else:
            print(f"serialchat: unknown step '{arg}'", file=sys.stderr)
            return 2

    s = connect(argv[1], wait)
    if s is None:
        print(f"serialchat: no socket {argv[1]} after {wait:g} s")
        return 2
    got = Reader(s, log)
    st = chat(got, steps)
    if qmp:
        subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "qmon.py"),
                        "--timeout", "10", qmp, "quit"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        end = time.monotonic() + 20
        while not got.closed and time.monotonic() < end:
            got.read(0.5)
    s.close()
    if got.log:
        got.log.close()
    return st


class Reader:
    """The bytes of a socket so far (raw), also appended to a log file."""

    def __init__(self, s, log):
        self.s = s
        self.raw = b""
        self.closed = False
        self.log = open(log, "wb") if log else None

    def read(self, secs):
        """Wait at most secs for more bytes; closed once the peer closed."""
        r, _, _ = select.select([self.s], [], [], secs)
        if not r:
            return
        try:
            data = self.s.recv(65536)
        except OSError:
            data = b""
        if not data:
            self.closed = True
        self.raw += data
        if self.log:
            self.log.write(data)
            self.log.flush()


def chat(got, steps):
    """Run the steps over got; 0 when all were done, 1 at the first missed."""
    s = got.s
    done = 0          # lines already matched or passed over
    for kind, arg, rx in steps:
        if kind == "send":
            for ch in arg + "\r":
                s.sendall(ch.encode("latin-1"))
                time.sleep(0.02)
            print(f"serialchat: typed {arg!r}")
            continue
        end = time.monotonic() + arg
        found = None
        while found is None:
            lines = clean(got.raw)
            # the last line may be incomplete: a prompt is matched as it is
            for i in range(done, len(lines)):
                if rx.search(lines[i]):
                    found = i
                    break
            if found is not None:
                break
            left = end - time.monotonic()
            if left <= 0 or got.closed:
                why = "the guest closed the serial port" if got.closed else f"{arg:g} s passed"
                print(f"serialchat: no line matching /{rx.pattern}/: {why}; last lines:")
                for line in lines[-15:]:
                    print(f"serialchat: | {line}")
                return 1
            got.read(min(left, 0.5))
        print(f"serialchat: saw /{rx.pattern}/: {lines[found].strip()!r}")
        done = found + 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
