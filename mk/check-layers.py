#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prove that efi/'s folders depend on each other only as LAYERS says, and
that the files of paging/ call each other one way, in ORDER's order.

  mk/check-layers.py LAYERS SRC OBJ LIB [NM]
  mk/check-layers.py --order ORDER DIR OBJ [NM]

LAYERS  the folder graph (mk/layers.txt): "folder: used folders | firmware"
SRC     the source tree (efi/): main.c and one folder per concern
OBJ     where the firmware objects of SRC are ($(BUILD)/efi/efi/), one
        FILE.o per source file, in the same folders
LIB     the firmware build of paging/ (libptlab.a): its symbols are the
        library's, usable from every folder
NM      the nm program (default: nm)

Two graphs are read, independently of each other:
  includes  every #include "folder/file.h" of every source file
  calls     every undefined symbol of every object, resolved to the object
            that defines it
An arrow from folder A to folder B (A != B) must be one LAYERS allows.
The calls between files must have no cycle either, inside a folder as
across folders (a FILE.c and its FILE_asm.S count as one module: the
assembly half of the same code, each calling the other by nature).
A folder not marked "firmware" may not include a gnu-efi header and its
objects may need nothing but efi/'s own objects, the library and what the
compiler emits calls to (memset, memcpy, memmove, the GOT).  LAYERS itself
must name every folder of SRC and have no cycle.

With --order: ORDER (mk/paging-order.txt) lists the .c files of DIR
(paging/) lowest first, and names headers only some files may include
("only HEADER: FILE...") and headers that may hold inline functions only
("inline HEADER").  OBJ holds one FILE.o per source file.  Every .c of
DIR must be listed once; an undefined symbol of a file's object that a
file of DIR defines must be defined by a file listed before it (a call
upward, and so any cycle, is refused, naming the file, the symbol and the
file above it); a restricted header is included by its files only; an
inline header defines no function but static inline ones and declares no
other function.

Prints "ok - ..." or "not ok - ..." per check and "layers: N passed,
M failed"; exits 1 when a check failed, 2 on bad arguments.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tapcheck import Checks, table_lines  # noqa: E402

COMPILER_SYMBOLS = {"memset", "memcpy", "memmove", "_GLOBAL_OFFSET_TABLE_"}
INCLUDE_LOCAL = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
INCLUDE_SYSTEM = re.compile(r'^\s*#\s*include\s+<([^>]+)>', re.M)
# gnu-efi's headers, however they are named in an #include
FIRMWARE_HEADER = re.compile(r'(^|/)efi[^/]*\.h$')
# quoted includes that are no file of efi/: generated into the build tree
GENERATED = {"font8x16.inc", "trust.inc"}

CHECKS = Checks('layers')
check = CHECKS.check


def parse_layers(path):
    """{folder: (set of used folders, firmware?)}, in file order."""
    layers = {}
    errors = []
    for n, line, raw in table_lines(path):
        m = re.fullmatch(r"([a-z0-9_]+):\s*([a-z0-9_ ]*?)\s*(\|\s*firmware)?", line)
        if not m:
            errors.append("%s:%d: not 'folder: uses | firmware': %s" % (path, n, raw.strip()))
            continue
        name, uses, fw = m.group(1), m.group(2).split(), bool(m.group(3))
        if name in layers:
            errors.append("%s:%d: folder %s named twice" % (path, n, name))
        layers[name] = (set(uses), fw)
    return layers, errors


