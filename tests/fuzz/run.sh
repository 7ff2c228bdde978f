#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/fuzz/run.sh fuzz FUZZ_DIR SECONDS TARGET...
# tests/fuzz/run.sh replay FUZZ_DIR TARGET...
#
# fuzz:   run each libFuzzer binary FUZZ_DIR/fuzz_TARGET for SECONDS, one
#         target after the other, each as FUZZ_JOBS processes at once (default:
#         one per core) that share FUZZ_DIR/corpus/TARGET/ (libFuzzer reloads
#         it every second, so each sees what the others found), starting from
#         the committed seeds tests/fuzz/corpus/TARGET/.  Crash inputs land in
#         FUZZ_DIR as TARGET-crash-*, logs as TARGET.N.log.  Prints each
#         target's executions, the sum over its processes of libFuzzer's
#         "stat::number_of_executed_units" (or the last "#N" line), and ends
#         with "fuzz: total executions=N".
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
	jobs=${FUZZ_JOBS:-$(nproc)}
	[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
	bad=0 total=0
	for t in "$@"; do
		bin=$dir/fuzz_$t
		mkdir -p "$dir/corpus/$t"
		if [ ! -x "$bin" ]; then
			echo "fuzz: $t: not built"
			bad=1
			continue
		fi
		pids=()
		for j in $(seq 1 "$jobs"); do
			"$bin" -max_total_time="$secs" -timeout=20 -print_final_stats=1 \
				-artifact_prefix="$dir/$t-" "$dir/corpus/$t" "tests/fuzz/corpus/$t" \
				>"$dir/$t.$j.log" 2>&1 &
			pids+=($!)
		done
		sum=0 failed=()
		for j in $(seq 1 "$jobs"); do
			log=$dir/$t.$j.log
			wait "${pids[$((j - 1))]}"
			rc=$?
			execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]\+\).*/\1/p' "$log" | tail -n 1)
			[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]\+\)[[:space:]].*/\1/p' "$log" | tail -n 1)
			sum=$((sum + ${execs:-0}))
			[ "$rc" -eq 0 ] || failed+=("$log:$rc")
		done
		total=$((total + sum))
		corpus=$(find "$dir/corpus/$t" -type f | wc -l)
		if [ ${#failed[@]} -eq 0 ]; then
			echo "fuzz: $t: $sum executions in ${secs}s ($jobs processes), corpus $corpus, no finding"
		else
			bad=1
			echo "fuzz: $t: $sum executions, FINDING:"
			for f in "${failed[@]}"; do
				log=${f%:*}
				echo "  exit ${f##*:}, see $log:"
				grep -E '^(fuzz_[a-z]+:|==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -n 5
			done
			ls "$dir/$t-"* 2>/dev/null | head -n 3
		fi
	done
	echo "fuzz: total executions=$total"
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
