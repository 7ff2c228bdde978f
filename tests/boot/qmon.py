#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Send commands to a QEMU QMP socket (-qmp unix:PATH,server=on,wait=off).

    qmon.py [--timeout S] SOCKET screendump FILE
    qmon.py [--timeout S] SOCKET quit
    qmon.py [--timeout S] [--text] SOCKET hmp 'COMMAND LINE'

Waits up to S seconds (default 30) for the socket to accept a connection,
negotiates capabilities, runs the command and prints QEMU's "return" value
as JSON; with --text, a string value is printed as is (HMP output, CRs
removed).  Exits 1 with QEMU's error on stderr when the command fails, 2 on
usage errors or when no connection could be made.
screendump writes a binary PPM (P6) of the primary display.
"""
import json
import socket
import sys
import time


def connect(path, timeout):
    end = time.monotonic() + timeout
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            s.settimeout(timeout)
            return s
        except OSError:
            s.close()
            if time.monotonic() > end:
                raise
            time.sleep(0.1)


class Qmp:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def message(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("QMP connection closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def call(self, execute, **arguments):
        cmd = {"execute": execute}
        if arguments:
            cmd["arguments"] = arguments
        self.sock.sendall(json.dumps(cmd).encode() + b"\n")
        while True:
            msg = self.message()
            if "return" in msg or "error" in msg:
                return msg
            # asynchronous events ("event": ...) are skipped


def main(argv):
    timeout = 30.0
    text = False
    while len(argv) > 1 and argv[1] in ("--timeout", "--text"):
        if argv[1] == "--text":
            text = True
            argv = argv[:1] + argv[2:]
        elif len(argv) > 2:
            timeout = float(argv[2])
            argv = argv[:1] + argv[3:]
        else:
            break
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    path, cmd, args = argv[1], argv[2], argv[3:]
    if cmd == "screendump" and len(args) == 1:
        execute, arguments = "screendump", {"filename": args[0]}
    elif cmd == "quit" and not args:
        execute, arguments = "quit", {}
    elif cmd == "hmp" and len(args) == 1:
        execute, arguments = "human-monitor-command", {"command-line": args[0]}
    else:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        q = Qmp(connect(path, timeout))
        q.message()                       # greeting
        q.call("qmp_capabilities")
        reply = q.call(execute, **arguments)
    except (OSError, EOFError, ValueError) as e:
        if cmd == "quit" and isinstance(e, EOFError):
            return 0                      # QEMU went away while quitting
        print(f"qmon: {path}: {e}", file=sys.stderr)
        return 2
    if "error" in reply:
        print(f"qmon: {execute}: {reply['error'].get('desc', reply['error'])}",
              file=sys.stderr)
        return 1
    if text and isinstance(reply["return"], str):
        sys.stdout.write(reply["return"].replace("\r", ""))
    else:
        print(json.dumps(reply["return"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
