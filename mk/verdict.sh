#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mk/verdict.sh SERIAL_LOG IMAGE QEMU_STATUS
#
# The verdict of a "make run", read from what the application itself said:
# every closing line on the serial port (one per run; the UEFI shell may
# start the application again after a failed or refused run) and the report
# files on the image.  QEMU's exit status alone never makes a pass.
#
#   pass        every run of the boot closed with "ptlab: P passed, 0 failed"
#               (P > 0) on the serial port and in its report file, and no
#               run was refused
#   fail        a run failed, aborted, checked nothing or was refused
#   no verdict  no closing line at all (exit status 2)
#
# Prints "ptlab: verdict: ..." as its last line; exits 0 only on a pass.
set -uo pipefail

log=$1 img=$2 status=$3

# the report's one reader: every closing line, one per run
report_py="$(cd "$(dirname "$0")/../tools" && pwd)/report.py"
mapfile -t lines < <(python3 "$report_py" closings "$log" 2>/dev/null)

# the report files the runs left on the image, with their closing lines (a
# hand-off run's file has none: its verdict is on the serial port only)
files=()
if [ -f "$img" ] && command -v mdir >/dev/null 2>&1; then
	export MTOOLS_SKIP_CHECK=1
	for f in $(mdir -b -i "$img@@1M" ::/ 2>/dev/null | sed -n 's|^::/\(PTLAB[-0-9]*\.TXT\)$|\1|ip'); do
		last=$(python3 "$report_py" closings <(mtype -i "$img@@1M" "::/$f" 2>/dev/null) | tail -n 1)
		echo "ptlab: report file \\$f: ${last:-(no closing line)}"
		[ -n "$last" ] && files+=("$last")
	done
fi

if [ "${#lines[@]}" -eq 0 ]; then
	echo "ptlab: verdict: none - no closing line on the serial port (qemu exit status $status)"
	exit 2
fi
# a pass: "ptlab: P passed, 0 failed, S skipped" with P > 0 (and perhaps
# " (serial lost N bytes)": the run passed, its serial log is incomplete)
passes()
{
	[[ $1 =~ ^ptlab:\ ([0-9]+)\ passed,\ 0\ failed,\ [0-9]+\ skipped(\ \(serial\ lost\ [0-9]+\ bytes\))?$ ]] &&
		[ "${BASH_REMATCH[1]}" -gt 0 ]
}

bad=0 badf=0 first=
for l in "${lines[@]}"; do
	if ! passes "$l"; then
		bad=$((bad + 1))
		[ -n "$first" ] || first=$l
	fi
done
for l in "${files[@]}"; do
	if ! passes "$l"; then
		badf=$((badf + 1))
		[ -n "$first" ] || first=$l
	fi
done
if [ "$bad" -eq 0 ] && [ "$badf" -eq 0 ]; then
	echo "ptlab: verdict: pass - ${lines[-1]#ptlab: } (${#lines[@]} run(s); qemu exit status $status)"
	exit 0
fi
echo "ptlab: verdict: fail - $bad of ${#lines[@]} run(s) did not pass, $badf of ${#files[@]} report file(s); first: ${first#ptlab: } (qemu exit status $status)"
exit 1
