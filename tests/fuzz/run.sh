#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/fuzz/run.sh fuzz FUZZ_DIR SECONDS TARGET...
# tests/fuzz/run.sh replay FUZZ_DIR TARGET...
#
# fuzz:   run each libFuzzer binary FUZZ_DIR/fuzz_TARGET for SECONDS, one
#         after the other (one process each: two cores, one for the fuzzer and
#         one for everything else), starting from the committed seeds
#         tests/fuzz/corpus/TARGET/ and keeping new inputs in
#         FUZZ_DIR/corpus/TARGET/.  Crash inputs land in FUZZ_DIR as
#         TARGET-crash-*.  Prints each target's executions, from libFuzzer's
#         "stat::number_of_executed_units" (or the "#N DONE" line).
# replay: run each binary once over every committed seed, one process per
#         input, and end with "fuzz-replay: N passed, M failed".
set -uo pipefail

mode=$1 dir=$2
shift 2
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

case $mode in
fuzz)
	secs=$1
	shift
	bad=0
	for t in "$@"; do
		bin=$dir/fuzz_$t
		log=$dir/$t.log
		mkdir -p "$dir/corpus/$t"
		if [ ! -x "$bin" ]; then
			echo "fuzz: $t: not built"
			bad=1
			continue
		fi
		"$bin" -max_total_time="$secs" -timeout=20 -print_final_stats=1 \
			-artifact_prefix="$dir/$t-" "$dir/corpus/$t" "tests/fuzz/corpus/$t" \
			>"$log" 2>&1
		rc=$?
		execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]\+\).*/\1/p' "$log" | tail -n 1)
		[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]\+\)[[:space:]]*DONE.*/\1/p' "$log" | tail -n 1)
		[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]\+\)[[:space:]].*/\1/p' "$log" | tail -n 1)
		corpus=$(find "$dir/corpus/$t" -type f | wc -l)
		if [ "$rc" -eq 0 ]; then
			echo "fuzz: $t: ${execs:-0} executions in ${secs}s, corpus $corpus, no finding"
		else
			bad=1
			echo "fuzz: $t: ${execs:-0} executions, FINDING (exit $rc), see $log:"
			grep -E '^(fuzz_[a-z]+:|==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -n 5
			ls "$dir/$t-"* 2>/dev/null | head -n 3
		fi
	done
	exit $bad
	;;
replay)
	pass=0 fail=0
	for t in "$@"; do
		bin=$dir/fuzz_$t
		if [ ! -x "$bin" ]; then
			echo "fuzz-replay: $t: not built"
			fail=$((fail + 1))
			continue
		fi
		n=0
		for f in tests/fuzz/corpus/"$t"/*; do
			[ -f "$f" ] || continue
			n=$((n + 1))
			if timeout -k 5 60 "$bin" "$f" >"$dir/replay.log" 2>&1; then
				pass=$((pass + 1))
			else
				fail=$((fail + 1))
				echo "fuzz-replay: $t: $f FAILED:"
				tail -n 20 "$dir/replay.log"
			fi
		done
		echo "fuzz-replay: $t: $n inputs"
	done
	echo "fuzz-replay: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	;;
*)
	echo "usage: $0 fuzz|replay FUZZ_DIR ..." >&2
	exit 2
	;;
esac
