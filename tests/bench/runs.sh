#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the benchmark N times and summarise its goal lines: for each goal the
# median of the N values, every value in run order, and in how many runs it
# was met.  Each run's full output is kept as DIR/run-K.txt.
# usage: runs.sh N 'COMMAND' DIR
set -eu
n=$1
cmd=$2
dir=$3
mkdir -p "$dir"
k=1
while [ "$k" -le "$n" ]; do
	echo "bench-runs: run $k of $n" >&2
	sh -c "$cmd" >"$dir/run-$k.txt"
	k=$((k + 1))
done
# the goal lines, "bench: NAME value=X goal=G met=yes|no", read by the one
# reader of ptlab's reports and benchmark outputs
python3 "$(dirname "$0")/../../tools/report.py" bench-summary "$dir"/run-*.txt
