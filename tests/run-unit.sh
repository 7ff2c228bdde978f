#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/run-unit.sh BIN...
#
# Run cmocka test binaries and sum their results.  cmocka ends each group
# with "[  PASSED  ] N test(s)." and, when some failed,
# "[  FAILED  ] M test(s), listed below:".  A binary that exits non-zero
# without a FAILED line (crash, sanitizer report, timeout) counts as one
# failure; so do one that reports nothing at all and one that is missing
# (it did not build).
# Ends with "unit: N passed, M failed"; exits non-zero on any failure.
set -uo pipefail

UNIT_TIMEOUT=${UNIT_TIMEOUT:-300}
unset CMOCKA_MESSAGE_OUTPUT CMOCKA_XML_FILE
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

total_pass=0 total_fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for bin in "$@"; do
	name=$(basename "$bin")
	if [ ! -x "$bin" ]; then
		echo "unit: $name: not built"
		echo "unit: $name: 0 passed, 1 failed"
		total_fail=$((total_fail + 1))
		continue
	fi
	timeout -k 5 "$UNIT_TIMEOUT" "$bin" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]\+\) test(s)\..*/\1/p' "$log" |
		awk '{ s += $1 } END { print s + 0 }')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]\+\) test(s), listed below:.*/\1/p' "$log" |
		awk '{ s += $1 } END { print s + 0 }')
	nf=$(grep -c '^\[  FAILED  \] [0-9]\+ test(s), listed below:' "$log")
	seen=$(grep -c '^\[  \(PASSED\|FAILED\)  \] [0-9]\+ test(s)' "$log")
	if [ "$rc" -ne 0 ] && [ "$nf" -eq 0 ]; then
		echo "unit: $name exited with status $rc without a cmocka failure report"
		f=$((f + 1))
	elif [ "$seen" -eq 0 ]; then
		echo "unit: $name reported no results"
		f=$((f + 1))
	fi
	echo "unit: $name: $p passed, $f failed"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
done

echo "unit: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
