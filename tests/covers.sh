#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/covers.sh: tests/covers.py over the tree must pass (every unit test
# names the sources it covers, every one exists, every C source of efi/ and
# paging/ is covered by a unit test or listed in tests/unit/elsewhere.txt
# with a reason).  Then on copies of tests/unit: a covers: line naming a
# file that does not exist, a host-built source no test covers any more, a
# test without a covers: line, each refused by name.  Prints ok/not ok
# lines and "covers: N passed, M failed".
set -uo pipefail

. "$(dirname "$0")/refused.sh"     # sets $top
check="$top/tests/covers.py"

scratch covers

tree_passes "the tree's covers: lines hold" "$work/tree.out" python3 "$check" "$top"
python3 "$check" --map "$top" >"$work/map" 2>&1
if grep -q '^paging/pt.c: .*test_pt\b' "$work/map" && grep -q '^efi/acpi/acpi.c: test_acpi$' "$work/map"; then
	ok "the map (make mutants') names test_pt for paging/pt.c and test_acpi alone for efi/acpi/acpi.c"
else
	not_ok "the map: $(head -n 3 "$work/map" | tr '\n' ' ')"
fi

# fresh: a private copy of the unit tests
fresh() {
	rm -rf "$work/u"
	cp -r "$top/tests/unit" "$work/u"
}
fresh
sed -i 's|^/\* covers: efi/acpi/acpi.c \*/|/* covers: efi/acpi/nosuch.c */|' "$work/u/test_acpi.c"
check_refuses "a covers: line naming a file that does not exist" "test_acpi names efi/acpi/nosuch.c" \
	"$work/t.out" python3 "$check" --units "$work/u" "$top"
check_refuses "a host-built source no test covers" "efi/acpi/nosuch.c" \
	"$work/t.out" python3 "$check" --units "$work/u" "$top"
grep -q 'efi/acpi/acpi.c' "$work/t.out" && ok "  ... and efi/acpi/acpi.c, now uncovered, is named" ||
	not_ok "  ... efi/acpi/acpi.c, now uncovered, is not named"
fresh
sed -i '/^\/\* covers: /d' "$work/u/test_fmt.c"
check_refuses "a test without a covers: line" "test_fmt: 0 covers: lines" \
	"$work/t.out" python3 "$check" --units "$work/u" "$top"

echo "covers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
