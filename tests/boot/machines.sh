#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Configurations no other suite boots, one run each: the i440fx machine
# (-machine pc: IDE disk, no PCIe) and the 2 MiB OVMF build (OVMF_CODE.fd
# with its own OVMF_VARS.fd).  Each must pass the full default run.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

CODE_2M=${OVMF_CODE_2M:-/usr/share/OVMF/OVMF_CODE.fd}
VARS_2M=${OVMF_VARS_2M:-/usr/share/OVMF/OVMF_VARS.fd}

boot_init machines

boot_bg pc --machine pc --cpu max --mem 1G --cfg "--end=qemu --iterations=5000"
boot_bg ovmf-2m --code "$CODE_2M" --vars "$VARS_2M" --cpu max --mem 1G \
	--cfg "--end=qemu --iterations=5000"
boot_wait
judge_passed pc
judge_passed ovmf-2m
# the point of the run: a different, smaller firmware build than the default
if [ "$(stat -c %s "$CODE_2M")" -lt "$(stat -c %s "$OVMF_CODE")" ]; then
	pass "ovmf-2m: $CODE_2M ($(stat -c %s "$CODE_2M") bytes) is smaller than $OVMF_CODE"
else
	fail "ovmf-2m: $CODE_2M is not smaller than $OVMF_CODE"
fi

boot_done
