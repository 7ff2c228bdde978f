#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Boot the current image once under OVMF and check that the application
# started, said so on the console, and left QEMU through isa-debug-exit with
# the pass code 0x10 (status 33) - not by timeout, triple fault or reboot.
# When the run prints a closing "ptlab: N passed, M failed" line, M must be 0.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init boot-smoke

boot_run
st=$?
log=$BOOT_LOG

check_status "$st" 33 "QEMU exited through isa-debug-exit with code 0x10"
check_log '^ptlab: ' "$log" "application printed a ptlab: line"
if log_has '^ptlab: [0-9]+ passed, [0-9]+ failed' "$log"; then
	check_log '^ptlab: [0-9]+ passed, 0 failed' "$log" "closing line reports no failure"
fi
[ "$BOOT_FAIL" -eq 0 ] || log_tail "$log"

boot_done
