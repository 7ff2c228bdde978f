#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Every check can fail: the runs of tests/boot/faults.tsv, each with
# --inject faults, must each fail exactly the checks the table names for
# them (by fault name: each is a check registry entry's, whose name, phase
# and what it breaks come from the registry as the build printed it,
# $PTLAB_BUILD/gen/checks.tsv, never from this table) - every "not ok" line matches a FAILS-AS of the run's rows, every row
# has one, and that line is the row's own check failing (its ERE matches it
# too) - and end with a failing verdict; the clean runs must pass.  Then
# the table must name every test point a boot of this suite passed (a new
# check without a fault fails here), every other suite it points to must
# hold the case it names (gives its --inject and judges its check by the
# key its lines end in, " # check=FAULT"), every row must name a test point of these boots
# (no stale row), and the table of docs/faults.md must be the one tools/faulttable.py
# generates from the registry and it (which also refuses a row naming a
# fault no entry has, and an entry no row proves).  Every ERE and FAILS-AS matches a test point's whole
# text ("ok N - TEXT", "not ok N - TEXT"), never a prefix of it: a new
# check whose name begins like an old one's is not taken for it.
#
# Two boots at a time; about two minutes on an idle 2-core machine.

set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init faults

T=${FAULTS_TIMEOUT:-400}
HERE=$(dirname "$0")
TABLE=$HERE/faults.tsv
ROOT=$HERE/../..
CHECKS=$PTLAB_BUILD/gen/checks.tsv

if [ ! -s "$CHECKS" ]; then
	fail "no $CHECKS: the registry's table is made by 'make checks-tsv' (make test makes it)"
	boot_done
	exit
fi

# The table, one kind at a time, tab-separated fields (no empty ones).
rows()
{
	grep -v '^#' "$TABLE" | grep -E "^$1	"
}

# cname FAULT: the whole name of the registry entry whose fault is FAULT.
cname()
{
	awk -F '\t' -v f="$1" '$1 == f { print $2; exit }' "$CHECKS"
}

# ---- the table itself ----

if python3 "$ROOT/tools/faulttable.py" --check "$CHECKS" "$TABLE" "$ROOT/docs/faults.md" \
		>"$BOOT_DIR/table.out" 2>&1; then
	pass "docs/faults.md's table is the one tools/faulttable.py makes of the registry and faults.tsv"
else
	fail "docs/faults.md's table is not the registry's and faults.tsv's: $(head -n 8 "$BOOT_DIR/table.out" | tr '\n' ' ')"
fi

bad=
while IFS=$'\t' read -r _ fault file; do
	if [ ! -f "$ROOT/$file" ]; then
		bad="$bad '$fault': no $file;"
	elif ! grep -qE -- "--inject=([a-z0-9-]+,)*$fault([^a-z0-9-]|\$)" "$ROOT/$file"; then
		bad="$bad '$fault': $file gives no --inject=$fault;"
	elif ! grep -qE -- "# check=$fault\\\$" "$ROOT/$file"; then
		bad="$bad '$fault': $file judges no line by its key (# check=$fault);"
	fi
done < <(rows suite)
while IFS=$'\t' read -r _ name ere file needle _; do
	if [ ! -f "$ROOT/$file" ]; then
		bad="$bad '$name': no $file;"
	elif ! grep -qF -- "$needle" "$ROOT/$file"; then
		bad="$bad '$name': $file has no '$needle';"
	fi
done < <(rows churn)
if [ -z "$bad" ]; then
	pass "every suite the table points to holds the case it names"
else
	fail "suite rows:$bad"
fi

