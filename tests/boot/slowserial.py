#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A slow reader for a guest's COM1: QEMU's serial chardev connects to a unix
socket this script listens on (-serial unix:SOCKET), and whatever it sends
is appended to LOG.  A unix stream socket holds only a few hundred bytes
sent one at a time (each is a buffer of its own), so while this reader
does not read, QEMU's 16550 keeps its transmitter busy: the guest sees THRE
clear, as on a real port whose other end is slow.

    slowserial.py SOCKET LOG MARKER CHUNK PAUSE [STOP_AFTER STOP_FOR]

Until a line containing MARKER has arrived everything is read as it comes;
after it, the reader stops for PAUSE seconds after every CHUNK bytes.  With
STOP_AFTER and STOP_FOR it also stops reading once, for STOP_FOR seconds,
when STOP_AFTER bytes have arrived after the marker.  It ends when QEMU
closes the connection; it prints "slowserial: N bytes, P pauses" to stdout.
"""
import os
import socket
import sys
import time


def main(argv):
    if len(argv) not in (6, 8):
        sys.stderr.write(__doc__)
        return 2
    path, log, marker = argv[1], argv[2], argv[3].encode()
    chunk, pause = int(argv[4]), float(argv[5])
    stop_after = int(argv[6]) if len(argv) == 8 else -1
    stop_for = float(argv[7]) if len(argv) == 8 else 0.0
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    # ready: the caller starts QEMU once the socket exists
    sys.stdout.write("slowserial: listening\n")
    sys.stdout.flush()
    srv.settimeout(600)
    conn, _ = srv.accept()
    total = after = since = pauses = 0
    seen = b""
    armed = False
    with open(log, "ab", buffering=0) as out:
        while True:
            data = conn.recv(256 if armed else 65536)
            if not data:
                break
            out.write(data)
            total += len(data)
            if not armed:
                seen = (seen + data)[-(len(marker) + 256):]
                if marker in seen:
                    armed = True
                continue
            after += len(data)
            since += len(data)
            if stop_after >= 0 and after >= stop_after:
                stop_after = -1
                pauses += 1
                time.sleep(stop_for)
                since = 0
            elif since >= chunk:
                pauses += 1
                time.sleep(pause)
                since = 0
    print("slowserial: %d bytes, %d pauses" % (total, pauses))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
