#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The churn and the focused CPU checks: a fixed seed on qemu64 and on max,
# a random seed (printed, so a failure can be replayed), and every --inject
# kind, which must be caught by the check named for it while the run still
# completes, restores the firmware's CR3 and writes its report.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init stress

seed=${PTLAB_STRESS_SEED:-$(( (RANDOM << 15) | RANDOM ))}
echo "# stress: random seed $seed (PTLAB_STRESS_SEED=$seed replays it)"

churn_ok()
{
	local name=$1 ops
	judge_passed "$name"
	ops=$(fact "$BOOT_LOG" churn ops)
	if [ "${ops:-0}" -ge 20000 ] && [ "$(fact "$BOOT_LOG" churn faults_expected)" = \
	     "$(fact "$BOOT_LOG" churn faults_seen)" ]; then
		pass "$name: $ops churn operations, every expected fault seen"
	else
		fail "$name: churn ops='$ops' faults $(fact "$BOOT_LOG" churn faults_expected)/$(fact "$BOOT_LOG" churn faults_seen)"
	fi
	check_log '^# progress: 100% ' "$BOOT_LOG" "$name: progress reached 100%"
	[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 20
}

boot_bg qemu64 --cfg "--end=qemu --seed=7" --cpu qemu64 --mem 256M
# 6 GiB: a GiB that is all RAM exists, so 1 GiB leaves are in the churn
boot_bg max --cfg "--end=qemu --seed=7" --cpu max --mem 6G
boot_wait
churn_ok qemu64
if [ "$(fact "$BOOT_LOG" churn mapped_1g)" = 0 ] && [ "$(fact "$BOOT_LOG" churn mapped_2m)" -gt 0 ]; then
	pass "qemu64: 4K and 2M leaves churned, no 1 GiB leaf without pdpe1gb"
else
	fail "qemu64: mapped_2m=$(fact "$BOOT_LOG" churn mapped_2m) mapped_1g=$(fact "$BOOT_LOG" churn mapped_1g)"
fi
churn_ok max
if [ "$(fact "$BOOT_LOG" churn mapped_1g)" -gt 0 ] 2>/dev/null; then
	pass "max: $(fact "$BOOT_LOG" churn mapped_1g) maps with 1 GiB leaves in the churn"
else
	fail "max: no 1 GiB leaf in the churn ($(fact "$BOOT_LOG" churn mapped_1g))"
fi
check_no_log '^ok [0-9]+ - (A/D|invlpg remap) 1G leaf # SKIP' "$BOOT_LOG" \
	"max: the 1 GiB A/D and invlpg checks ran"

boot_bg random --cfg "--end=qemu --seed=$seed" --cpu max --mem 1G
boot_wait
churn_ok random

# each kind: the note names the damaged va, the churn check named for the
# kind fails at that va, and the run still completes (status 0x11): teardown
# and the frame count come after the failure, and \PTLAB.TXT is written.
inject_caught()
{
	local kind=$1 want=$2 st lines note_re note va bad_line bad rel ok
	local n_note n_bad n_teardown n_frames f0=$BOOT_FAIL
	boot_result "$kind"
	st=$?
	check_status "$st" 35 "inject $kind: run completed and reported failure (status 0x11)"
	lines=$(report_lines "$BOOT_LOG")

	case $kind in
	missing-invlpg) note_re='^# inject: missing-invlpg after remapping (0x[0-9a-f]+)$' ;;
	freed-table) note_re='^# inject: freed-table 0x[0-9a-f]+ still maps (0x[0-9a-f]+)$' ;;
	*) note_re="^# inject: $kind at (0x[0-9a-f]+)\$" ;;
	esac
	note=$(grep -m 1 -nE -- "$note_re" <<<"$lines")
	va=$(sed -E "s/$note_re/\\1/" <<<"${note#*:}")
	n_note=${note%%:*}
	if [ -n "$note" ]; then
		pass "inject $kind: noted (${note#*:})"
	else
		fail "inject $kind: no line matching /$note_re/ in the report"
		grep -E '^# inject: ' <<<"$lines" | sed 's/^/# /'
	fi

	bad_line=$(grep -m 1 -nE -- "^not ok [0-9]+ - churn: $want.* at va=0x[0-9a-f]+ " <<<"$lines")
	bad=$(sed -E 's/.* at va=(0x[0-9a-f]+) .*/\1/' <<<"$bad_line")
	n_bad=${bad_line%%:*}
	# the failing point's va: the injected va itself; for nx-cleared the
	# fetch address in that page; for freed-table the lint's first bad va,
	# the start of the 2 MiB span the freed page table maps
	ok=0
	if [ -n "$note" ] && [ -n "$bad_line" ] && [ "$n_bad" -gt "$n_note" ]; then
		case $kind in
		nx-cleared)  rel="in the page of $va"; (( (bad & ~0xfff) == (va & ~0xfff) )) && ok=1 ;;
		freed-table) rel="the start of the 2 MiB span holding $va"; (( bad == (va & ~0x1fffff) )) && ok=1 ;;
		*)           rel="the injected $va"; (( bad == va )) && ok=1 ;;
		esac
	fi
	if [ "$ok" = 1 ]; then
		pass "inject $kind: caught by '$want' at va=$bad, $rel"
	else
		fail "inject $kind: no 'not ok ... churn: $want' line after the note at the injected va '$va' (found: '${bad_line#*:}')"
		grep -E '^not ok ' <<<"$lines" | sed 's/^/# /'
	fi

	check_completed "inject $kind"
	# the teardown and the frame count are reported after leaving our tables
	# with the firmware's CR3 back: both must follow the failure
	n_teardown=$(grep -m 1 -nE '^ok [0-9]+ - teardown: ' <<<"$lines")
	n_teardown=${n_teardown%%:*}
	n_frames=$(grep -m 1 -nE '^# frames: ' <<<"$lines")
	n_frames=${n_frames%%:*}
	if [ -n "$n_bad" ] && [ -n "$n_teardown" ] && [ -n "$n_frames" ] &&
	   [ "$n_teardown" -gt "$n_bad" ] && [ "$n_frames" -gt "$n_teardown" ]; then
		pass "inject $kind: after the failure, teardown passed and the frames were counted (firmware CR3 back)"
	else
		fail "inject $kind: report lines failure=${n_bad:-none} teardown=${n_teardown:-none} frames=${n_frames:-none} (want increasing)"
	fi
	[ "$BOOT_FAIL" -eq "$f0" ] || log_tail "$BOOT_LOG" 20
}

boot_bg wrong-frame --cfg "--end=qemu --inject=wrong-frame" --cpu max --mem 1G
boot_bg nx-cleared --cfg "--end=qemu --inject=nx-cleared" --cpu max --mem 1G
boot_wait
inject_caught wrong-frame "cpu: pattern written through the HHDM alias"
inject_caught nx-cleared "cpu: fetch from an NX page"
boot_bg missing-invlpg --cfg "--end=qemu --inject=missing-invlpg" --cpu max --mem 1G
boot_bg freed-table --cfg "--end=qemu --inject=freed-table" --cpu max --mem 1G
boot_wait
inject_caught missing-invlpg "cpu: pattern written through the HHDM alias"
inject_caught freed-table "lint: tables structurally wrong"

boot_done