runs=$(rows run | cut -f 2)
bad=
while IFS=$'\t' read -r _ fault _ rl _; do
	for r in ${rl//,/ }; do
		grep -qxF -- "$r" <<<"$runs" || bad="$bad '$fault' names no run '$r';"
	done
done < <(rows point)
for r in $runs; do
	st=$(rows run | awk -F '\t' -v r="$r" '$2 == r { print $5 }')
	[ "$st" = 33 ] && continue
	rows point | cut -f 4 | tr ',' '\n' | grep -qxF -- "$r" || bad="$bad run '$r' proves nothing;"
done
if [ -z "$bad" ]; then
	pass "every point row names runs of the table, every failing run has a row"
else
	fail "table:$bad"
fi

# ---- the boots, two at a time ----

start()
{
	local tag=$1 boot=$2 cfg=$3
	local -a opts=()

	[ "$boot" = - ] || read -r -a opts <<<"$boot"
	boot_bg "$tag" "${opts[@]}" --mem 1G --timeout "$T" --cfg "$cfg"
}

# whole ERE TEXT...: TEXT (a line) is all of a match of ERE, not a part of it.
whole()
{
	grep -qxE -- "$1" <<<"$2"
}

# keyed: each test point's text (a line on stdin, "ok N - " gone) as
# "TEXT<tab>KEY", KEY the registry key its line ends in (" # check=KEY",
# the fault name of the check that reported it), empty when it has none.
keyed()
{
	sed -E 's/^(.*) # check=([a-z0-9][a-z0-9-]*)$/\1\t\2/; t; s/$/\t/'
}

# failing_names LOG: the "not ok" lines as keyed() gives them, one a line;
# a TODO line (a known deviation, docs/mmu.md) is reported, not failed.
failing_names()
{
	log_clean "$1" | grep -v ' # TODO ' | sed -nE 's/^not ok [0-9]+ - //p' | keyed
}

# of_key KEY: the texts of the keyed() lines on stdin that KEY's check may
# have reported: those keyed by KEY, and those no check keyed.
of_key()
{
	awk -F '\t' -v k="$1" '$2 == k || $2 == "" { print $1 }'
}

# judge TAG STATUS: the run failed exactly the rows naming it.
judge()
{
	local tag=$1 want=$2 st inj ere rl as fails line hit

	boot_result "$tag" >"$BOOT_DIR/$tag.result"
	st=$?
	cat "$BOOT_DIR/$tag.result"
	log_clean "$BOOT_LOG" >"$BOOT_DIR/$tag.log"
	check_status "$st" "$want" "$tag: QEMU exit status $want"
	if [ "$want" = 33 ]; then
		check_log '^ptlab: [1-9][0-9]* passed, 0 failed, [0-9]+ skipped$' "$BOOT_LOG" \
			"$tag: clean run, every check passed"
		return
	fi
	check_log '^ptlab: [0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped$' "$BOOT_LOG" \
		"$tag: the verdict is a failure"
	check_no_log '^# inject: .*(could not be planted|undoing it .* failed|no room)' "$BOOT_LOG" \
		"$tag: every fault planted and taken back"

	fails=$(failing_names "$BOOT_LOG")
	# every row of this run has its failing line, and that line is its check's (its ERE)
	while IFS=$'\t' read -r _ inj ere rl as; do
		grep -qxF -- "$tag" <<<"${rl//,/$'\n'}" || continue
		local mine name
		name=$(cname "$inj")
		mine=$(of_key "$inj" <<<"$fails" | grep -xE -- "$as")
		if [ -z "$mine" ]; then
			fail "$tag: --inject=$inj: no 'not ok ... $as' line keyed by check=$inj"
		elif ! grep -vxE -- "$ere" <<<"$mine" >/dev/null; then
			pass "$tag: --inject=$inj makes '$name' fail: $(head -n 1 <<<"$mine" | cut -c 1-50)"
		else
			fail "$tag: --inject=$inj: the failing line is not the check '$name' (its ERE" \
			     "'$ere' does not match it): not ok - $(grep -vxE -- "$ere" <<<"$mine" | head -n 1)"
		fi
	done < <(rows point)
	# and nothing else failed
	hit=0
	while IFS=$'\t' read -r line key; do
		[ -n "$line" ] || continue
		local ok=0
		while IFS=$'\t' read -r _ inj ere rl as; do
			grep -qxF -- "$tag" <<<"${rl//,/$'\n'}" || continue
			[ -z "$key" ] || [ "$key" = "$inj" ] || continue
			if whole "$as" "$line"; then ok=1; break; fi
		done < <(rows point)
		[ "$ok" = 1 ] || { fail "$tag: a check failed that no row names: not ok - $line${key:+ # check=$key}"; hit=1; }
	done <<<"$fails"
	[ "$hit" = 0 ] && pass "$tag: no other check failed ($(grep -c . <<<"$fails") failing lines)"
	[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 20
}

mapfile -t RUNS < <(rows run)
for ((i = 0; i < ${#RUNS[@]}; i += 2)); do
	for ((k = i; k < i + 2 && k < ${#RUNS[@]}; k++)); do
		IFS=$'\t' read -r _ tag boot cfg _ <<<"${RUNS[k]}"
		start "$tag" "$boot" "$cfg"
	done
	boot_wait
	for ((k = i; k < i + 2 && k < ${#RUNS[@]}; k++)); do
		IFS=$'\t' read -r _ tag _ _ want <<<"${RUNS[k]}"
		judge "$tag" "$want"
	done
done

# ---- every test point passed in any of these boots has a row ----

# A test point keyed by a check (" # check=KEY") is matched by that check's
# point rows only; one without a key by any row's ERE, by its words.
uncovered=
unkeyed=
while IFS=$'\t' read -r name key; do
	matched=0
	while IFS=$'\t' read -r kind fault ere _; do
		case $kind in
		point) [ -z "$key" ] || [ "$key" = "$fault" ] || continue ;;
		churn|record) [ -z "$key" ] || continue ;;
		*) continue ;;
		esac
		if whole "$ere" "$name"; then
			matched=1
			[ -n "$key" ] || [ "$kind" != point ] || unkeyed="$unkeyed$fault"$'\n'
			break
		fi
	done < <(grep -v '^#' "$TABLE")
	[ "$matched" = 1 ] || uncovered="$uncovered '$name${key:+ # check=$key}'"
done < <(cat "$BOOT_DIR"/*.log 2>/dev/null | grep -E '^ok [0-9]+ - ' | grep -v ' # SKIP' |
	 sed -E 's/^ok [0-9]+ - //' | keyed | sort -u)
if [ -z "$uncovered" ]; then
	pass "every check these boots passed has a row in faults.tsv (its own, when keyed)"
else
	fail "checks without a fault in faults.tsv:$uncovered"
fi
# and every row names a test point these boots have (ok or not ok): no stale row
seen=$(cat "$BOOT_DIR"/*.log 2>/dev/null | sed -nE 's/^(not )?ok [0-9]+ - //p' | grep -v ' # SKIP' |
       keyed | sort -u)
stale=
while IFS=$'\t' read -r kind name ere _; do
	case $kind in
	point) grep -qxE -- "$ere" < <(of_key "$name" <<<"$seen") || stale="$stale '$name' ($ere)" ;;
	churn|record) grep -qxE -- "$ere" < <(of_key "" <<<"$seen") || stale="$stale '$name' ($ere)" ;;
	esac
done < <(grep -v '^#' "$TABLE")
if [ -z "$stale" ]; then
	pass "every row of faults.tsv names a test point of these boots"
else
	fail "rows naming no test point of these boots:$stale"
fi
for f in $(sort -u <<<"$unkeyed"); do
	echo "# found by its words, no key on the line: $f ($(cname "$f"))"
done
while IFS=$'\t' read -r _ name _ why; do
	echo "# record, not a check: $name ($why)"
done < <(rows record)

boot_done
