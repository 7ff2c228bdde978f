#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drive a guest's serial console over a QEMU pipe chardev.

    serialchat.py [--wait S] [--log FILE] QMP PIPE STEP...

QEMU runs with "-chardev pipe,path=PIPE" (the FIFOs PIPE.in and PIPE.out)
as the serial port and "-qmp unix:QMP,server=on,wait=off".  serialchat
connects to QMP (waited for up to --wait seconds, default 60), keeps that
connection to know when QEMU has gone, reads PIPE.out (its buffer made
1 MiB: a guest's UART must never find it full, QEMU would then keep the
transmitter busy and a guest may drop what it writes) and runs the steps
in order:

    expect:SECONDS:REGEX   wait at most SECONDS for a line of the cleaned
                           output (no ANSI sequences, CRs, NULs; a cursor
                           move starts a new line) matching REGEX (Python
                           re.search), counted from where the previous
                           expect matched; a REGEX ending in $ only
                           matches a finished line (so "^n: [0-9]+$" does
                           not take the "n: 2" of a "n: 26" still being
                           written), any other also the line being
                           written (a prompt has no newline after it)
    send:TEXT              type TEXT followed by a carriage return, one
                           character at a time, as a terminal would
    key:NAME               press one key: up, down, left, right, enter,
                           esc (a VT100 terminal's bytes for it), or a
                           single character; a menu drawn on the console
                           (shim's MokManager) is driven this way

Once the steps are over (done or not) it tells QEMU to quit and reads the
serial port until QEMU has gone.  Prints one "serialchat: ..." line per
step; exits 0 when every step was done, 1 at the first expect that timed
out or when QEMU ended first (the last cleaned lines are printed), 2 on
bad usage or no QEMU.  --log FILE: every byte read, as read.
"""

import fcntl
import json
import os
import re
import select
import socket
import sys
import time

F_SETPIPE_SZ = 1031     # fcntl.h

# the bytes a VT100 terminal sends for a key (EDK2's TerminalDxe reads them)
KEYS = {"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
        "enter": "\r", "esc": "\x1b"}

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


def qmp_send(q, cmd):
    """Send one QMP command; its answer is not waited for."""
    q.sendall(json.dumps({"execute": cmd}).encode() + b"\n")


def main(argv):
    wait = 60.0
    log = None
    while len(argv) > 2 and argv[1] in ("--wait", "--log"):
        if argv[1] == "--wait":
            wait = float(argv[2])
        else:
            log = argv[2]
        argv = argv[:1] + argv[3:]
    if len(argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    steps = []
    for arg in argv[3:]:
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
        elif kind == "key" and (rest in KEYS or len(rest) == 1):
            steps.append(("key", rest, None))
        else:
            print(f"serialchat: unknown step '{arg}'", file=sys.stderr)
            return 2

    # QMP answers once QEMU has opened its chardevs, the pipes included
    q = connect(argv[1], wait)
    if q is None:
        print(f"serialchat: no QMP socket {argv[1]} after {wait:g} s")
        return 2
    qmp_send(q, "qmp_capabilities")
    try:
        rd = os.open(argv[2] + ".out", os.O_RDONLY | os.O_NONBLOCK)
        wr = os.open(argv[2] + ".in", os.O_WRONLY | os.O_NONBLOCK)
    except OSError as e:
        print(f"serialchat: pipe {argv[2]}: {e}")
        return 2
    try:
        fcntl.fcntl(rd, F_SETPIPE_SZ, 1 << 20)
    except OSError as e:
        print(f"serialchat: note: pipe buffer not enlarged: {e}")
    got = Reader(rd, wr, q, log)
    st = chat(got, steps)
    try:
        qmp_send(q, "quit")
    except OSError:
        pass
    end = time.monotonic() + 20
    while not got.closed and time.monotonic() < end:
        got.read(0.5)
    got.drain()
    os.close(rd)
    os.close(wr)
    q.close()
    if got.log:
        got.log.close()
    return st


class Reader:
    """The serial port's bytes as cleaned lines (the last one may still
    grow), also appended, as read, to a log file.  Each byte is cleaned
    once, so the reader keeps up with a guest that writes fast.  closed:
    QEMU has gone (its QMP connection or the pipe's write end closed)."""

    def __init__(self, rd, wr, q, log):
        self.rd, self.wr, self.q = rd, wr, q
        self.lines = [""]
        self.pending = b""  # bytes not cleaned yet: an escape sequence may go on
        self.closed = False
        self.log = open(log, "wb") if log else None

    def feed(self, data, final=False):
        """Clean what of pending+data cannot be part of an unfinished sequence."""
        self.pending += data
        k = self.pending.rfind(b"\x1b")
        cut = k if k >= 0 and len(self.pending) - k < 32 and not final else len(self.pending)
        done, self.pending = self.pending[:cut], self.pending[cut:]
        parts = clean(done)
        self.lines[-1] += parts[0]
        self.lines.extend(parts[1:])
        if self.log and data:
            self.log.write(data)
            self.log.flush()

    def drain(self):
        """Read whatever the pipe holds now."""
        while True:
            try:
                data = os.read(self.rd, 1 << 20)
            except BlockingIOError:
                return
            if not data:
                self.closed = True
                self.feed(b"", final=True)
                return
            self.feed(data)

    def read(self, secs):
        """Wait at most secs for more bytes or for QEMU to go."""
        r, _, _ = select.select([self.rd, self.q], [], [], secs)
        if self.q in r:
            try:
                gone = not self.q.recv(65536)   # QMP's greeting, answers, events
            except OSError:
                gone = True
            if gone:
                self.closed = True
        self.drain()

    def type(self, text):
        """Write text to the guest's serial input."""
        os.write(self.wr, text.encode("latin-1"))


def chat(got, steps):
    """Run the steps over got; 0 when all were done, 1 at the first missed."""
    done = 0          # lines already matched or passed over
    for kind, arg, rx in steps:
        if kind == "key":
            got.type(KEYS.get(arg, arg))
            time.sleep(0.3)
            print(f"serialchat: pressed {arg}")
            continue
        if kind == "send":
            for ch in arg + "\r":
                got.type(ch)
                time.sleep(0.02)
            print(f"serialchat: typed {arg!r}")
            continue
        end = time.monotonic() + arg
        found = None
        scan = done   # lines before scan were searched and are complete
        whole = rx.pattern.endswith("$")
        while True:
            lines = got.lines
            # the last line may be incomplete: a prompt is matched as it is,
            # a pattern anchored at the line's end waits for its newline
            last = len(lines) - 1 if whole and not got.closed else len(lines)
            for i in range(scan, last):
                if rx.search(lines[i]):
                    found = i
                    break
            if found is not None:
                break
            scan = max(scan, len(lines) - 1)
            left = end - time.monotonic()
            if left <= 0 or got.closed:
                why = "QEMU ended" if got.closed else f"{arg:g} s passed"
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
