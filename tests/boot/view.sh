#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The listings and the address-space page, end to end.  Two boots side by
# side: firmware mode with --dump=ranges --dump-firmware=ranges, and
# hand-off mode with --dump=ranges --dump-firmware=leaves (its report on
# serial only; the firmware's leaf lines stop at the cap).  For each:
# the listing agrees with the report's own facts (tools/report.py check:
# leaves per size counted from the runs == # ptdump-end: == # leaves: /
# # firmware-tables:), then "make view"'s tools/view.py writes the page
# from the serial log (and, in firmware mode, from \PTLAB.TXT: the same
# runs), and tests/boot/viewcheck.py loads it in headless Chromium (no
# console message, every run in the DOM, the page's counts equal the
# facts, failures first, a screenshot that is not blank) and renders
# map.svg with rsvg-convert.  Controls: a page with a broken script must
# be reported by the browser, a report whose counts were altered must be
# refused by report.py.
#
# The page as the templates write it (tools/templates/) looks as it did
# before them: tests/data/view/reference.html.gz is the page the string-
# formatting tools/view.py wrote for tests/data/view/fw.log.gz (a
# firmware-mode serial log of the run above); today's tools/view.py renders the same log,
# and viewcheck.py --compare screenshots both in Chromium and requires the
# same pixels (0.1 % tolerance); a copy with one colour changed must be
# told apart.  When the page is meant to change, render the log anew and
# look at it before replacing the reference.
#
# VIEW_SHOT=FILE keeps the firmware-mode screenshot (docs/view.png is one).
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init view

HERE=$(cd "$(dirname "$0")" && pwd)
TOOLS=$HERE/../../tools

for tool in chromium rsvg-convert; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		fail "$tool not installed (make deps installs it)"
		boot_done
		exit
	fi
done

boot_bg fw --cfg "--dump=ranges --dump-firmware=ranges --end=qemu --iterations=300" \
	--mem 1G --timeout 400
boot_bg ho --cfg "--mode=handoff --dump=ranges --dump-firmware=leaves --end=qemu --iterations=300" \
	--mem 1G --timeout 400
boot_wait

# relay PREFIX COMMAND...: COMMAND's ok/not ok lines counted as this
# suite's, under PREFIX; its other lines shown as comments
relay()
{
	local prefix=$1 line
	shift
	while IFS= read -r line; do
		case $line in
		"ok - "*) pass "$prefix: ${line#ok - }" ;;
		"not ok - "*) fail "$prefix: ${line#not ok - }" ;;
		*) echo "# $line" ;;
		esac
	done < <("$@" 2>&1)
}

# view_of NAME LOG DIR [--shot FILE]: report check, page, browser checks
view_of()
{
	local name=$1 log=$2 dir=$3 out
	shift 3
	if out=$(python3 "$TOOLS/report.py" check "$log" 2>&1); then
		pass "$name: report.py finds the listings consistent with the facts"
	else
		fail "$name: report.py: $(head -n 3 <<<"$out" | tr '\n' ' ')"
	fi
	if out=$(python3 "$TOOLS/view.py" "$log" "$dir" 2>&1) && [ -s "$dir/index.html" ] &&
	   [ -s "$dir/map.svg" ]; then
		pass "$name: view.py wrote index.html and map.svg"
	else
		fail "$name: view.py: $out"
		return
	fi
	if grep -Eq '<(script|link|img)[^>]* (src|href)=' "$dir/index.html"; then
		fail "$name: the page loads something from outside"
	else
		pass "$name: the page is self-contained (no src= or href= on script/link/img)"
	fi
	relay "$name" python3 "$HERE/viewcheck.py" "$log" "$dir" "$@"
}

# firmware mode
boot_result fw
st=$?
check_status "$st" 33 "fw: passed (status 0x10)"
fwlog=$BOOT_LOG
check_log '^# ptdump-end: tables=ptlab .* complete=1 ' "$fwlog" "fw: ptlab's listing is complete"
check_log '^# ptdump-end: tables=firmware .* complete=1 ' "$fwlog" "fw: the firmware's listing is complete"
check_no_log '^# report truncated' "$fwlog" "fw: the report was not truncated"
lines=$(fact "$fwlog" ptdump-end lines)
leaves=$(( $(fact "$fwlog" leaves 4k) + $(fact "$fwlog" leaves 2m) + $(fact "$fwlog" leaves 1g) ))
if [ -n "$lines" ] && [ "$lines" -gt 0 ] && [ "$lines" -lt 1000 ] && [ "$lines" -lt $((leaves / 10)) ]; then
	pass "fw: $lines range lines for $leaves leaves"
else
	fail "fw: range lines '$lines' for $leaves leaves"
