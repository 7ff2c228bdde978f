#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/reliability-summary.sh BAD_INPUT_BIN ALLOC_FAIL_BIN CORPUS_DIR
#
# One line with the reliability counts, taken from the tests themselves:
#   reliability: bad_input_cases=N injection_points=N corpus_inputs=N
# bad_input_cases and injection_points are printed by the two unit tests
# (run again here, from the top of the tree); corpus_inputs counts the
# committed fuzz seeds that "fuzz-replay" replays.  Ends with
# "reliability: 1 passed, 0 failed", or 0/1 when a test failed or a count
# is missing or zero.
set -uo pipefail

bad_bin=$1 alloc_bin=$2 corpus=$3
ok=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT

count() {   # BIN KEY
	if [ ! -x "$1" ] || ! "$1" >"$log" 2>&1; then
		echo "reliability: $(basename "$1") missing or failing" >&2
		ok=0
	fi
	sed -n "s/.*$2=\([0-9]\+\).*/\1/p" "$log" | tail -n 1
}

cases=$(count "$bad_bin" bad_input_cases)
points=$(count "$alloc_bin" injection_points)
inputs=$(find "$corpus" -mindepth 2 -type f 2>/dev/null | wc -l)
for v in "${cases:-0}" "${points:-0}" "$inputs"; do
	[ "$v" -gt 0 ] || ok=0
done
echo "reliability: bad_input_cases=${cases:-0} injection_points=${points:-0} corpus_inputs=$inputs"
echo "reliability: $ok passed, $((1 - ok)) failed"
[ "$ok" -eq 1 ]
