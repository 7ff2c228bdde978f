#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/run-suites.sh NAME[@LOCK[,LOCK...]]=COMMAND...
#
# Run the suite commands (each through bash), JOBS at a time (default: the
# number of cores), each with its output whole in $TEST_LOGS/NAME.log
# (default build/test-logs).  A suite's output is shown in one piece, under
# "=== suite NAME (S s)", when it has ended: never interleaved with another.
# Suites naming the same LOCK never run at the same time (they share
# something: build outputs, a file, an image).  Each suite's result is the
# last line of the form "WORD: N passed, M failed" it printed.  A suite that
# prints no such line, or exits non-zero while claiming no failure, counts
# as one failure.  The summary lists the suites in the order given; it ends
# with exactly one line "N passed, M failed" over all suites; exits
# non-zero on any failure.
#
# Suites start longest first, by the times of the last run
# ($TEST_LOGS/times.tsv; in the order given when there is none), so that
# the long ones do not end up last on their own.  Each suite runs in a
# session of its own; SIGINT/SIGTERM/SIGHUP reach every running suite as
# SIGTERM (their own cleanup ends their QEMUs), and the script ends with
# the suites that did not run counted as failed.
set -uo pipefail

JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "run-suites: JOBS must be a positive number, not '$JOBS'" >&2; exit 2; }
LOGS=${TEST_LOGS:-build/test-logs}
mkdir -p "$LOGS" || exit 2

names=() cmds=() locks=()
declare -A index=()
for spec in "$@"; do
	head=${spec%%=*}
	name=${head%%@*}
	lk=
	[ "$head" != "$name" ] && lk=${head#*@}
	if [ -n "${index[$name]+x}" ]; then
		echo "run-suites: suite $name given twice" >&2
		exit 2
	fi
	index[$name]=${#names[@]}
	names+=("$name")
	cmds+=("${spec#*=}")
	locks+=("${lk//,/ }")
done
n=${#names[@]}

# the order to start them in: longest first by the last run's times
declare -A last=()
if [ -f "$LOGS/times.tsv" ]; then
	while IFS=$'\t' read -r nm secs; do
		[[ $secs =~ ^[0-9]+$ ]] && last[$nm]=$secs
	done <"$LOGS/times.tsv"
fi
mapfile -t order < <(for ((i = 0; i < n; i++)); do
	printf '%d\t%d\n' "${last[${names[i]}]:--1}" "$i"
done | sort -s -t $'\t' -k1,1nr | cut -f2)

declare -A held=()
declare -a pid_of=() started=()
declare -a rc=() secs=()
running=0
interrupted=0
t_begin=$SECONDS

stop_all()
{
	local p
	interrupted=1
	for p in "${pid_of[@]}"; do
		kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
	done
}
trap 'stop_all' INT TERM HUP

# can_start I: none of suite I's locks is held by a running suite
can_start()
{
	local l
	for l in ${locks[$1]}; do
		[ -n "${held[$l]:-}" ] && return 1
	done
	return 0
}

# start I: the suite in a session of its own (so that a signal can reach
# all of it), its status written to $LOGS/.NAME.status when it ends
start()
{
	local i=$1 l
	for l in ${locks[$i]}; do held[$l]=${names[i]}; done
	started[$i]=$SECONDS
	rm -f -- "$LOGS/.${names[i]}.status"
	setsid bash -c 'bash -c "$1" </dev/null >"$2" 2>&1; echo $? >"$3"' run-suite \
		"${cmds[i]}" "$LOGS/${names[i]}.log" "$LOGS/.${names[i]}.status" &
	pid_of[$i]=$!
	running=$((running + 1))
}

# ended I: suite I has ended; its status (143 when it was ended by a
# signal before it could write one) in $status
ended()
{
	local f=$LOGS/.${names[$1]}.status
	if [ -s "$f" ]; then
		wait "${pid_of[$1]}" 2>/dev/null
		status=$(cat -- "$f")
		rm -f -- "$f"
		return 0
	fi
	kill -0 "${pid_of[$1]}" 2>/dev/null && return 1
	wait "${pid_of[$1]}" 2>/dev/null
	[ -s "$f" ] && status=$(cat -- "$f") || status=143
	rm -f -- "$f"
	return 0
}

finish()
{
	local i=$1 l
	for l in ${locks[$i]}; do unset "held[$l]"; done
	unset "pid_of[$i]"
	running=$((running - 1))
	rc[i]=$status
	secs[i]=$((SECONDS - started[i]))
	echo "=== suite ${names[i]} (${secs[i]} s)"
	cat -- "$LOGS/${names[i]}.log"
}

pending=("${order[@]}")
while :; do
	# start what may start, in order
	if [ "$interrupted" = 0 ]; then
		rest=()
		for i in "${pending[@]}"; do
			if [ "$running" -lt "$JOBS" ] && can_start "$i"; then
				start "$i"
			else
				rest+=("$i")
			fi
		done
		pending=("${rest[@]}")
	fi
	[ "$running" -eq 0 ] && break
	sleep 0.5
	for i in "${!pid_of[@]}"; do
		ended "$i" && finish "$i"
	done
done

total_pass=0 total_fail=0
summary=()
: >"$LOGS/times.tsv.new"
for ((i = 0; i < n; i++)); do
	name=${names[i]}
	if [ -z "${rc[i]:-}" ]; then
		p=0 f=1 note=" (not run: interrupted)"
	else
		printf '%s\t%d\n' "$name" "${secs[i]}" >>"$LOGS/times.tsv.new"
		line=$(grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed$' "$LOGS/$name.log" | tail -n 1)
		if [ -z "$line" ]; then
			p=0 f=1
			note=" (no result line, exit status ${rc[i]})"
		else
			p=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\1/' <<<"$line")
			f=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\2/' <<<"$line")
			note=
			if [ "${rc[i]}" -ne 0 ] && [ "$f" -eq 0 ]; then
				f=1
				note=" (exit status ${rc[i]})"
			fi
		fi
	fi
	summary+=("$(printf '%-16s %4d passed, %4d failed%s' "$name" "$p" "$f" "$note")")
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
done
# a complete run's times order the next one
[ "$interrupted" = 0 ] && mv -f "$LOGS/times.tsv.new" "$LOGS/times.tsv"
rm -f "$LOGS/times.tsv.new"

echo "=== times: $((SECONDS - t_begin)) s wall, $JOBS at a time; suite seconds, longest first:"
for ((i = 0; i < n; i++)); do
	[ -n "${secs[i]:-}" ] && printf '%s %s\n' "${secs[i]}" "${names[i]}"
done | sort -k1,1nr | tr '\n' ' ' | sed 's/ $/\n/'
echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
