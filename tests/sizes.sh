#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/sizes.sh
# mk/check-size.py over the tree (efi/, paging/, include/) must pass:
# no file over 800 lines, no function over 100 lines of body, one
# page-size constant.  Then, on private copies: a file grown past 800
# lines (a .c and a .S), a function grown past 100 lines (in the tree's
# style, with the brace on the declarator's line, and a header's static
# inline) and a page-size #define other than PT_PAGE_SIZE must each make
# it fail, naming the file or the function with its size, and so must a
# registry entry 60 lines away from its check function; while a file of
# exactly 800 lines, a function of exactly 100, a long struct and an
# offset of one page are not named; a small tree within the limits passes, naming its largest file
# and its longest function, and fails under lower limits given as
# options.  Then tests/ under the tests' budget (--profile tests: 1,200
# lines a file, 150 a function, tests/sizes-allowed.txt's exceptions that
# only shrink): on copies a grown test file, a long test function, an
# allowed file grown past its allowance and a stale allowance each refused.
# Prints ok/not ok lines and "sizes: N passed, M failed".
set -uo pipefail

. "$(dirname "$0")/refused.sh"     # sets $top
check="$top/mk/check-size.py"

scratch sizes

# The tree as it is.
tree_passes "the tree keeps the sizes" "$work/tree.out" python3 "$check" "$top"

# fresh: a private copy of the product folders.
fresh() {
	rm -rf "$work/t"
	mkdir -p "$work/t"
	cp -r "$top/efi" "$top/paging" "$top/include" "$work/t/"
}

# expect_fail WHAT NEEDLE: the check fails on the copy and names NEEDLE.
expect_fail() {
	check_refuses "$1" "$2" "$work/t.out" python3 "$check" "$work/t"
}

# not_named NEEDLE WHAT: no line of the check's output on the copy that
# names what is over a limit (its "#   " lines) names NEEDLE.
not_named() {
	python3 "$check" "$work/t" >"$work/t.out" 2>&1
	if grep '^#   ' "$work/t.out" | grep -qF -- "$1"; then
		not_ok "$2: named as over the limit:"
		grep '^#   ' "$work/t.out" | grep -F -- "$1" | sed 's/^/# /'
	else
		ok "$2: not named as over the limit"
	fi
}

# grow FILE LINES: append comment lines to the copy's FILE until it has LINES.
grow() {
	local f=$work/t/$1 n
	n=$(wc -l <"$f")
	while [ "$n" -lt "$2" ]; do
		echo "/* line $n */" >>"$f"
		n=$((n + 1))
	done
}

# body N: N lines of a function's body.
body() {
	local i
	for ((i = 0; i < $1; i++)); do
		printf '\tn += %d;\n' "$i"
	done
}

# A .c file of 800 lines is within the limit, of 801 lines over it.
fresh
grow efi/report/fmt.c 800
not_named "efi/report/fmt.c:" "a .c file of exactly 800 lines"
grow efi/report/fmt.c 801
expect_fail "a .c file grown to 801 lines" "efi/report/fmt.c: 801 lines"

# An assembly file is a file too.
fresh
grow efi/smp/smp_asm.S 900
expect_fail "a .S file grown to 900 lines" "efi/smp/smp_asm.S: 900 lines"

# An existing function grown: fmt_snprintf's body to 100 lines, then 101.
fresh
fmt=$work/t/efi/report/fmt.c
# fn_body: the lines of fmt_snprintf's body.
fn_body() {
	awk '/^int fmt_snprintf\(/ { f = 1 } f && /^\{/ { s = NR } f && /^\}/ { print NR - s - 1; exit }' \
		"$fmt"
}
# grow_fn N: N more lines at the top of fmt_snprintf's body.
grow_fn() {
	local i
	for ((i = 0; i < $1; i++)); do
		sed -i '/^int fmt_snprintf(/,/^{/ s|^{$|{\n\t/* grown */|' "$fmt"
	done
}
grow_fn $((100 - $(fn_body)))
if [ "$(fn_body)" = 100 ]; then
	not_named "fmt_snprintf" "fmt_snprintf grown to exactly 100 lines"
else
	not_ok "fmt_snprintf did not grow to 100 lines: $(fn_body)"
fi
grow_fn 1
expect_fail "fmt_snprintf grown to 101 lines" "fmt_snprintf (efi/report/fmt.c:"
names "$work/t.out" '^#   fmt_snprintf (efi/report/fmt.c:[0-9]*): 101 lines$' \
	"it is named with its file, its line and its 101 lines"

# A new function with the brace on the declarator's line, an attribute first.
fresh
{
	printf 'static int __attribute__((unused)) same_line_fn(int n) {\n'
	body 101
	printf '\treturn n;\n}\n'
} >>"$work/t/paging/lint.c"
expect_fail "a function of 102 lines with its brace on the declarator's line" \
	"same_line_fn (paging/lint.c:"

# A header's static inline, over the limit.
fresh
{
	printf 'static inline int inline_fn(int n)\n{\n'
	body 110
	printf '\treturn n;\n}\n'
} >>"$work/t/include/ptlab/pte.h"
expect_fail "a static inline of 111 lines in include/ptlab/pte.h" \
	"inline_fn (include/ptlab/pte.h:"

# A struct with its brace alone is no function, however long.
fresh
{
	printf 'struct long_struct\n{\n'
	body 120 | sed 's/n += \([0-9]*\);/int f\1;/'
	printf '};\n'
} >>"$work/t/efi/report/fmt.h"
not_named "long_struct" "a struct of 120 members, its brace alone"

