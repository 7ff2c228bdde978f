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
# bench: NAME value=X goal=OPY met=yes|no, in the same order in every run
cat "$dir"/run-*.txt | awk -v n="$n" '
/^bench: [a-z0-9_]+ value=.* goal=.* met=/ {
	name = $2
	if (!(name in seen)) { seen[name] = 1; order[++count] = name }
	v = $3; sub(/value=/, "", v)
	vals[name] = vals[name] " " v
	goalof[name] = $4
	if ($5 == "met=yes") met[name]++
}
END {
	for (i = 1; i <= count; i++) {
		name = order[i]
		m = split(vals[name], a, " ")
		# insertion sort for the median
		for (x = 2; x <= m; x++) {
			t = a[x] + 0
			for (y = x - 1; y >= 1 && a[y] + 0 > t; y--) a[y + 1] = a[y]
			a[y + 1] = t
		}
		med = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		printf("bench-runs: %s median=%.2f %s met in %d of %d runs [%s ]\n", name, med,
		       goalof[name], met[name] + 0, n, vals[name])
	}
}'
