#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/layers.sh BUILD
# mk/check-layers.py over efi/ and the firmware objects in BUILD (made by
# "make all") must pass; then, on private copies of the tree, every kind of
# wrong arrow must make it fail, naming the arrow: an include against the
# layers, a call against them, a firmware header or a gnu-efi symbol in a
# folder without firmware, a cycle or an undeclared folder in the layers
# file, a cycle of calls between files of one folder.  paging/'s files
# likewise in mk/paging-order.txt's order: the tree passes; a call upward
# (the cycle pt.c <-> bulk.c through pt_fl_add that the split of pt.c once
# had), a file the order leaves out, walk.h included outside the walk and
# a function in the inline-only entry.h are refused on copies.  Likewise mk/check-statics.py: it passes on the tree, and refuses
# a new file-scope variable, a stale line of mk/statics.txt and a kind it
# does not know.  Prints ok/not ok lines and "layers: N passed, M failed".
set -uo pipefail

build=${1:?usage: tests/layers.sh BUILD}
top=$(cd "$(dirname "$0")/.." && pwd)
check="$top/mk/check-layers.py"
lib="$build/efi/libptlab.a"
. "$top/tests/refused.sh"

scratch layers

# The tree as it is.
tree_passes "efi/ keeps mk/layers.txt" "$work/tree.out" \
	python3 "$check" "$top/mk/layers.txt" "$top/efi" "$build/efi/efi" "$lib"

# allowed WHAT: the check passes on the copy as it is now (a control).
allowed() {
	if python3 "$check" "$work/t/layers.txt" "$work/t/src" "$work/t/obj" "$lib" \
		>"$work/t.out" 2>&1; then
		ok "control: $1 is allowed"
	else
		not_ok "control: $1 was refused"
		grep -A 3 '^not ok' "$work/t.out" | sed 's/^/# /'
	fi
}

# fresh: a private copy of the sources, objects and layers file.
fresh() {
	rm -rf "$work/t"
	mkdir -p "$work/t"
	cp -r "$top/efi" "$work/t/src"
	cp -r "$build/efi/efi" "$work/t/obj"
	cp "$top/mk/layers.txt" "$work/t/layers.txt"
	cp "$top/mk/statics.txt" "$work/t/statics.txt"
}

# expect_fail WHAT NEEDLE: the check fails on the copy and its output has NEEDLE.
expect_fail() {
	check_refuses "$1" "$2" "$work/t.out" \
		python3 "$check" "$work/t/layers.txt" "$work/t/src" "$work/t/obj" "$lib"
}

# compile SRC-RELATIVE-PATH TEXT: a source file of the copy and its object.
compile() {
	printf '%s\n' "$2" >"$work/t/src/$1"
	mkdir -p "$(dirname "$work/t/obj/$1.o")"
	gcc -std=c11 -ffreestanding -fpic -I"$work/t/src" -c "$work/t/src/$1" \
		-o "$work/t/obj/$1.o"
}

# A symbol each folder defines, read from the objects (not assumed).
sym_of() {
	nm -g --defined-only "$build/efi/efi/$1" | awk '$2 == "T" { print $3; exit }'
}
core_sym=$(sym_of core/run.c.o)
report_sym=$(sym_of report/fmt.c.o)
if [ -z "$core_sym" ] || [ -z "$report_sym" ]; then
	not_ok "no function found in core/run.c.o or report/fmt.c.o"
fi

fresh
printf '#include "core/run.h"\n' >>"$work/t/src/report/fmt.c"
expect_fail "an include from report/ into core/" "report/fmt.c includes core/run.h"

fresh
printf '#include "../core/run.h"\n' >>"$work/t/src/report/fmt.c"
expect_fail "a relative include from report/ into core/" "report/fmt.c includes core/run.h"

fresh
printf '#include "state/../core/run.h"\n' >>"$work/t/src/report/fmt.c"
expect_fail "an include into core/ through state/" "report/fmt.c includes core/run.h"

fresh
printf '#include "efi.h"\n' >>"$work/t/src/cpu/gdt.c"
expect_fail "a quoted firmware header in cpu/" 'cpu/gdt.c includes "efi.h", which is no file'

fresh
compile report/extra.c "void $core_sym(void); void extra(void); void extra(void) { $core_sym(); }"
expect_fail "a call from report/ into core/" "report/extra.c needs $core_sym from core/"

fresh
compile core/extra.c "void $report_sym(void); void extra(void); void extra(void) { $report_sym(); }"
allowed "a call from core/ into report/"

fresh
printf '#include <efi.h>\n' >>"$work/t/src/cpu/gdt.c"
expect_fail "a firmware header in cpu/" "cpu/gdt.c includes <efi.h>"

fresh
compile cpu/extra.c "extern void *BS; void *extra(void); void *extra(void) { return BS; }"
expect_fail "a gnu-efi symbol in cpu/" "cpu/extra.c needs BS from outside"

fresh
sed -i 's/^report:.*/report: core/' "$work/t/layers.txt"
expect_fail "a cycle in the layers file" "report -> core"

fresh
compile lib/cyca.c "void cyc_b(void); void cyc_a(void); void cyc_a(void) { cyc_b(); }"
compile lib/cycb.c "void cyc_c(void); void cyc_b(void); void cyc_b(void) { cyc_c(); }"
compile lib/cycc.c "void cyc_a(void); void cyc_c(void); void cyc_c(void) { cyc_a(); }"
expect_fail "a cycle of calls between three files of one folder" \
	"calls go round: lib/cyca -> lib/cycb -> lib/cycc -> lib/cyca"

fresh
compile lib/cyca.c "void cyc_b(void); void cyc_a(void); void cyc_a(void) { cyc_b(); }"
compile lib/cycb.c "void cyc_b(void); void cyc_b(void) { }"
allowed "a call one way between two files of one folder"

