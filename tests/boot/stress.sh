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
	local name=$1 st ops
	boot_result "$name"
	st=$?
	check_status "$st" 33 "$name: passed (status 0x10)"
	check_report "$BOOT_LOG" "$name"
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
boot_bg max --cfg "--end=qemu --seed=7" --cpu max --mem 2G
boot_wait
churn_ok qemu64
churn_ok max

boot_bg random --cfg "--end=qemu --seed=$seed" --cpu max --mem 1G
boot_wait
churn_ok random

# each kind: caught by the right check, yet the run completes (status 0x11)
inject_caught()
{
	local kind=$1 want=$2 st
	boot_result "$kind"
	st=$?
	check_status "$st" 35 "inject $kind: run completed and reported failure (status 0x11)"
	check_log "^not ok [0-9]+ - churn: $want" "$BOOT_LOG" "inject $kind: caught by '$want'"
	check_log '^ptlab: [0-9]+ passed, [1-9][0-9]* failed' "$BOOT_LOG" "inject $kind: closing line written"
	check_log '^ok [0-9]+ - teardown: ' "$BOOT_LOG" "inject $kind: teardown still ran after the failure"
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
inject_caught freed-table "lint: "

boot_done
