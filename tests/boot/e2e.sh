#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The application end to end on the machine shapes that matter: no 1 GiB
# pages (qemu64, 256 MiB), 1 GiB pages (max, 2 GiB), RAM above 4 GiB (max,
# 8 GiB), and the image booted as a USB stick.  Each run must pass every
# check, build exactly the minimum tables, leak nothing, and write the same
# report to the serial port and to \PTLAB.TXT.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init e2e

boot_bg qemu64-256M --cfg "--end=qemu" --cpu qemu64 --mem 256M
boot_bg max-2G --cfg "--end=qemu" --cpu max --mem 2G
boot_wait
judge_passed qemu64-256M
check_fact "$BOOT_LOG" cpu pdpe1gb 0 "qemu64-256M: a CPU without pdpe1gb"
check_fact "$BOOT_LOG" leaves 1g 0 "qemu64-256M: no 1 GiB page on it"
judge_passed max-2G

boot_bg max-8G --cfg "--end=qemu" --cpu max --mem 8G
boot_bg usb-stick --cfg "--end=qemu" --cpu max --mem 2G --usb
boot_wait
judge_passed max-8G
if [ "$(fact "$BOOT_LOG" leaves 1g)" -gt 0 ] 2>/dev/null; then
	pass "max-8G: RAM above 4 GiB mapped with 1 GiB leaves"
else
	fail "max-8G: no 1 GiB leaf ($(fact "$BOOT_LOG" leaves 1g))"
fi
judge_passed usb-stick

boot_done
