#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The EFI variables a kernel lists through efivarfs, against the
firmware's own variable store and against another boot's list.

    efivars.py store VARS.fd           print the store's variables of the
                                       EFI global GUID: "NAME ATTRS HEX"
    efivars.py judge LOG --store VARS.fd [--ref LOG2]

A kernel's list is read from LOG, lines (anywhere in the line, after a
kernel log prefix or "init: ") of the form

    efivar: NAME OFFSET HEX     a piece of the efivarfs file NAME-<global
                                GUID> from byte OFFSET: the 4 bytes of
                                attributes (little endian), then the data
    efivar-end: COUNT           the list is complete, COUNT variables

VARS.fd is an OVMF variable flash image as QEMU left it after the boot
(the firmware volume header, an authenticated variable store, its
variables with their state bytes).  judge prints one "ok: ..." or
"FAIL: ..." line per judgement and exits 1 when one fails:

- the list is complete (its end line's count is the number of names);
- it holds the standard variables: a Boot####, BootOrder, ConOut, Lang,
  PlatformLang, Timeout;
- every variable of the store that the kernel can see (runtime access,
  the EFI global GUID) is in the list with the store's attributes and
  data, byte for byte, and every non-volatile one listed is in the store;
- with --ref: the two lists hold the same names with the same bytes, but
  BootCurrent, which names the boot option that started each boot (the
  disk's for ptlab, the UEFI shell's for a kernel started from it).
"""

import argparse
import re
import struct
import sys
import uuid

GLOBAL = uuid.UUID("8be4df61-93ca-11d2-aa0d-00e098032b8c")
AUTH_STORE = uuid.UUID("aaf32c78-947b-439a-a180-2e144ec37792")
PLAIN_STORE = uuid.UUID("ddcf3616-3275-4164-98b6-fe85707ffe7d")
NV, RT = 0x1, 0x4
VAR_ADDED = 0x3F
VAR_IN_DELETED_TRANSITION = 0xFE
STANDARD = ("BootOrder", "ConOut", "Lang", "PlatformLang", "Timeout")
MAY_DIFFER = {"BootCurrent": "names the boot option that started the boot"}


class StoreError(Exception):
    pass


def read_store(path):
    """The store's live variables of the global GUID: {name: (attrs, data)}."""
    d = open(path, "rb").read()
    if len(d) < 0x48 or d[40:44] != b"_FVH":
        raise StoreError(f"{path}: no firmware volume header")
    hlen = struct.unpack_from("<H", d, 48)[0]
    guid = uuid.UUID(bytes_le=d[hlen:hlen + 16])
    if guid == AUTH_STORE:
        hdr, auth = 60, True
    elif guid == PLAIN_STORE:
        hdr, auth = 32, False
    else:
        raise StoreError(f"{path}: variable store GUID {guid} unknown")
    size = struct.unpack_from("<I", d, hlen + 16)[0]
    end = min(len(d), hlen + size)
    off = hlen + 28
    live, moving = {}, {}
    while off + hdr <= end:
        start_id, state = struct.unpack_from("<HB", d, off)
        if start_id != 0x55AA:
            break
        attrs = struct.unpack_from("<I", d, off + 4)[0]
        if auth:
            nsize, dsize = struct.unpack_from("<II", d, off + 36)
            vguid = uuid.UUID(bytes_le=d[off + 44:off + 60])
        else:
            nsize, dsize = struct.unpack_from("<II", d, off + 8)
            vguid = uuid.UUID(bytes_le=d[off + 16:off + 32])
        if nsize > end or dsize > end:
            raise StoreError(f"{path}: variable at 0x{off:x} with sizes {nsize}, {dsize}")
        name = d[off + hdr:off + hdr + nsize].decode("utf-16-le").rstrip("\0")
        data = d[off + hdr + nsize:off + hdr + nsize + dsize]
        if vguid == GLOBAL:
            if state == VAR_ADDED:
                live[name] = (attrs, data)
            elif state == VAR_ADDED & VAR_IN_DELETED_TRANSITION:
                moving[name] = (attrs, data)
        off += (hdr + nsize + dsize + 3) & ~3
    for name, v in moving.items():
        live.setdefault(name, v)
    return live


LINE = re.compile(r"efivar: ([A-Za-z0-9_]+) ([0-9]+) ([0-9a-f]*)\s*$")
END = re.compile(r"efivar-end: ([0-9]+)\s*$")


def read_list(path):
    """The kernel's list in a log: ({name: (attrs, data)}, count or None)."""
    pieces, count = {}, None
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("latin-1").replace("\r", "")
            m = LINE.search(line)
            if m:
                pieces.setdefault(m.group(1), {})[int(m.group(2))] = bytes.fromhex(m.group(3))
                continue
            m = END.search(line)
            if m:
                count = int(m.group(1))
    out = {}
    for name, parts in pieces.items():
        b = b""
        for o in sorted(parts):
            if o != len(b):
                raise StoreError(f"{path}: {name}: piece at {o}, {len(b)} bytes before it")
            b += parts[o]
        if len(b) < 4:
            raise StoreError(f"{path}: {name}: {len(b)} bytes, not even the attributes")
        out[name] = (struct.unpack_from("<I", b)[0], b[4:])
    return out, count


def show(v):
    return f"attrs 0x{v[0]:x}, {len(v[1])} bytes {v[1][:24].hex()}{'...' if len(v[1]) > 24 else ''}"


def judge(log, store_path, ref_log):
    res = []

    def say(ok, text):
        res.append(ok)
        print(("ok: " if ok else "FAIL: ") + text)

    got, count = read_list(log)
    say(count is not None and count == len(got),
        f"the kernel listed {len(got)} EFI global variables through efivarfs "
        f"(its end line: {count})")
    boots = sorted(n for n in got if re.fullmatch(r"Boot[0-9A-F]{4}", n))
    missing = [n for n in STANDARD if n not in got] + ([] if boots else ["Boot####"])
    say(not missing, "the standard variables listed: " + " ".join(boots + list(STANDARD))
        + (f" (missing: {' '.join(missing)})" if missing else ""))
    store = read_store(store_path)
    seen = {n: v for n, v in store.items() if v[0] & RT}
    bad = [f"{n}: store {show(v)}, kernel " + (show(got[n]) if n in got else "none")
           for n, v in sorted(seen.items()) if got.get(n) != v]
    extra = [n for n, v in sorted(got.items()) if v[0] & NV and n not in store]
    say(not bad and not extra and seen,
        f"every one of the store's {len(seen)} runtime variables read byte for byte as the "
        "firmware holds them" + "".join(f"; {b}" for b in bad[:6])
        + (f"; non-volatile but not in the store: {' '.join(extra)}" if extra else ""))
    if ref_log:
        ref, rcount = read_list(ref_log)
        names = sorted(set(got) | set(ref))
        diff = [n for n in names if got.get(n) != ref.get(n) and n not in MAY_DIFFER]
        absent = [n for n in MAY_DIFFER if n not in got or n not in ref]
        say(rcount == len(ref) and not diff and not absent,
            f"the same {len(got)} variables as the reference boot's {len(ref)}, byte for byte"
            + "".join(f"; {n}: here {show(got[n]) if n in got else 'none'}, reference "
                      f"{show(ref[n]) if n in ref else 'none'}" for n in diff[:6])
            + "".join(f"; {n} may differ ({why})" for n, why in MAY_DIFFER.items())
            + (f"; absent: {' '.join(absent)}" if absent else ""))
    return all(res)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("store")
    s.add_argument("vars")
    j = sub.add_parser("judge")
    j.add_argument("log")
    j.add_argument("--store", required=True)
    j.add_argument("--ref")
    a = ap.parse_args()
    try:
        if a.cmd == "store":
            for n, (attrs, data) in sorted(read_store(a.vars).items()):
                print(f"{n} 0x{attrs:x} {data.hex()}")
            return 0
        return 0 if judge(a.log, a.store, a.ref) else 1
    except (OSError, StoreError, ValueError) as e:
        print(f"FAIL: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