# One page-size constant: a private one, in any of its spellings, is refused;
# an offset of one page (a name not ending in PAGE) is not a page size.
fresh
echo '#define PAGE         UINT64_C(4096)' >>"$work/t/efi/limine/lmelf.c"
echo '#define FW_PAGE_BYTES 0x1000u  /* a page */' >>"$work/t/efi/fw/fsfile.c"
echo '#define X_PAGE_SIZE  (UINT64_C(1) << 12)' >>"$work/t/efi/lib/le.h"
echo '#define T_PAGE_OFF   0x1000' >>"$work/t/efi/smp/smp_tramp.h"
python3 "$check" "$work/t" >"$work/t.out" 2>&1
for needle in "efi/limine/lmelf.c:" "efi/fw/fsfile.c:" "efi/lib/le.h:"; do
	if grep -q "^#   ${needle}[0-9]* " "$work/t.out" &&
		grep -q '^not ok - one page-size constant' "$work/t.out"; then
		ok "a page-size #define of its own in ${needle%:} is refused, named"
	else
		not_ok "a page-size #define of its own in ${needle%:} is not refused:"
		grep -A 5 'page-size' "$work/t.out" | sed 's/^/# /'
	fi
done
not_named "T_PAGE_OFF" "an offset of one page (T_PAGE_OFF)"

# A registry entry moved away from its check function is refused, named.
fresh
awk '/^static const struct ptlab_check global = \{/ { for (i = 0; i < 60; i++) print "/* moved */" } { print }' \
	"$top/efi/checks/cpuchecks.c" >"$work/t/efi/checks/cpuchecks.c"
expect_fail "the global pages entry 60 lines below its check" "efi/checks/cpuchecks.c:"
names "$work/t.out" '^#   efi/checks/cpuchecks.c:[0-9]* global: check_global is [0-9]* lines away$' \
	"it is named with its entry, its function and the distance"

# A small tree within the limits passes, naming its largest file and longest function.
rm -rf "$work/small"
mkdir -p "$work/small/efi/x" "$work/small/paging"
printf 'int f(int n)\n{\n\tn++;\n\treturn n;\n}\n' >"$work/small/efi/x/a.c"
{
	printf 'int g(int n)\n{\n'
	body 7
	printf '\treturn n;\n}\n'
} >"$work/small/paging/b.c"
if python3 "$check" "$work/small" >"$work/small.out" 2>&1 &&
	grep -q '^ok - no file over 800 lines of 2 files (largest: paging/b.c, 11 lines)$' "$work/small.out" &&
	grep -q '^ok - no function over 100 lines of 2 functions (longest: g (paging/b.c:3), 8 lines)$' \
		"$work/small.out"; then
	ok "a small tree within the limits passes, naming paging/b.c (11 lines) and g (8 lines)"
else
	not_ok "a small tree within the limits:"
	sed 's/^/# /' "$work/small.out"
fi

# The limits are the options'.
check_refuses "the small tree with --max-file 10" "paging/b.c: 11 lines" "$work/small.out" \
	python3 "$check" --max-file 10 "$work/small"
check_refuses "the small tree with --max-function 7" "g (paging/b.c:3): 8 lines" "$work/small.out" \
	python3 "$check" --max-function 7 "$work/small"

# The tests, kept like the product with a looser budget (--profile tests:
# 1,200 lines a file, 150 a function, over tests/ with its .sh and .py, but
# what tests/sizes-allowed.txt allows, which may shrink and not grow).
tree_passes "the tests keep their sizes" "$work/tests.out" python3 "$check" --profile tests "$top"
# tfresh: a private copy of the tests' unit and bench folders and the allowances
tfresh() {
	rm -rf "$work/tt"
	mkdir -p "$work/tt/tests"
	cp -r "$top/tests/unit" "$top/tests/bench" "$top/tests/sizes-allowed.txt" "$work/tt/tests/"
}
tfresh
{ cat "$top/tests/unit/test_fmt.c"; yes '/* grown */' | head -n 1300; } >"$work/tt/tests/unit/test_fmt.c"
check_refuses "a unit test grown past 1,200 lines" "tests/unit/test_fmt.c: " "$work/t.out" \
	python3 "$check" --profile tests "$work/tt"
tfresh
{ printf 'int big(int n)\n{\n'; body 151; printf '\treturn n;\n}\n'; } >"$work/tt/tests/unit/big.c"
check_refuses "a test function of 152 lines" "big (tests/unit/big.c:3): 152 lines" "$work/t.out" \
	python3 "$check" --profile tests "$work/tt"
# an allowance of the copy's own (the real list may be empty): test_fmt.c
# grown to 1,559 lines passes at an allowance of 1,559 and not at 1,558
tfresh
{ cat "$top/tests/unit/test_fmt.c"; yes '/* grown */' | head -n $((1559 - $(wc -l <"$top/tests/unit/test_fmt.c"))); } \
	>"$work/tt/tests/unit/test_fmt.c"
printf 'tests/unit/test_fmt.c 1559\n' >>"$work/tt/tests/sizes-allowed.txt"
tree_passes "a file at its allowance (1,559 lines)" "$work/t.out" python3 "$check" --profile tests "$work/tt"
sed -i 's/^tests\/unit\/test_fmt.c 1559$/tests\/unit\/test_fmt.c 1558/' "$work/tt/tests/sizes-allowed.txt"
check_refuses "an allowed file grown past its allowance" "tests/unit/test_fmt.c: 1559 lines" "$work/t.out" \
	python3 "$check" --profile tests "$work/tt"
tfresh
printf 'tests/unit/test_fmt.c 1300\n' >>"$work/tt/tests/sizes-allowed.txt"
check_refuses "an allowance no longer needed" "tests/unit/test_fmt.c: within the budget now" "$work/t.out" \
	python3 "$check" --profile tests "$work/tt"

echo "sizes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
