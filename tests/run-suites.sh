#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/run-suites.sh NAME=COMMAND...
#
# Run each suite command (through bash), show its output, and take its result
# from the last line of the form "WORD: N passed, M failed" it printed.  A
# suite that prints no such line, or exits non-zero while claiming no
# failure, counts as one failure.  Ends with exactly one line
# "N passed, M failed" over all suites; exits non-zero on any failure.
set -uo pipefail

total_pass=0 total_fail=0
summary=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for spec in "$@"; do
	name=${spec%%=*}
	cmd=${spec#*=}
	echo "=== suite $name"
	bash -c "$cmd" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		p=0 f=1
		note=" (no result line, exit status $rc)"
	else
		p=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\1/' <<<"$line")
		f=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\2/' <<<"$line")
		note=
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1
			note=" (exit status $rc)"
		fi
	fi
	summary+=("$(printf '%-16s %4d passed, %4d failed%s' "$name" "$p" "$f" "$note")")
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
done

echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