fresh
mkdir -p "$work/t/src/extra"
compile extra/new.c "int extra(void); int extra(void) { return 0; }"
expect_fail "a folder the layers file does not declare" "extra/new.c"

# paging/: its files call each other one way, in mk/paging-order.txt's order.
order="$top/mk/paging-order.txt"
tree_passes "paging/ keeps mk/paging-order.txt" "$work/pg.out" \
	python3 "$check" --order "$order" "$top/paging" "$build/efi/paging"

# pfresh: a private copy of paging/, its objects and the order.
pfresh() {
	rm -rf "$work/p"
	mkdir -p "$work/p"
	cp -r "$top/paging" "$work/p/src"
	mkdir -p "$work/p/obj"
	cp "$build"/efi/paging/*.c.o "$work/p/obj/"
	cp "$order" "$work/p/order.txt"
}

# pcompile NAME TEXT: a source file of the paging copy and its object.
pcompile() {
	printf '%s\n' "$2" >"$work/p/src/$1"
	gcc -std=c11 -ffreestanding -fpic -I"$top/include" -I"$work/p/src" -c "$work/p/src/$1" \
		-o "$work/p/obj/$1.o"
}

# expect_order_fail WHAT NEEDLE: the order check fails on the copy, naming NEEDLE.
expect_order_fail() {
	refused "$1" "$2" "$work/p.out" \
		python3 "$check" --order "$work/p/order.txt" "$work/p/src" "$work/p/obj"
}

# flush.c recording a flush through a helper of pt.c: the old pt <-> bulk cycle's shape
pfresh
pcompile flush.c "$(cat "$top/paging/flush.c"; printf '%s\n' \
	'int pt_flush_back(struct pt_space *s);' \
	'int pt_flush_back(struct pt_space *s) { return pt_unmap(s, 0, 4096, 0, 0); }')"
expect_order_fail "a call from flush.c up to pt.c" \
	"flush.c needs pt_unmap from pt.c, which $work/p/order.txt lists above it"
expect_order_fail "the cycle it closes" "flush.c -> pt.c"

pfresh
sed -i '/^pt\.c/d' "$work/p/order.txt"
expect_order_fail "a file mk/paging-order.txt leaves out" "not listed: pt.c"

pfresh
sed -i 's/#include "entry.h"/#include "walk.h"/' "$work/p/src/query.c"
expect_order_fail "walk.h included by query.c" "query.c includes walk.h"

pfresh
sed -i 's/^#endif/int pt_entry_extra(uint64_t e);\n#endif/' "$work/p/src/entry.h"
expect_order_fail "a function declared in the inline-only entry.h" \
	"entry.h declares pt_entry_extra, not static inline"

pfresh
sed -i 's/^error\.c.*/&\nerror.c/' "$work/p/order.txt"
expect_order_fail "a file listed twice" "error.c listed twice"

# The run's state stays in struct ptlab.
statics="$top/mk/check-statics.py"
if python3 "$statics" "$top/mk/statics.txt" "$top/efi" "$build/efi/efi" >"$work/st.out" 2>&1; then
	ok "efi/ keeps no writable object but those mk/statics.txt lists ($(tail -n 1 "$work/st.out"))"
else
	not_ok "efi/ keeps writable objects mk/statics.txt does not list:"
	grep -A 20 '^not ok' "$work/st.out" | sed 's/^/# /'
fi

# expect_statics_fail WHAT NEEDLE: check-statics fails on the copy, naming NEEDLE.
expect_statics_fail() {
	local what=$1 needle=$2
	if python3 "$statics" "$work/t/statics.txt" "$work/t/src" "$work/t/obj" >"$work/t.out" 2>&1; then
		not_ok "$what: the check passed"
	elif grep -q '^not ok' "$work/t.out" && grep -qF -- "$needle" "$work/t.out"; then
		ok "$what: refused, naming '$needle'"
	else
		not_ok "$what: refused without naming '$needle':"
		sed 's/^/# /' "$work/t.out"
	fi
}

fresh
compile checks/extra.c "static int seen; int extra(void); int extra(void) { return ++seen; }"
expect_statics_fail "a file-scope counter in checks/" "checks/extra.c: seen"

fresh
compile checks/extra.c "int extra(void); int extra(void) { static int calls; return ++calls; }"
expect_statics_fail "a static local in checks/" "checks/extra.c: calls"

fresh
compile checks/extra.c "int seen __attribute__((section(\".ptlab_state\"))); int extra(void); int extra(void) { return ++seen; }"
expect_statics_fail "a variable in a section of its own" "checks/extra.c: seen"

fresh
compile checks/extra.S "$(printf '.data\nlast_value:\n.quad 0\n')"
expect_statics_fail "a label in an assembly file's .data" "checks/extra.S: last_value"

fresh
compile checks/extra.c "static const int table[2] = { 1, 2 }; int extra(int i); int extra(int i) { return table[i & 1]; }"
if python3 "$statics" "$work/t/statics.txt" "$work/t/src" "$work/t/obj" >"$work/t.out" 2>&1; then
	ok "control: a const table is no state"
else
	not_ok "control: a const table was refused"
	sed 's/^/# /' "$work/t.out"
fi

fresh
printf 'checks/gone.c  gone  run  a line for nothing\n' >>"$work/t/statics.txt"
expect_statics_fail "a stale line in mk/statics.txt" "checks/gone.c gone"

fresh
sed -i 's/^\(report\/serial.c *state *\)device/\1cache/' "$work/t/statics.txt"
expect_statics_fail "a kind mk/check-statics.py does not know" "kind 'cache'"

echo "layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