fi
view_of fw "$fwlog" "$BOOT_DIR/view-fw" ${VIEW_SHOT:+--shot "$VIEW_SHOT"}
if img_extract "$BOOT_IMG_COPY" PTLAB.TXT "$BOOT_DIR/PTLAB.TXT" 2>/dev/null &&
   [ -n "$(python3 "$TOOLS/report.py" runs "$BOOT_DIR/PTLAB.TXT" ptlab)" ] &&
   diff <(python3 "$TOOLS/report.py" runs "$fwlog" ptlab) \
	<(python3 "$TOOLS/report.py" runs "$BOOT_DIR/PTLAB.TXT" ptlab) >/dev/null &&
   python3 "$TOOLS/view.py" "$BOOT_DIR/PTLAB.TXT" "$BOOT_DIR/view-file" >/dev/null; then
	pass "fw: \\PTLAB.TXT gives the same runs as the serial log, and a page"
else
	fail "fw: \\PTLAB.TXT missing, different from the serial log, or no page from it"
fi

# hand-off mode
boot_result ho
st=$?
check_status "$st" 33 "ho: passed (status 0x10)"
check_log '^# ptdump-end: tables=ptlab .* complete=1 ' "$BOOT_LOG" "ho: ptlab's listing is complete"
check_log "^# ptdump-end: tables=firmware .* complete=1 " "$BOOT_LOG" "ho: the firmware's walk (before leaving boot services) is complete"
check_log '^# firmware tables: only the first 2048 leaves are listed, [0-9]+ more are not' \
	"$BOOT_LOG" "ho: the firmware's leaf listing stops at its cap and says so"
# listed + unlisted == the audit's count; exactly the listed ones printed
listed=$(python3 "$TOOLS/report.py" dump-end "$BOOT_LOG" firmware listed)
unlisted=$(python3 "$TOOLS/report.py" dump-end "$BOOT_LOG" firmware unlisted)
printed=$(python3 "$TOOLS/report.py" count "$BOOT_LOG" firmware-leaf)
audit=$(( $(fact "$BOOT_LOG" firmware-tables leaves_4k) + $(fact "$BOOT_LOG" firmware-tables leaves_2m) +
	  $(fact "$BOOT_LOG" firmware-tables leaves_1g) ))
if [ "$printed" = 2048 ] && [ "$listed" = 2048 ] && [ $((listed + unlisted)) = "$audit" ]; then
	pass "ho: 2048 firmware leaf lines + $unlisted counted = the audit's $audit leaves"
else
	fail "ho: firmware leaves printed=$printed listed='$listed' unlisted='$unlisted' audit=$audit"
fi
view_of ho "$BOOT_LOG" "$BOOT_DIR/view-ho"

# the page from the templates against the page before them (same report)
DATA=$HERE/../data/view
ref=$BOOT_DIR/reference.html
if gzip -dc "$DATA/fw.log.gz" >"$BOOT_DIR/ref.log" && gzip -dc "$DATA/reference.html.gz" >"$ref" &&
   python3 "$TOOLS/view.py" "$BOOT_DIR/ref.log" "$BOOT_DIR/view-ref" >/dev/null; then
	relay "same look" python3 "$HERE/viewcheck.py" --compare "$ref" "$BOOT_DIR/view-ref/index.html"
	sed 's/#5cb85c/#000000/g' "$BOOT_DIR/view-ref/index.html" >"$BOOT_DIR/view-ref/recoloured.html"
	if python3 "$HERE/viewcheck.py" --compare "$ref" \
		"$BOOT_DIR/view-ref/recoloured.html" --expect-different >/dev/null; then
		pass "control: a page with RW drawn black is told apart from the reference"
	else
		fail "control: a recoloured page passed for the reference"
	fi
else
	fail "view.py could not render $DATA/fw.log.gz"
fi

# controls: each check above can fail
mkdir -p "$BOOT_DIR/broken"
sed 's|</body>|<script>no_such_function();</script></body>|' "$BOOT_DIR/view-fw/index.html" \
	>"$BOOT_DIR/broken/index.html"
cp "$BOOT_DIR/view-fw/map.svg" "$BOOT_DIR/broken/"
if python3 "$HERE/viewcheck.py" "$fwlog" "$BOOT_DIR/broken" --expect-script-error >/dev/null; then
	pass "control: a script error in the page is reported by the browser"
else
	fail "control: a broken script went unnoticed"
fi
sed -E 's/(# leaves: 4k=)([0-9]+)/\1999\2/' "$fwlog" >"$BOOT_DIR/altered.log"
if ! python3 "$TOOLS/report.py" check "$BOOT_DIR/altered.log" >/dev/null; then
	pass "control: report.py refuses a report whose # leaves: disagrees with the listing"
else
	fail "control: report.py accepted altered leaf counts"
fi

[ "$BOOT_FAIL" -eq 0 ] || log_tail "$fwlog" 20
boot_done