def find_cycle(layers):
    """A list of folders forming a cycle of the uses graph, or None."""
    state = {}
    stack = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(layers.get(node, (set(), False))[0]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cyc = visit(nxt)
                if cyc:
                    return cyc
        stack.pop()
        state[node] = 2
        return None

    for node in layers:
        if node not in state:
            cyc = visit(node)
            if cyc:
                return cyc
    return None


def module_of(rel):
    """A source file's module: FILE.c and FILE_asm.S are one."""
    stem = rel.rsplit(".", 1)[0]
    return stem[:-len("_asm")] if stem.endswith("_asm") else stem


def find_call_cycle(edges):
    """One cycle of the module graph {module: {callee, ...}} as a list
    ending where it starts, or None; the cycles found first are the
    shortest of their strongly connected part."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    for v in sorted(edges):
        if v not in index:
            strong(v)
    if not comps:
        return None
    comp = min(comps, key=lambda c: sorted(c))
    start = min(comp)
    # breadth-first from start back to start inside the component
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges.get(v, ())):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return path[::-1] + [start]
                if w in comp and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return sorted(comp) + [min(comp)]


def folder_of(rel):
    """efi/-relative path -> its folder; main.c is folder main."""
    parts = rel.split("/")
    if len(parts) == 1:
        return "main" if parts[0] == "main.c" else None
    return parts[0] if len(parts) == 2 else None


def sources(src):
    out = []
    for root, _dirs, files in os.walk(src):
        for name in files:
            if name.endswith((".c", ".h", ".S")):
                out.append(os.path.relpath(os.path.join(root, name), src))
    return sorted(out)


def nm_symbols(nm, path):
    """(defined, undefined) global symbol sets of an object or archive."""
    res = subprocess.run([nm, "-g", path], capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError("%s %s: %s" % (nm, path, res.stderr.strip()))
    defined, undefined = set(), set()
    for line in res.stdout.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
        elif len(f) == 3 and f[1] not in ("U", "w", "v"):
            defined.add(f[2])
    return defined, undefined


C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# a function declared or defined at the top level: type words, name, (params), ; or {
C_FUNCTION = re.compile(r"^([A-Za-z_][\w \t*]*[\s*])([A-Za-z_]\w*)\s*\(([^;{)]*)\)\s*([;{])",
                        re.M | re.S)


def parse_order(path):
    """(files lowest first, {header: allowed files}, {inline headers}, errors)."""
    files, only, inline, errors = [], {}, set(), []
    for n, line, raw in table_lines(path):
        m = re.fullmatch(r"only\s+([\w.]+\.h):\s*([\w.\s]*)", line)
        if m:
            only[m.group(1)] = set(m.group(2).split())
            continue
        m = re.fullmatch(r"inline\s+([\w.]+\.h)", line)
        if m:
            inline.add(m.group(1))
            continue
        if re.fullmatch(r"[\w.]+\.c", line):
            if line in files:
                errors.append("%s:%d: %s listed twice" % (path, n, line))
            files.append(line)
            continue
        errors.append("%s:%d: not 'FILE.c', 'only HEADER: FILES' or 'inline HEADER': %s"
                      % (path, n, raw.strip()))
    return files, only, inline, errors


def header_functions(text):
    """(name, static inline?, a definition?) of each function of a header's text."""
    text = C_COMMENT.sub(" ", text)
    text = re.sub(r"(?m)^\s*#.*?(?<!\\)$", " ", text)   # preprocessor lines
    out = []
    for m in C_FUNCTION.finditer(text):
        words = m.group(1).split()
        if m.group(2) in ("if", "for", "while", "switch", "return", "sizeof"):
            continue
        out.append((m.group(2), "static" in words and "inline" in words, m.group(4) == "{"))
    return out


def main_order(argv):
    """check-layers.py --order ORDER DIR OBJ [NM]"""
    if len(argv) not in (5, 6):
        print(__doc__.strip().splitlines()[4], file=sys.stderr)
        return 2
    order_path, src, obj = argv[2:5]
    nm = argv[5] if len(argv) == 6 else "nm"
    files, only, inline, errors = parse_order(order_path)
    check(not errors and files, "%s parses" % order_path, errors)
    present = sorted(f for f in os.listdir(src) if f.endswith(".c"))
    check(sorted(files) == present, "%s lists every .c of %s once, and no other" %
          (order_path, src),
          ["not listed: " + f for f in present if f not in files] +
          ["listed, no such file: " + f for f in files if f not in present])

    rank = {f: i for i, f in enumerate(files)}
    defined_by, needs = {}, {}
    for f in present:
        o = os.path.join(obj, f + ".o")
        if not os.path.exists(o):
            check(False, "%s: object %s exists" % (f, o))
            continue
        d, u = nm_symbols(nm, o)
        needs[f] = u
        for sym in d:
            defined_by.setdefault(sym, f)
    upward, calls = [], {}
    for f, undefined in sorted(needs.items()):
        for sym in sorted(undefined):
            owner = defined_by.get(sym)
            if owner is None or owner == f:
                continue
            calls.setdefault(f, set()).add(owner)
            if rank.get(owner, len(files)) >= rank.get(f, -1):
                upward.append("%s needs %s from %s, which %s lists above it"
                              % (f, sym, owner, order_path))
    check(not upward, "every file of %s calls only the files below it in %s"
          % (src, order_path), upward)
    cyc = find_call_cycle(calls)
    check(cyc is None, "no cycle of calls between the files of %s" % src,
          ["calls go round: " + " -> ".join(cyc)] if cyc else [])

    for hdr, allowed in sorted(only.items()):
        bad = []
        if not os.path.isfile(os.path.join(src, hdr)):
            bad.append("%s: no such header in %s" % (hdr, src))
        for f in sorted(os.listdir(src)):
            if not f.endswith((".c", ".h")) or f == hdr:
                continue
            with open(os.path.join(src, f), encoding="utf-8", errors="replace") as fh:
                incs = [os.path.basename(h) for h in INCLUDE_LOCAL.findall(fh.read())]
            if hdr in incs and f not in allowed:
                bad.append("%s includes %s" % (f, hdr))
        check(not bad, "%s is included by %s only" % (hdr, " ".join(sorted(allowed))), bad)
    for hdr in sorted(inline):
        path = os.path.join(src, hdr)
        if not os.path.isfile(path):
            check(False, "%s: no such header in %s" % (hdr, src))
            continue
        with open(path, encoding="utf-8", errors="replace") as fh:
            funcs = header_functions(fh.read())
        bad = ["%s %s %s, not static inline" % (hdr, "defines" if d else "declares", name)
               for name, si, d in funcs if not si]
        check(not bad, "%s holds inline functions only (%d), no call between files"
              % (hdr, len(funcs)), bad)
    return CHECKS.summary()


def main(argv):
    if len(argv) > 1 and argv[1] == "--order":
        return main_order(argv)
    if len(argv) not in (5, 6):
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    layers_path, src, obj, lib = argv[1:5]
    nm = argv[5] if len(argv) == 6 else "nm"

    layers, errors = parse_layers(layers_path)
    check(not errors and layers, "%s parses" % layers_path, errors)
    unknown = ["%s uses %s, which it does not declare" % (a, b)
               for a, (uses, _fw) in layers.items() for b in sorted(uses)
               if b not in layers or b == a]
    check(not unknown, "%s: every used folder is declared, none uses itself" % layers_path,
          unknown)
    cyc = find_cycle(layers)
    check(cyc is None, "%s: the folder graph has no cycle" % layers_path,
          [" -> ".join(cyc)] if cyc else [])

    files = sources(src)
    homeless = [f for f in files if folder_of(f) not in layers]
    check(not homeless, "every file of %s is in a folder %s declares" % (src, layers_path),
          homeless)
    present = {folder_of(f) for f in files}
    absent = sorted(set(layers) - present)
    check(not absent, "every folder %s declares exists in %s" % (layers_path, src), absent)

    # The include graph.
    inc_bad = {name: [] for name in layers}
    fw_bad = {name: [] for name in layers}
    for rel in files:
        home = folder_of(rel)
        if home not in layers:
            continue
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for hdr in INCLUDE_LOCAL.findall(text):
            # as the compiler looks: beside the file, then -Iefi
            target = None
            for base in (os.path.dirname(rel), ""):
                cand = os.path.normpath(os.path.join(base, hdr))
                if not cand.startswith("..") and os.path.isfile(os.path.join(src, cand)):
                    target = cand
                    break
            if target is None:
                if hdr in GENERATED:
                    continue
                inc_bad[home].append("%s includes \"%s\", which is no file of %s%s"
                                     % (rel, hdr, src, " (a firmware header?)"
                                        if FIRMWARE_HEADER.search(hdr) else ""))
                continue
            if target != hdr:
                inc_bad[home].append("%s includes \"%s\": name it from efi/, as \"%s\""
                                     % (rel, hdr, target))
            used = folder_of(target)
            if used is None or used not in layers:
                inc_bad[home].append("%s includes %s, in no folder %s declares"
                                     % (rel, target, layers_path))
            elif used != home and used not in layers[home][0]:
                inc_bad[home].append("%s includes %s" % (rel, target))
        if not layers[home][1]:
            for hdr in INCLUDE_SYSTEM.findall(text):
                if FIRMWARE_HEADER.search(hdr) and not hdr.startswith("ptlab/"):
                    fw_bad[home].append("%s includes <%s>" % (rel, hdr))

    # The call graph.
    lib_defined, _ = nm_symbols(nm, lib)
    defined_by = {}
    needs = {}
    for rel in files:
        if not rel.endswith((".c", ".S")):
            continue
        o = os.path.join(obj, rel + ".o")
        if not os.path.exists(o):
            check(False, "%s: object %s exists" % (rel, o))
            continue
        d, u = nm_symbols(nm, o)
        needs[rel] = u
        for sym in d:
            defined_by.setdefault(sym, rel)
    call_bad = {name: [] for name in layers}
    module_calls = {}
    for rel, undefined in sorted(needs.items()):
        home = folder_of(rel)
        for sym in sorted(undefined):
            owner = defined_by.get(sym)
            if owner is not None and module_of(owner) != module_of(rel):
                module_calls.setdefault(module_of(rel), set()).add(module_of(owner))
            if owner is not None:
                used = folder_of(owner)
                if used != home and used not in layers[home][0]:
                    call_bad[home].append("%s needs %s from %s" % (rel, sym, owner))
            elif not layers[home][1] and sym not in lib_defined and sym not in COMPILER_SYMBOLS:
                fw_bad[home].append("%s needs %s from outside efi/ and the library" % (rel, sym))

    for name, (uses, fw) in layers.items():
        allowed = " ".join(sorted(uses)) or "nothing"
        check(not inc_bad[name], "%s includes only its own headers and those of: %s"
              % (name, allowed), inc_bad[name])
        check(not call_bad[name], "%s calls only itself and: %s" % (name, allowed),
              call_bad[name])
        if not fw:
            check(not fw_bad[name], "%s: no firmware header, nothing from gnu-efi" % name,
                  fw_bad[name])

    cyc = find_call_cycle(module_calls)
    check(cyc is None, "no cycle of calls between the files of %s (FILE.c and FILE_asm.S "
          "one module)" % src, ["calls go round: " + " -> ".join(cyc)] if cyc else [])

    return CHECKS.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
