#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/interfaces.sh
# mk/check-interfaces.py over efi/ must pass, printing the share of
# functions that take the whole run state; then, on private copies of
# efi/, each kind of wide interface must make it fail, naming what it
# found: functions added that take struct ptlab * (counted exactly, and
# over a limit set at the tree's own share), a function declared in
# state/state.h, a .c without its header, an exported function declared in
# another header, a mode test and a kernel field in a shared check, and no
# Universal Ctags to count with.  Prints ok/not ok lines and
# "interfaces: N passed, M failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
check="$top/mk/check-interfaces.py"
. "$top/tests/refused.sh"

scratch interfaces

# share_of OUTPUT: "N M PCT" from the checker's share line.
share_of() {
	sed -n 's/^.*share: \([0-9]*\) of the \([0-9]*\) functions .*(\([0-9.]*\) %,.*/\1 \2 \3/p' "$1"
}

# The tree as it is.
if python3 "$check" "$top/efi" >"$work/tree.out" 2>&1; then
	ok "efi/ has small interfaces ($(grep -m1 'share: [0-9]' "$work/tree.out" | sed 's/^ok - //'))"
else
	not_ok "efi/ has wide interfaces:"
	grep -A 12 '^not ok' "$work/tree.out" | sed 's/^/# /'
fi
read -r whole total pct < <(share_of "$work/tree.out")
if [ -z "${whole:-}" ]; then
	not_ok "the checker printed no share line"
	whole=0 total=0 pct=0
fi
grep '^#' "$work/tree.out" | head -n 8

# fresh: a private copy of efi/.
fresh() {
	rm -rf "$work/t"
	mkdir -p "$work/t"
	cp -r "$top/efi" "$work/t/efi"
}

# run_copy [ARGS...]: the checker on the copy; its status, output in t.out.
run_copy() {
	python3 "$check" "$@" "$work/t/efi" >"$work/t.out" 2>&1
}

# expect_fail WHAT NEEDLE [ARGS...]: the checker fails on the copy, with
# a 'not ok' line, and its output has NEEDLE.
expect_fail() {
	local what=$1 needle=$2
	shift 2
	check_refuses "$what" "$needle" "$work/t.out" python3 "$check" "$@" "$work/t/efi"
}

# Three functions taking the whole state, in a file of their own with its
# header: counted exactly, both readings agreeing on them.
fresh
mkdir -p "$work/t/efi/extra"
cat >"$work/t/efi/extra/wide.h" <<'EOF'
struct ptlab;
void wide_a(struct ptlab *p);
int wide_b(int n, struct ptlab *p);
const char *wide_c(const struct ptlab *p, unsigned k);
int narrow(int n);
EOF
cat >"$work/t/efi/extra/wide.c" <<'EOF'
#include "extra/wide.h"
void wide_a(struct ptlab *p)
{
	(void)p;
}
int wide_b(int n, struct ptlab *p)
{
	return n + (p != 0);
}
const char *wide_c(const struct ptlab *p,
		   unsigned k)
{
	return k && p ? "{" : "}";
}
int narrow(int n)
{
	return n;
}
EOF
run_copy --limit 100
read -r w2 t2 _ < <(share_of "$work/t.out")
if [ "${w2:-}" = $((whole + 3)) ] && [ "${t2:-}" = $((total + 4)) ] &&
	grep -q '^ok - share: Universal Ctags and the C reading' "$work/t.out"; then
	ok "three more whole-state functions of four counted: $whole of $total became $w2 of $t2"
else
	not_ok "three more whole-state functions of four: expected $((whole + 3)) of $((total + 4)), got '${w2:-} of ${t2:-}'"
	grep -A 3 'share' "$work/t.out" | sed 's/^/# /'
fi
# the tree's own share, exactly: three of four new functions raise any share below 75 %
exact=$(python3 -c "print(repr(100 * $whole / max($total, 1)))")
expect_fail "the same copy with the limit at the tree's own share ($pct %)" \
	"take struct ptlab *" --limit "$exact"

# A function in the run's state header.
fresh
sed -i 's|^#endif /\* PTLAB_EFI_STATE_H \*/|void ptlab_sneaked_in(struct ptlab *p);\n&|' \
	"$work/t/efi/state/state.h"
expect_fail "a function declared in state/state.h" "declares ptlab_sneaked_in" --limit 100

# A .c without its header.
fresh
printf 'int lonely_fn(int n)\n{\n\treturn n;\n}\n' >"$work/t/efi/report/lonely.c"
expect_fail "a .c file without a header of its own" "no $work/t/efi/report/lonely.h" --limit 100

# An exported function declared elsewhere than in its own header.
fresh
printf 'int stray_fn(int n);\n' >"$work/t/efi/report/stray.h"
printf 'int stray_fn(int n)\n{\n\treturn n;\n}\nint stray_other(int n)\n{\n\treturn n;\n}\n' \
	>"$work/t/efi/report/stray.c"
printf 'int stray_other(int n);\n' >>"$work/t/efi/report/fmt.h"
expect_fail "an exported function declared in another file's header" \
	"stray.c: stray_other (declared in $work/t/efi/report/fmt.h)" --limit 100

# A mode test and a kernel field in a shared check.
fresh
printf 'struct ptlab;\nint peek_mode(const struct ptlab *p)\n{\n\treturn p->mode->boot_services_gone;\n}\n' \
	>"$work/t/efi/checks/peek.c"
printf 'struct ptlab;\nint peek_mode(const struct ptlab *p);\n' >"$work/t/efi/checks/peek.h"
expect_fail "a mode test in a shared check" "checks/peek.c:4" --limit 100
fresh
printf 'struct ptlab;\nint peek_kern(const struct ptlab *p)\n{\n\n\treturn p->kern.on;\n}\n' \
	>"$work/t/efi/checks/peek.c"
printf 'struct ptlab;\nint peek_kern(const struct ptlab *p);\n' >"$work/t/efi/checks/peek.h"
expect_fail "a kernel field in a shared check" "checks/peek.c:5" --limit 100

# No Universal Ctags: nothing counted, said so.
fresh
expect_fail "no ctags program" "universal-ctags" --ctags "$work/no-such-ctags"

echo "interfaces: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
